//! What the watch cache counts, registered into the process's metrics at start-up:
//! reads the store answered because the cache did not catch up in time, and watchers
//! ended for not keeping up (a series the watch handler's queue counts into as well).

use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;

use crate::metrics::{GroupResource, Metrics, ResourceLabels};

/// A counter per resource.
pub type PerResource = Family<ResourceLabels, Counter>;

/// What the cache counts (unregistered by default, as tests use it).
#[derive(Clone, Default)]
pub struct CacheMetrics {
    /// Watchers ended for not keeping up (kube's `apiserver_terminated_watchers_total`,
    /// by group and resource).
    pub terminated: Family<GroupResource, Counter>,
    /// Reads the store answered because the cache did not catch up in time.
    pub fallbacks: PerResource,
}

impl CacheMetrics {
    /// The cache's counters, served on `/metrics` through `metrics`.
    pub fn register(metrics: &mut Metrics) -> CacheMetrics {
        let cache = CacheMetrics {
            terminated: metrics.terminated_watchers_family(),
            fallbacks: PerResource::default(),
        };
        metrics.register(
            "crd_apiserver_watch_cache_fallbacks",
            "Reads the store answered because the watch cache did not catch up in time, by resource",
            cache.fallbacks.clone(),
        );
        cache
    }
}
