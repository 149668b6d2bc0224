//! How one upstream event changes a watch cache (kube's watchCache `processEvent`): the
//! index, the window of recent events (bounded, evicting the oldest), the broadcast to
//! the cached watches and the applied revision, all under the write lock; and the
//! window forgetting what the store compacted.

use std::collections::VecDeque;

use super::cacher::{Cacher, State};
use crate::storage::{Event, KeyValue, Memo, Revision};

impl Cacher {
    /// Applies one upstream event: index, window, broadcast, then wakes waiting readers.
    pub(super) fn apply(&self, event: Event) {
        let mut state = self.write();
        let revision = event.revision();
        if revision <= state.revision && !matches!(event, Event::Progress { .. }) {
            return;
        }
        // The value an event replaced or deleted, and the one it put: counted once the
        // lock is released.
        let mut change = (None, None);
        let event = match event {
            Event::Progress { revision } => {
                state.revision = state.revision.max(revision);
                let applied = state.revision;
                drop(state);
                self.revision.send_replace(applied);
                return;
            }
            Event::Put { mut kv, prev_value } => {
                // The event and the index keep their own memo: a watch line must not
                // outlive the event in the window by staying with the indexed object.
                kv.memo = event_memo(&state);
                let indexed = KeyValue {
                    memo: Memo::shared(),
                    ..kv.clone()
                };
                // The previous value is the indexed one: share its bytes, not a copy.
                let old = state.objects.insert(kv.key.clone(), indexed);
                change = (
                    old.as_ref().map(|o| o.value.clone()),
                    Some(kv.value.clone()),
                );
                let prev_value = match old {
                    Some(old) if prev_value.is_some() => Some(old.value),
                    _ => prev_value,
                };
                Event::Put { kv, prev_value }
            }
            Event::Delete { mut kv } => {
                if let Some(old) = state.objects.remove(&*kv.key) {
                    kv.value = old.value;
                    change.0 = Some(kv.value.clone());
                }
                kv.memo = event_memo(&state);
                Event::Delete { kv }
            }
        };
        state.revision = revision;
        state.last_change = revision;
        // Evicted before the push, so that a full window never grows its deque.
        while state.window.len() >= self.capacity {
            if let Some(evicted) = state.window.pop_front() {
                state.window_start = evicted.revision();
            }
        }
        reserve_window(&mut state.window, self.capacity);
        state.window.push_back(event.clone());
        // No receiver is not an error: nobody watches.
        let _ = state.live.send(event);
        drop(state);
        self.stored.change(change.0.as_deref(), change.1.as_deref());
        self.revision.send_replace(revision);
    }

    /// The store forgot history before `revision`: so does the window (a watch from
    /// there is `Compacted` on both paths).
    pub(super) fn compacted(&self, revision: Revision) {
        let mut state = self.write();
        let forgotten = revision - 1;
        while state
            .window
            .front()
            .is_some_and(|e| e.revision() <= forgotten)
        {
            state.window.pop_front();
        }
        state.window_start = state.window_start.max(forgotten);
    }
}

/// An event's memo: shared when cached watches will receive it live, so its line is
/// serialized once for all of them; else inert (64 bytes less per event in the window),
/// and a watch that replays it later serializes its own line. Kube's cacher, too, caches
/// serializations only while it dispatches an event to its watchers. Called under the
/// write lock, so no watch subscribes (under the read lock) between this and the send.
fn event_memo(state: &State) -> Memo {
    if state.live.receiver_count() > 0 {
        Memo::shared()
    } else {
        Memo::default()
    }
}

/// Room for one more event in a window of at most `capacity`: doubling as a deque does,
/// but never past `capacity` (a full window of 10,000 events would otherwise hold 16,384
/// slots).
fn reserve_window(window: &mut VecDeque<Event>, capacity: usize) {
    let (len, room) = (window.len(), window.capacity());
    if len < room || room >= capacity {
        return;
    }
    window.reserve_exact(room.max(8).min(capacity - len));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserve_window_full_window_capacity_exact() {
        for capacity in [1, 10, 1000, 10_000] {
            let mut window = VecDeque::new();
            for revision in 0..capacity as i64 * 2 + 3 {
                if window.len() >= capacity {
                    window.pop_front();
                }
                reserve_window(&mut window, capacity);
                window.push_back(Event::Progress { revision });
            }
            assert_eq!((window.len(), window.capacity()), (capacity, capacity));
        }
    }
}
