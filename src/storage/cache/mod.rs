//! Watch cache: a [`Store`] that serves reads and watches of the served resources from
//! memory, one [`Cacher`] per resource, and passes writes (and keys of no cached resource)
//! to the store underneath — kube's Cacher in front of its etcd3 store.
//!
//! Reads, as kube's consistent reads from cache (KEP-2340):
//! - a read at revision 0 with `not_older_than` (kube's `resourceVersion=0` and
//!   `NotOlderThan`) is answered as soon as the cache has that revision;
//! - a consistent read asks the store for its current revision (etcd shares one round
//!   trip among the reads that arrived before it started; the embedded store loads it
//!   from memory), waits for the cache to apply it, and reads memory; after
//!   [`CONSISTENT_WAIT`] it reads the store instead;
//! - a read at a fixed revision (a continue token) is answered from memory when nothing in
//!   the resource changed since that revision, else by the store (the tokens are the same).
//!
//! Writes go to the store; the cache learns them from its watch, as kube's does.
//!
//! The cached resources follow the served catalog ([`CachedStore::follow`]): a newly
//! served resource gains a cache (reads go to the store until it has listed), one no
//! longer served loses its cache (its watches end).

mod apply;
mod cacher;
mod metrics;
mod read;
mod stored;
#[cfg(test)]
mod tests;
mod watch;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use prometheus_client::metrics::counter::Counter;

pub use self::cacher::Cacher;
pub use self::metrics::{CacheMetrics, PerResource, StoredLabels, StoredObjects};
use super::{KeyValue, RangeRequest, RangeResult, Result, Revision, Store, WatchStream};

/// How long a consistent read waits for the cache before reading the store (kube's
/// `blockTimeout`).
pub const CONSISTENT_WAIT: Duration = Duration::from_secs(3);
/// kube's default watch cache size is dynamic; this many events per resource keep a
/// minute of a busy resource's history for watches to resume from.
pub const DEFAULT_WINDOW: usize = 10_000;

/// The caches by resource prefix.
type Cachers = BTreeMap<String, Arc<Cacher>>;

/// The cache over one store.
pub struct CachedStore {
    inner: Arc<dyn Store>,
    /// The caches by resource prefix, swapped whole when the served resources change.
    cachers: RwLock<Arc<Cachers>>,
    /// The prefixes cached from the start: only their caches gate readiness (kube's
    /// `/readyz` waits for the CRD informer's first sync, not for the storage of a
    /// definition added later).
    initial: BTreeSet<String>,
    /// Events each cache's window keeps.
    window: usize,
    metrics: CacheMetrics,
    /// The runtime the caches' loops run on (a change may come from any thread).
    runtime: tokio::runtime::Handle,
}

impl CachedStore {
    /// Caches the resources under `prefixes` (`(storage prefix, resource)`) and starts
    /// filling them on the current runtime (called within one); [`CachedStore::wait_ready`] tells when they have.
    pub fn start(
        inner: Arc<dyn Store>,
        prefixes: Vec<(String, crate::metrics::GroupResource)>,
        window: usize,
        metrics: CacheMetrics,
    ) -> Arc<CachedStore> {
        let initial = prefixes.iter().map(|(prefix, _)| prefix.clone()).collect();
        let cache = CachedStore {
            inner,
            cachers: RwLock::default(),
            initial,
            window,
            metrics,
            runtime: tokio::runtime::Handle::current(),
        };
        cache.follow(prefixes);
        Arc::new(cache)
    }

    /// Caches exactly the resources under `prefixes`: those already cached keep their
    /// cache, new ones start filling, the others are stopped (their watches end).
    pub fn follow(&self, prefixes: Vec<(String, crate::metrics::GroupResource)>) {
        let mut cachers = self.cachers.write().unwrap_or_else(|e| e.into_inner());
        let mut next = Cachers::new();
        for (prefix, resource) in prefixes {
            let cacher = match cachers.get(&prefix) {
                Some(cacher) => cacher.clone(),
                None => self.spawn(prefix.clone(), resource),
            };
            next.insert(prefix, cacher);
        }
        for (prefix, cacher) in cachers.iter() {
            if !next.contains_key(prefix) {
                cacher.stop();
            }
        }
        *cachers = Arc::new(next);
    }

    /// A new cache of the resource under `prefix`, filling.
    fn spawn(&self, prefix: String, resource: crate::metrics::GroupResource) -> Arc<Cacher> {
        let stored = self.metrics.stored_objects.clone();
        let cacher = Cacher::new(self.inner.clone(), prefix, resource, self.window, stored);
        self.runtime.spawn(Cacher::run(Arc::downgrade(&cacher)));
        cacher
    }

    /// The caches now.
    fn cachers(&self) -> Arc<Cachers> {
        self.cachers
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The prefixes cached now.
    pub fn prefixes(&self) -> Vec<String> {
        self.cachers().keys().cloned().collect()
    }

    /// The store below the cache (reads there see what is stored now, e.g. a value's
    /// current staleness under encryption).
    pub fn uncached(&self) -> &Arc<dyn Store> {
        &self.inner
    }

    /// Whether every cache of the start has listed and follows the store.
    pub fn ready(&self) -> bool {
        self.gating().iter().all(|c| c.ready())
    }

    /// The caches readiness waits for: those of the start still served.
    fn gating(&self) -> Vec<Arc<Cacher>> {
        let cachers = self.cachers();
        (cachers.iter())
            .filter(|(prefix, _)| self.initial.contains(*prefix))
            .map(|(_, c)| c.clone())
            .collect()
    }

    /// Waits until every cache of the start is ready or `within` passes; true when ready.
    pub async fn wait_ready(&self, within: Duration) -> bool {
        let gating = self.gating();
        let all = async {
            for cacher in &gating {
                cacher.wait_ready().await;
            }
        };
        match tokio::time::Instant::now().checked_add(within) {
            Some(deadline) => tokio::time::timeout_at(deadline, all).await.is_ok(),
            None => {
                all.await;
                true
            }
        }
    }

    /// How many objects the caches hold.
    /// Waits until every cache has listed, or failed to on a value no encryption
    /// provider reads (start-up's stored-version check then reads the store, and logs).
    pub async fn wait_listed(&self) {
        for cacher in self.cachers().values() {
            cacher.wait_listed().await;
        }
    }

    pub fn object_count(&self) -> usize {
        self.cachers().values().map(|c| c.object_count()).sum()
    }

    /// Objects per stored version of the resource `plural.group`; `None` for a resource
    /// not cached, or while its cache is listing.
    pub fn stored_versions(&self, resource: &str) -> Option<crate::storage::versions::Counts> {
        let cachers = self.cachers();
        let cacher = cachers.values().find(|c| &*c.resource == resource)?;
        cacher.ready().then(|| cacher.stored.counts())
    }

    /// The cache of the resource `key` (an object key or a collection prefix) is under.
    fn cacher(&self, key: &str) -> Option<Arc<Cacher>> {
        let cachers = self.cachers.read().unwrap_or_else(|e| e.into_inner());
        let (prefix, cacher) = cachers
            .range::<str, _>((std::ops::Bound::Unbounded, std::ops::Bound::Included(key)))
            .next_back()?;
        key.starts_with(prefix.as_str()).then(|| cacher.clone())
    }

    fn counter(family: &PerResource, cacher: &Cacher) -> Counter {
        family
            .get_or_create(&crate::metrics::ResourceLabels {
                resource: cacher.resource.clone(),
            })
            .clone()
    }

    /// A read the cache could not answer in time goes to the store, counted.
    fn fell_back(&self, cacher: &Cacher) {
        Self::counter(&self.metrics.fallbacks, cacher).inc();
    }
}

#[async_trait::async_trait]
impl Store for CachedStore {
    async fn get(&self, key: &str) -> Result<Option<KeyValue>> {
        let Some(cacher) = self
            .cacher(key)
            .filter(|_| self.inner.progress_on_request())
        else {
            return self.inner.get(key).await;
        };
        let target = self.inner.current_revision().await?;
        match read::get(&cacher, key, target, CONSISTENT_WAIT).await {
            Some(found) => Ok(found),
            None => {
                self.fell_back(&cacher);
                self.inner.get(key).await
            }
        }
    }

    async fn get_not_older_than(
        &self,
        key: &str,
        not_older_than: Revision,
    ) -> Result<Option<KeyValue>> {
        let Some(cacher) = self.cacher(key) else {
            return self.inner.get(key).await;
        };
        match read::get(&cacher, key, not_older_than, CONSISTENT_WAIT).await {
            Some(found) => Ok(found),
            None => {
                self.fell_back(&cacher);
                self.inner.get(key).await
            }
        }
    }

    async fn range(&self, req: RangeRequest) -> Result<RangeResult> {
        let Some(cacher) = self.cacher(&req.prefix) else {
            return self.inner.range(req).await;
        };
        if req.revision > 0 {
            return match read::range_at(&cacher, &req) {
                Some(result) => Ok(result),
                None => self.inner.range(req).await,
            };
        }
        let target = match req.not_older_than {
            Some(revision) => revision,
            None if !self.inner.progress_on_request() => return self.inner.range(req).await,
            None => self.inner.current_revision().await?,
        };
        match read::range_fresh(&cacher, &req, target, CONSISTENT_WAIT).await {
            Some(result) => Ok(result),
            None => {
                self.fell_back(&cacher);
                self.inner.range(req).await
            }
        }
    }

    async fn create(&self, key: &str, value: Vec<u8>) -> Result<Revision> {
        self.inner.create(key, value).await
    }

    async fn update(&self, key: &str, value: Vec<u8>, expected: Revision) -> Result<Revision> {
        self.inner.update(key, value, expected).await
    }

    async fn delete(&self, key: &str, expected: Revision) -> Result<KeyValue> {
        self.inner.delete(key, expected).await
    }

    async fn watch(
        &self,
        prefix: &str,
        after: Revision,
        progress_every: Duration,
    ) -> Result<WatchStream> {
        if let Some(cacher) = self.cacher(prefix) {
            // "From now" is the store's now: events up to it are skipped even when the
            // cache has not applied them yet, so there is nothing to wait for.
            let start = match after {
                0 => self.inner.current_revision().await?,
                after => after,
            };
            let counter = self
                .metrics
                .terminated
                .get_or_create(&cacher.labels)
                .clone();
            if let Some(opened) = watch::open(&cacher, prefix, start, progress_every, counter) {
                return opened;
            }
        }
        self.inner.watch(prefix, after, progress_every).await
    }

    async fn current_revision(&self) -> Result<Revision> {
        self.inner.current_revision().await
    }

    async fn compact(&self, revision: Revision) -> Result<()> {
        self.inner.compact(revision).await?;
        for cacher in self.cachers().values() {
            cacher.compacted(revision);
        }
        Ok(())
    }

    async fn compacted_revision(&self) -> Result<Revision> {
        self.inner.compacted_revision().await
    }

    async fn check(&self) -> Result<()> {
        self.inner.check().await
    }
}
