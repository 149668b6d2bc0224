//! Embedded storage watches: replay from the durable log, then follow live events.
//!
//! The receiver subscribes before the current revision is read, so every event is either
//! in the log up to that revision or arrives live; live events at or below the last
//! delivered revision are duplicates and dropped. A receiver that lags re-subscribes and
//! replays the gap from the log, so a slow consumer never loses events.

use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};
use std::time::Duration;

use futures::StreamExt;
use tokio::sync::broadcast::{self, error::RecvError, error::TryRecvError};
use tokio::time::Instant;

use super::tables;
use super::{EmbeddedStore, Shared, read_with};
use crate::storage::{Event, Result, Revision, StorageError, WatchStream};

/// Log entries read per blocking call while replaying.
const REPLAY_BATCH: i64 = 512;

/// Opens a watch on keys under `prefix` after revision `after` (0 = now).
pub(super) async fn open(
    store: &EmbeddedStore,
    prefix: &str,
    after: Revision,
    progress_every: Duration,
    requests: Option<Arc<tokio::sync::Notify>>,
) -> Result<WatchStream> {
    let rx = store.events.subscribe();
    let counters = read_with(store.shared.clone(), tables::read_counters).await?;
    let after = if after == 0 { counters.revision } else { after };
    if after + 1 < counters.compacted {
        return Err(StorageError::Compacted {
            requested: after,
            compacted: counters.compacted,
        });
    }
    let state = Watcher {
        shared: Arc::downgrade(&store.shared),
        rx,
        prefix: prefix.to_string(),
        last: after,
        replay_to: counters.revision,
        pending: VecDeque::new(),
        every: progress_every,
        idle_deadline: crate::storage::progress_deadline(progress_every),
        requests,
        done: false,
    };
    let stream = futures::stream::unfold(state, |mut w| async move {
        let item = w.next().await?;
        Some((item, w))
    });
    Ok(stream.boxed())
}

struct Watcher {
    shared: Weak<Shared>,
    rx: broadcast::Receiver<Arc<Event>>,
    prefix: String,
    /// Every event at or below this revision is in `pending` or was yielded.
    last: Revision,
    /// Events in `(last, replay_to]` must still be read from the log.
    replay_to: Revision,
    pending: VecDeque<Event>,
    every: Duration,
    /// When a progress event is due if nothing is yielded before.
    idle_deadline: Instant,
    /// Progress asked for by the watch's owner (the watch cache).
    requests: Option<Arc<tokio::sync::Notify>>,
    done: bool,
}

impl Watcher {
    async fn next(&mut self) -> Option<Result<Event>> {
        loop {
            if let Some(event) = self.pending.pop_front() {
                self.idle_deadline = crate::storage::progress_deadline(self.every);
                return Some(Ok(event));
            }
            if self.done {
                return None;
            }
            match self.fill().await {
                Ok(true) => {}
                Ok(false) => self.done = true,
                Err(err) => {
                    self.done = true;
                    return Some(Err(err));
                }
            }
        }
    }

    /// Queues the next events; `false` once the store is gone.
    async fn fill(&mut self) -> Result<bool> {
        if self.last < self.replay_to {
            return self.replay().await;
        }
        tokio::select! {
            msg = self.rx.recv() => match msg {
                Ok(event) => {
                    self.accept(&event);
                    Ok(true)
                }
                Err(RecvError::Lagged(_)) => self.resync().await,
                Err(RecvError::Closed) => Ok(false),
            },
            () = tokio::time::sleep_until(self.idle_deadline) => self.progress().await,
            () = crate::storage::progress_requested(self.requests.as_deref()) => self.progress().await,
        }
    }

    /// Takes a live event unless it is a duplicate or outside the prefix.
    fn accept(&mut self, event: &Event) {
        let rev = event.revision();
        if rev <= self.last {
            return;
        }
        self.last = rev;
        let key = match event {
            Event::Put { kv, .. } | Event::Delete { kv } => &*kv.key,
            Event::Progress { .. } => return,
        };
        if key.starts_with(&self.prefix) {
            self.pending.push_back(event.clone());
        }
    }

    /// Reads the next batch of history from the log.
    async fn replay(&mut self) -> Result<bool> {
        let Some(shared) = self.shared.upgrade() else {
            return Ok(false);
        };
        let (prefix, after, upto) = (self.prefix.clone(), self.last, self.replay_to);
        let (events, end) = read_with(shared, move |txn| {
            tables::events(txn, &prefix, after, upto, REPLAY_BATCH)
        })
        .await?;
        self.pending.extend(events);
        self.last = end;
        Ok(true)
    }

    /// After a lag: follow the channel from now on and replay what was missed from the log.
    async fn resync(&mut self) -> Result<bool> {
        self.rx = self.rx.resubscribe();
        let Some(shared) = self.shared.upgrade() else {
            return Ok(false);
        };
        let counters = read_with(shared, tables::read_counters).await?;
        self.replay_to = self.replay_to.max(counters.revision);
        Ok(true)
    }

    /// While idle: drain what was published, then report progress up to the published
    /// revision (every event at or below it has then been received).
    async fn progress(&mut self) -> Result<bool> {
        let Some(shared) = self.shared.upgrade() else {
            return Ok(false);
        };
        let published = shared.published.load(Ordering::Acquire);
        drop(shared);
        loop {
            match self.rx.try_recv() {
                Ok(event) => self.accept(&event),
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Lagged(_)) => return self.resync().await,
                Err(TryRecvError::Closed) => return Ok(false),
            }
        }
        if self.pending.is_empty() {
            let revision = self.last.max(published);
            self.pending.push_back(Event::Progress { revision });
        }
        Ok(true)
    }
}
