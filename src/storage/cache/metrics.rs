//! What the watch cache counts, registered into the process's metrics at start-up:
//! reads the store answered because the cache did not catch up in time, and watchers
//! ended for not keeping up (a series the watch handler's queue counts into as well),
//! and the objects stored at each version of each resource.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;

use crate::metrics::{GroupResource, Metrics, ResourceLabels};

/// A counter per resource.
pub type PerResource = Family<ResourceLabels, Counter>;

/// One stored version of one resource (`plural.group`, `v1`).
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct StoredLabels {
    pub resource: std::sync::Arc<str>,
    pub version: std::sync::Arc<str>,
}

/// Objects per resource and stored version.
pub type StoredObjects = Family<StoredLabels, Gauge>;

/// What the cache counts (unregistered by default, as tests use it).
#[derive(Clone, Default)]
pub struct CacheMetrics {
    /// Watchers ended for not keeping up (kube's `apiserver_terminated_watchers_total`,
    /// by group and resource).
    pub terminated: Family<GroupResource, Counter>,
    /// Reads the store answered because the cache did not catch up in time.
    pub fallbacks: PerResource,
    /// Objects stored at each version (`crd_apiserver_stored_objects`): a series per
    /// version that has objects.
    pub stored_objects: StoredObjects,
}

impl CacheMetrics {
    /// The cache's counters, served on `/metrics` through `metrics`.
    pub fn register(metrics: &mut Metrics) -> CacheMetrics {
        let cache = CacheMetrics {
            terminated: metrics.terminated_watchers_family(),
            fallbacks: PerResource::default(),
            stored_objects: StoredObjects::default(),
        };
        metrics.register(
            "crd_apiserver_watch_cache_fallbacks",
            "Reads the store answered because the watch cache did not catch up in time, by resource",
            cache.fallbacks.clone(),
        );
        metrics.register(
            "crd_apiserver_stored_objects",
            "Objects stored at each version (the apiVersion of the stored bytes), by resource and version",
            cache.stored_objects.clone(),
        );
        cache
    }
}
