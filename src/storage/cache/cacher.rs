//! One resource's watch cache, as kube's Cacher and watchCache: the current objects, a
//! window of recent events, and the one upstream watch that keeps both up to date.
//!
//! The upstream loop lists the resource, then follows one store watch from the list's
//! revision. Every event is applied under the write lock and broadcast in the same
//! critical section, so a reader holding the read lock sees the index, the window and the
//! broadcast position agree. When the upstream watch fails (the store compacted past it,
//! or it was closed), every cached watch is ended — as kube's `terminateAllWatchers` —
//! and the loop lists again; readers fall back to the store until it has.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard, Weak};
use std::time::Duration;

use futures::StreamExt;
use tokio::sync::{Notify, broadcast, watch};

use crate::storage::{Event, KeyValue, Memo, RangeRequest, Revision, Store};

/// How often an idle upstream watch reports progress on its own (consistent reads ask
/// for progress when they need it sooner).
const UPSTREAM_PROGRESS: Duration = Duration::from_secs(5);
/// Keys read per call while listing.
const LIST_CHUNK: usize = 10_000;
/// Pauses between attempts to list after a failure.
const FIRST_BACKOFF: Duration = Duration::from_millis(100);
const MAX_BACKOFF: Duration = Duration::from_secs(2);
/// Live events a watcher may fall behind before it catches up from the window.
pub(super) const BROADCAST_CAPACITY: usize = 1024;

/// What a cache holds, guarded by one lock.
pub(super) struct State {
    /// The current objects by key.
    pub objects: BTreeMap<Arc<str>, KeyValue>,
    /// Every event at or below this revision has been applied.
    pub revision: Revision,
    /// The revision of the newest applied event (objects are as of any revision in
    /// `last_change..=revision`).
    pub last_change: Revision,
    /// Recent put and delete events, oldest first.
    pub window: VecDeque<Event>,
    /// Every event after this revision is in the window.
    pub window_start: Revision,
    /// False until the first list, and again while relisting.
    pub ready: bool,
    /// Live events for the cached watches (replaced, ending them all, on relist).
    pub live: broadcast::Sender<Event>,
}

impl State {
    /// The window's events after `after` (the window is in revision order).
    pub fn events_after(&self, after: Revision) -> impl Iterator<Item = &Event> {
        let first = self.window.partition_point(|e| e.revision() <= after);
        self.window.range(first..)
    }
}

/// One served resource's cache.
pub struct Cacher {
    /// The storage prefix of the resource, ending in `/`.
    pub(super) prefix: String,
    /// The resource's name in logs and metrics (`plural.group`).
    pub(super) resource: std::sync::Arc<str>,
    /// The resource as kube's watch cache metrics label it.
    pub(super) labels: crate::metrics::GroupResource,
    pub(super) inner: Arc<dyn Store>,
    state: RwLock<State>,
    /// The applied revision, for readers waiting for the cache to catch up.
    pub(super) revision: watch::Sender<Revision>,
    /// Asks the upstream watch for a progress report.
    pub(super) progress: Arc<Notify>,
    /// How many events the window keeps.
    pub(super) capacity: usize,
    /// How many objects are stored at each version.
    pub(super) stored: super::stored::StoredCounts,
    /// The last listing failed on a value that cannot be read (no encryption provider
    /// decrypts it): retrying will not help until the configuration changes.
    unreadable: std::sync::atomic::AtomicBool,
    /// The resource is no longer served: the cache follows nothing and counts nothing.
    stopped: std::sync::atomic::AtomicBool,
}

impl Cacher {
    /// A cache for keys under `prefix`; [`Cacher::run`] fills it.
    pub fn new(
        inner: Arc<dyn Store>,
        prefix: String,
        labels: crate::metrics::GroupResource,
        capacity: usize,
        stored: super::metrics::StoredObjects,
    ) -> Arc<Cacher> {
        let resource: Arc<str> = labels.name().into();
        let stored =
            super::stored::StoredCounts::new(resource.clone(), labels.group.clone(), stored);
        Arc::new(Cacher {
            prefix,
            resource,
            stored,
            labels,
            inner,
            state: RwLock::new(State {
                objects: BTreeMap::new(),
                revision: 0,
                last_change: 0,
                window: VecDeque::new(),
                window_start: 0,
                ready: false,
                live: broadcast::channel(BROADCAST_CAPACITY).0,
            }),
            revision: watch::channel(0).0,
            progress: Arc::new(Notify::new()),
            capacity: capacity.max(1),
            unreadable: std::sync::atomic::AtomicBool::new(false),
            stopped: std::sync::atomic::AtomicBool::new(false),
        })
    }

    pub(super) fn read(&self) -> RwLockReadGuard<'_, State> {
        self.state
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(super) fn write(&self) -> RwLockWriteGuard<'_, State> {
        self.state
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Whether the cache has listed and is following the store.
    pub fn ready(&self) -> bool {
        self.read().ready
    }

    /// Waits until the cache has listed (the applied revision is announced after).
    pub(super) async fn wait_ready(&self) {
        let mut rx = self.revision.subscribe();
        // Only a closed channel fails, and the sender lives as long as `self`.
        let _ = rx.wait_for(|_| self.ready()).await;
    }

    /// Whether the last listing failed on a value no encryption provider reads.
    pub fn unreadable(&self) -> bool {
        self.unreadable.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Waits until the cache has listed, or its listing failed on an unreadable value.
    pub(super) async fn wait_listed(&self) {
        let mut rx = self.revision.subscribe();
        let _ = rx.wait_for(|_| self.ready() || self.unreadable()).await;
    }

    /// The resource is no longer served: every cached watch ends, the upstream loop stops
    /// at its next event and the resource's stored-object series go (kube's cacher `Stop`
    /// when a CRD's storage is torn down).
    pub(super) fn stop(&self) {
        self.stopped
            .store(true, std::sync::atomic::Ordering::Release);
        self.reset();
        self.stored.clear();
        self.progress.notify_one();
    }

    fn is_stopped(&self) -> bool {
        self.stopped.load(std::sync::atomic::Ordering::Acquire)
    }

    /// How many objects the cache holds.
    pub fn object_count(&self) -> usize {
        self.read().objects.len()
    }

    /// Follows the store until the cache is dropped: list, watch, and list again after a
    /// failure.
    pub async fn run(cacher: Weak<Cacher>) {
        let mut backoff = FIRST_BACKOFF;
        loop {
            let Some(this) = cacher.upgrade().filter(|c| !c.is_stopped()) else {
                return;
            };
            let stream = match this.list_and_watch().await {
                Ok(stream) => stream,
                Err(err) => {
                    tracing::warn!(resource = %this.resource, error = %err, "watch cache: listing failed, retrying");
                    let unreadable = matches!(err, crate::storage::StorageError::Internal(_));
                    this.unreadable
                        .store(unreadable, std::sync::atomic::Ordering::Relaxed);
                    this.revision.send_modify(|_| {});
                    drop(this);
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(MAX_BACKOFF);
                    continue;
                }
            };
            backoff = FIRST_BACKOFF;
            this.unreadable
                .store(false, std::sync::atomic::Ordering::Relaxed);
            drop(this);
            Self::follow(&cacher, stream).await;
        }
    }

    /// Lists every key at one revision, then opens the upstream watch after it and makes
    /// the list the cache's state.
    async fn list_and_watch(&self) -> crate::storage::Result<crate::storage::WatchStream> {
        let mut objects = BTreeMap::new();
        let mut req = RangeRequest {
            prefix: self.prefix.clone(),
            limit: LIST_CHUNK,
            ..RangeRequest::default()
        };
        loop {
            let page = self.inner.range(req.clone()).await?;
            req.revision = page.revision;
            let next = page.kvs.last().map(|kv| format!("{}\u{0}", kv.key));
            for mut kv in page.kvs {
                kv.memo = Memo::shared();
                objects.insert(kv.key.clone(), kv);
            }
            match next {
                Some(start) if page.more => req.start_key = Some(start),
                _ => break,
            }
        }
        let listed = req.revision;
        let stream = self
            .inner
            .watch_with_progress(
                &self.prefix,
                listed,
                UPSTREAM_PROGRESS,
                self.progress.clone(),
            )
            .await?;
        let count = objects.len();
        if self.is_stopped() {
            return Err(crate::storage::StorageError::Unavailable(
                "the resource is no longer served".into(),
            ));
        }
        self.stored.reset(objects.values().map(|kv| &kv.value[..]));
        let mut state = self.write();
        state.objects = objects;
        state.revision = listed;
        state.last_change = listed;
        state.window.clear();
        state.window_start = listed;
        state.ready = true;
        drop(state);
        self.revision.send_replace(listed);
        tracing::info!(resource = %self.resource, objects = count, revision = listed, "watch cache filled");
        Ok(stream)
    }

    /// Applies upstream events until the watch fails or the cache is dropped.
    async fn follow(cacher: &Weak<Cacher>, mut stream: crate::storage::WatchStream) {
        while let Some(item) = stream.next().await {
            let Some(this) = cacher.upgrade().filter(|c| !c.is_stopped()) else {
                return;
            };
            match item {
                Ok(event) => this.apply(event),
                Err(err) => {
                    tracing::warn!(resource = %this.resource, error = %err, "watch cache: upstream watch failed, listing again");
                    this.reset();
                    return;
                }
            }
        }
        if let Some(this) = cacher.upgrade() {
            this.reset();
        }
    }

    /// Ends every cached watch and stops serving until the next list.
    fn reset(&self) {
        let mut state = self.write();
        state.ready = false;
        state.window.clear();
        // Dropping the sender ends every receiver once it has drained.
        state.live = broadcast::channel(BROADCAST_CAPACITY).0;
    }

    /// Waits until the cache has applied `target` or `within` passes; asks the upstream
    /// watch for progress so a quiet resource catches up at once. False on timeout.
    pub(super) async fn wait_for(&self, target: Revision, within: Duration) -> bool {
        let mut rx = self.revision.subscribe();
        if *rx.borrow_and_update() >= target {
            return self.ready();
        }
        self.progress.notify_one();
        let reached = tokio::time::timeout(within, rx.wait_for(|r| *r >= target)).await;
        matches!(reached, Ok(Ok(_))) && self.ready()
    }
}
