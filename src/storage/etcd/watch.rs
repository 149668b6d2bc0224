//! etcd backend watches: one etcd watch per stream (start revision + prev_kv + progress
//! notifications), resumed after any stream failure from the last delivered revision.
//!
//! `last` is the revision up to which every event was queued: it moves with events and
//! with progress responses, which etcd sends only for a watcher that has caught up. After
//! a disconnect the watch is re-created at `last + 1` with backoff until it works or the
//! store is dropped, so consumers see no gap and no duplicate; if `last + 1` was compacted
//! meanwhile, etcd cancels the watch with the compacted revision and the stream ends with
//! `Compacted`. Progress while idle: see the module docs of `etcd`.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use etcd_client::{EventType, WatchOptions, WatchResponse, WatchStream as EtcdWatch};
use futures::StreamExt;
use tokio::sync::watch;
use tokio::time::Instant;

use super::Shared;
use super::errors::{backend, call_plain};
use super::kv::{header_revision, key_value, prefix_range};
use crate::storage::{Event, Result, Revision, StorageError, WatchStream};

/// The first and the longest pause between attempts to re-create a broken watch.
const FIRST_BACKOFF: Duration = Duration::from_millis(100);
const MAX_BACKOFF: Duration = Duration::from_secs(2);

/// Opens a watch on keys under `prefix` after revision `after` (0 = now).
pub(super) async fn open(
    shared: Arc<Shared>,
    closed: watch::Receiver<()>,
    prefix: &str,
    after: Revision,
    every: Duration,
    requests: Option<Arc<tokio::sync::Notify>>,
) -> Result<WatchStream> {
    let after = if after == 0 {
        shared.current_revision().await?
    } else {
        if !shared.readable(after + 1).await? {
            let compacted = shared.compacted_revision().await?;
            return Err(StorageError::Compacted {
                requested: after,
                compacted,
            });
        }
        after
    };
    let (conn, first) = connect(&shared, prefix, after + 1).await?;
    let mut watcher = Watcher {
        shared,
        closed,
        prefix: prefix.to_string(),
        conn: Some(conn),
        last: after,
        pending: VecDeque::new(),
        failure: None,
        every,
        progress_due: crate::storage::progress_deadline(every),
        progress_requested: false,
        requests,
        backoff: FIRST_BACKOFF,
        done: false,
    };
    if let Some(resp) = first {
        watcher.settle(resp);
    }
    let stream = futures::stream::unfold(watcher, |mut w| async move {
        let item = w.next().await?;
        Some((item, w))
    });
    Ok(stream.boxed())
}

/// Creates the etcd watch from `start` and waits for etcd to confirm it. Returns a first
/// response to process when etcd sent something other than the confirmation.
async fn connect(
    shared: &Shared,
    prefix: &str,
    start: Revision,
) -> Result<(EtcdWatch, Option<WatchResponse>)> {
    let (key, end) = prefix_range(prefix);
    let options = WatchOptions::new()
        .with_range(end)
        .with_start_revision(start)
        .with_prev_key()
        .with_progress_notify();
    let mut client = shared.watch.clone();
    let timeout = shared.dial_timeout;
    let mut stream = call_plain(timeout, "watch", client.watch(key, Some(options))).await?;
    match call_plain(timeout, "watch", stream.message()).await? {
        None => Err(StorageError::Unavailable(
            "etcd watch: stream closed before the watch was created".into(),
        )),
        Some(resp) if resp.created() && !resp.canceled() => Ok((stream, None)),
        Some(resp) if resp.canceled() && resp.compact_revision() == 0 => Err(backend(format!(
            "etcd refused the watch on {prefix}: {}",
            resp.cancel_reason()
        ))),
        Some(resp) => Ok((stream, Some(resp))),
    }
}

/// Why a watch stops.
enum Stop {
    /// The store was dropped: the stream just ends.
    Closed,
    /// The stream ends with this error.
    Failed(StorageError),
}

struct Watcher {
    shared: Arc<Shared>,
    /// Fires (with an error) when the store is dropped.
    closed: watch::Receiver<()>,
    prefix: String,
    /// The etcd watch; `None` while it must be re-created.
    conn: Option<EtcdWatch>,
    /// Every event at or below this revision is in `pending` or was yielded.
    last: Revision,
    pending: VecDeque<Event>,
    /// Yielded once `pending` is empty, then the stream ends.
    failure: Option<StorageError>,
    every: Duration,
    progress_due: Instant,
    /// A progress request is outstanding: its answer becomes a `Progress` event.
    progress_requested: bool,
    /// Progress asked for by the watch's owner (the watch cache).
    requests: Option<Arc<tokio::sync::Notify>>,
    backoff: Duration,
    done: bool,
}

impl Watcher {
    async fn next(&mut self) -> Option<Result<Event>> {
        loop {
            if let Some(event) = self.pending.pop_front() {
                self.progress_due = crate::storage::progress_deadline(self.every);
                return Some(Ok(event));
            }
            if self.done {
                return self.failure.take().map(Err);
            }
            if let Err(stop) = self.fill().await {
                self.stop(stop);
            }
        }
    }

    fn stop(&mut self, stop: Stop) {
        self.done = true;
        self.conn = None;
        if let Stop::Failed(err) = stop {
            self.failure = Some(err);
        }
    }

    /// Queues what etcd sends next, a due progress event, or re-creates the watch.
    async fn fill(&mut self) -> Result<(), Stop> {
        let Some(conn) = self.conn.as_mut() else {
            return self.reconnect().await;
        };
        let due = self.progress_due;
        tokio::select! {
            biased;
            _ = self.closed.changed() => Err(Stop::Closed),
            msg = conn.message() => {
                match msg {
                    Ok(Some(resp)) => self.accept(resp),
                    Ok(None) => {
                        self.disconnect("etcd ended the watch stream");
                        Ok(())
                    }
                    Err(err) => {
                        self.disconnect(&err.to_string());
                        Ok(())
                    }
                }
            }
            () = tokio::time::sleep_until(due) => self.idle().await,
            () = crate::storage::progress_requested(self.requests.as_deref()) => self.idle().await,
        }
    }

    /// Processes one etcd response.
    fn accept(&mut self, resp: WatchResponse) -> Result<(), Stop> {
        if resp.canceled() {
            return Err(Stop::Failed(self.cancel_error(&resp)));
        }
        if resp.created() {
            return Ok(());
        }
        if resp.events().is_empty() {
            // A progress notification: every event up to its revision was sent. Timed
            // notifications share the watcher's channel with its events, so they never
            // overtake them; only *requested* ones could on old servers
            // (etcd-io/etcd#15220), and `idle` asks for those only where that is fixed.
            let revision = header_revision(resp.header()).map_err(Stop::Failed)?;
            self.last = self.last.max(revision);
            // Owners that follow progress (the watch cache) hear of timed notifications
            // too: they are in order with events on every server version.
            if std::mem::take(&mut self.progress_requested) || self.requests.is_some() {
                self.pending.push_back(Event::Progress {
                    revision: self.last,
                });
            }
            return Ok(());
        }
        // Events of one revision arrive in one response; anything at or below `floor`
        // was delivered before a reconnect.
        let floor = self.last;
        for event in resp.events() {
            let event = convert(event).map_err(Stop::Failed)?;
            let revision = event.revision();
            if revision > floor {
                self.last = self.last.max(revision);
                self.pending.push_back(event);
            }
        }
        Ok(())
    }

    /// Processes a first response after (re)connecting; a failure ends the stream.
    fn settle(&mut self, resp: WatchResponse) {
        if let Err(stop) = self.accept(resp) {
            self.stop(stop);
        }
    }

    fn cancel_error(&self, resp: &WatchResponse) -> StorageError {
        let compacted = resp.compact_revision();
        if compacted > 0 {
            self.shared.learn_compacted(compacted);
            return StorageError::Compacted {
                requested: self.last,
                compacted,
            };
        }
        backend(format!(
            "etcd canceled the watch on {}: {}",
            self.prefix,
            resp.cancel_reason()
        ))
    }

    /// Nothing was yielded for a progress interval: report progress. Servers whose
    /// progress answers are synchronised with events are asked for the current revision;
    /// older ones get the last revision known to be complete.
    async fn idle(&mut self) -> Result<(), Stop> {
        self.progress_due = crate::storage::progress_deadline(self.every);
        if !self.shared.synchronised_progress {
            self.pending.push_back(Event::Progress {
                revision: self.last,
            });
            return Ok(());
        }
        if let Some(conn) = self.conn.as_mut() {
            match conn.request_progress().await {
                Ok(()) => self.progress_requested = true,
                Err(err) => self.disconnect(&err.to_string()),
            }
        }
        Ok(())
    }

    fn disconnect(&mut self, reason: &str) {
        tracing::warn!(
            prefix = %self.prefix,
            last = self.last,
            reason,
            "etcd watch interrupted, resuming"
        );
        self.conn = None;
        self.progress_requested = false;
    }

    /// Re-creates the etcd watch after `last`, with backoff, until it works or the store
    /// is dropped.
    async fn reconnect(&mut self) -> Result<(), Stop> {
        loop {
            let attempt = tokio::select! {
                biased;
                _ = self.closed.changed() => return Err(Stop::Closed),
                attempt = connect(&self.shared, &self.prefix, self.last + 1) => attempt,
            };
            match attempt {
                Ok((conn, first)) => {
                    tracing::info!(prefix = %self.prefix, last = self.last, "etcd watch resumed");
                    self.conn = Some(conn);
                    self.backoff = FIRST_BACKOFF;
                    self.progress_due = crate::storage::progress_deadline(self.every);
                    return match first {
                        Some(resp) => self.accept(resp),
                        None => Ok(()),
                    };
                }
                Err(err) => {
                    tracing::debug!(prefix = %self.prefix, error = %err, "etcd watch not resumed yet");
                    let pause = self.backoff;
                    self.backoff = (self.backoff * 2).min(MAX_BACKOFF);
                    tokio::select! {
                        biased;
                        _ = self.closed.changed() => return Err(Stop::Closed),
                        () = tokio::time::sleep(pause) => {}
                    }
                }
            }
        }
    }
}

/// An etcd event as a store event: deletes carry the last value (from prev_kv) and the
/// delete's revision; puts carry the previous value unless they created the key.
fn convert(event: &etcd_client::Event) -> Result<Event> {
    let kv = event
        .kv()
        .ok_or_else(|| backend("etcd watch event without a key"))?;
    let mut kv = key_value(kv)?;
    let prev = event.prev_kv();
    let created = kv.create_revision == kv.mod_revision;
    match (event.event_type(), prev) {
        (EventType::Put, _) if created => Ok(Event::Put {
            kv,
            prev_value: None,
        }),
        (EventType::Put, Some(prev)) => {
            let prev_value = Some(bytes::Bytes::copy_from_slice(prev.value()));
            Ok(Event::Put { kv, prev_value })
        }
        (EventType::Delete, Some(prev)) => {
            kv.value = bytes::Bytes::copy_from_slice(prev.value());
            kv.create_revision = prev.create_revision();
            Ok(Event::Delete { kv })
        }
        // etcd leaves prev_kv out when the previous version was compacted. Such an
        // event would pass for a create (or a delete without its object): fail the
        // watch instead, as kube's watcher does, and the owner lists again.
        (_, None) => Err(StorageError::Compacted {
            requested: kv.mod_revision - 1,
            compacted: kv.mod_revision,
        }),
    }
}
