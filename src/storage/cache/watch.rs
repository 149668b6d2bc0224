//! Watches served from a resource's cache: the window's events after the start revision,
//! then the live broadcast — every watcher shares the same event values (and their memo),
//! nothing is copied per watcher.
//!
//! A watcher that falls more than the broadcast's capacity behind catches up from the
//! window; one whose position has left the window cannot be served consistently any more
//! and is ended as kube ends a watcher that cannot keep up: the stream just closes (the
//! client watches again from its last resourceVersion) and the termination is counted.
//! A slow watcher thus never holds more than the shared window and never delays others.

use std::collections::VecDeque;
use std::sync::{Arc, Weak};
use std::time::Duration;

use futures::StreamExt;
use prometheus_client::metrics::counter::Counter;
use tokio::sync::broadcast::{self, error::RecvError, error::TryRecvError};
use tokio::time::Instant;

use super::cacher::{Cacher, State};
use crate::storage::{Event, Result, Revision, StorageError, WatchStream};

/// Opens a watch on keys under `prefix` after `after` (0 = now) from the cache; `None`
/// while the cache is not ready (the caller watches the store instead).
pub(super) fn open(
    cacher: &Arc<Cacher>,
    prefix: &str,
    after: Revision,
    every: Duration,
    terminated: Counter,
) -> Option<Result<WatchStream>> {
    let state = cacher.read();
    if !state.ready {
        return None;
    }
    let start = if after == 0 { state.revision } else { after };
    if start < state.window_start {
        return Some(Err(StorageError::Compacted {
            requested: after,
            compacted: state.window_start + 1,
        }));
    }
    let mut watcher = CachedWatch {
        cacher: Arc::downgrade(cacher),
        rx: state.live.subscribe(),
        prefix: prefix.to_string(),
        last: start,
        pending: VecDeque::new(),
        every,
        idle_deadline: crate::storage::progress_deadline(every),
        terminated,
        done: false,
    };
    watcher.take_window(&state);
    drop(state);
    let stream = futures::stream::unfold(watcher, |mut w| async move {
        let item = w.next().await?;
        Some((item, w))
    });
    Some(Ok(stream.boxed()))
}

struct CachedWatch {
    cacher: Weak<Cacher>,
    rx: broadcast::Receiver<Event>,
    prefix: String,
    /// Every event at or below this revision is in `pending` or was yielded.
    last: Revision,
    pending: VecDeque<Event>,
    every: Duration,
    idle_deadline: Instant,
    terminated: Counter,
    done: bool,
}

impl CachedWatch {
    async fn next(&mut self) -> Option<Result<Event>> {
        loop {
            if let Some(event) = self.pending.pop_front() {
                self.idle_deadline = crate::storage::progress_deadline(self.every);
                return Some(Ok(event));
            }
            if self.done {
                return None;
            }
            tokio::select! {
                msg = self.rx.recv() => match msg {
                    Ok(event) => self.accept(&event),
                    Err(RecvError::Lagged(_)) => self.catch_up(),
                    // The cache is listing again: cached watches end, as kube's do.
                    Err(RecvError::Closed) => self.done = true,
                },
                () = tokio::time::sleep_until(self.idle_deadline) => self.progress(),
            }
        }
    }

    /// Takes a live event unless it was already taken or is outside the prefix.
    fn accept(&mut self, event: &Event) {
        let revision = event.revision();
        if revision <= self.last {
            return;
        }
        self.last = revision;
        if self.selects(event) {
            self.pending.push_back(event.clone());
        }
    }

    fn selects(&self, event: &Event) -> bool {
        match event {
            Event::Put { kv, .. } | Event::Delete { kv } => kv.key.starts_with(&self.prefix),
            Event::Progress { .. } => false,
        }
    }

    /// Queues the window's events after `last`.
    fn take_window(&mut self, state: &State) {
        let after = self.last;
        let prefix = &self.prefix;
        self.pending.extend(
            state
                .events_after(after)
                .filter(|e| match e {
                    Event::Put { kv, .. } | Event::Delete { kv } => kv.key.starts_with(prefix),
                    Event::Progress { .. } => false,
                })
                .cloned(),
        );
        self.last = self.last.max(state.last_change);
    }

    /// After falling behind the broadcast: catch up from the window, or end the watch
    /// when what it missed has left the window.
    fn catch_up(&mut self) {
        let Some(cacher) = self.cacher.upgrade() else {
            self.done = true;
            return;
        };
        let state = cacher.read();
        if !state.ready || self.last < state.window_start {
            self.terminated.inc();
            tracing::info!(
                resource = %cacher.resource,
                last = self.last,
                window_start = state.window_start,
                "watch cache: ending a watcher that cannot keep up"
            );
            self.done = true;
            return;
        }
        self.rx = state.live.subscribe();
        self.take_window(&state);
    }

    /// While idle: take what was broadcast, then report progress up to the cache's
    /// revision (the applier broadcasts under the write lock, so with the read lock held
    /// an empty receiver has everything up to it).
    fn progress(&mut self) {
        self.idle_deadline = crate::storage::progress_deadline(self.every);
        let Some(cacher) = self.cacher.upgrade() else {
            self.done = true;
            return;
        };
        let state = cacher.read();
        loop {
            match self.rx.try_recv() {
                Ok(event) => self.accept(&event),
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Lagged(_)) => {
                    drop(state);
                    return self.catch_up();
                }
                Err(TryRecvError::Closed) => {
                    self.done = true;
                    return;
                }
            }
        }
        if self.pending.is_empty() && state.ready {
            self.last = self.last.max(state.revision);
            self.pending.push_back(Event::Progress {
                revision: self.last,
            });
        }
    }
}
