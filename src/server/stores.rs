//! The store stack the handlers read and write through, bottom up: the backend (etcd or
//! the embedded store), encryption at rest, kube's etcd3 spans when tracing, the watch
//! cache; and the compaction schedule. Encryption and the cache cover the resources the
//! catalog serves, and follow it when it changes ([`follow_catalog`]).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::run::StartError;
use crate::config::ServeFlags;
use crate::config::validate::{Config, StoreChoice};
use crate::crd::catalog::Catalog;
use crate::crd::live::Definitions;
use crate::storage::Store;
use crate::storage::cache::{CacheMetrics, CachedStore};
use crate::storage::embedded::EmbeddedStore;
use crate::storage::encryption::metrics::TransformationMetrics;
use crate::storage::encryption::reload::Reload;
use crate::storage::encryption::reload_metrics::ReloadMetrics;
use crate::storage::encryption::resources::{Encryption, Plan};
use crate::storage::encryption::store::{EncryptingStore, Transformers};
use crate::storage::etcd::EtcdStore;
use crate::storage::key::KeyLayout;
use crate::storage::traced::{Layer, Traced};
use crate::telemetry::Tracer;

/// The configured store: etcd, or the embedded store.
pub(super) async fn open_store(choice: &StoreChoice) -> Result<Arc<dyn Store>, StartError> {
    let store: Arc<dyn Store> = match choice {
        StoreChoice::Embedded { data_dir } => EmbeddedStore::open(data_dir)?,
        StoreChoice::Etcd(config) => EtcdStore::connect(config.clone()).await?,
    };
    Ok(store)
}

/// `direct` with the resources `--encryption-provider-config` names encrypted at rest
/// (kube's transformers, below the watch cache) and the others read with kube's identity
/// check; `direct` itself without the flag. With `--encryption-provider-config-automatic-reload`
/// the file is polled and a valid new configuration swapped in. The coverage returned
/// follows the served resources.
pub(super) async fn encrypting(
    config: &Config,
    catalog: &Catalog,
    keys: &KeyLayout,
    direct: Arc<dyn Store>,
    metrics: (TransformationMetrics, ReloadMetrics),
) -> Result<(Arc<dyn Store>, Option<Arc<Coverage>>), StartError> {
    let Some(encryption) = &config.encryption else {
        return Ok((direct, None));
    };
    let (transformation, reload_metrics) = metrics;
    let plan = Plan::new(encryption).map_err(StartError::Encryption)?;
    let made = plan
        .connect(transformation.clone())
        .await
        .map_err(StartError::Encryption)?;
    let transformers = Transformers::new([]);
    let coverage = Arc::new(Coverage {
        keys: keys.clone(),
        transformers: transformers.clone(),
        state: Mutex::new(Covered {
            made: Arc::new(made),
            resources: served(catalog),
        }),
    });
    coverage.update(|_| {});
    tracing::info!(resources = ?coverage.prefixes(), "encryption at rest");
    reload_metrics.config_info(&encryption.content_hash);
    let flags = &config.flags.encryption;
    if let (true, Some(path)) = (
        flags.encryption_provider_config_automatic_reload,
        &flags.encryption_provider_config,
    ) {
        let reload = Reload {
            path: path.clone(),
            every: flags
                .encryption_provider_config_automatic_reload_interval
                .max(Duration::from_millis(100)),
            apply: {
                let coverage = coverage.clone();
                Arc::new(move |made| coverage.update(|c| c.made = made))
            },
            transformation,
            metrics: reload_metrics,
        };
        reload.spawn(encryption.content_hash.clone());
    }
    let store = Arc::new(EncryptingStore::new(direct, transformers));
    Ok((store, Some(coverage)))
}

/// Encryption at rest: the configuration in use over the resources it covers.
pub(super) struct Coverage {
    keys: KeyLayout,
    transformers: Arc<Transformers>,
    state: Mutex<Covered>,
}

/// The configuration's providers and the resources (group, plural) they apply to.
struct Covered {
    made: Arc<Encryption>,
    resources: Vec<(String, String)>,
}

impl Coverage {
    /// Changes the configuration or the resources, and swaps the transformers (under the
    /// lock: a reload and a catalog change apply in order).
    fn update(&self, change: impl FnOnce(&mut Covered)) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        change(&mut state);
        let made = state.made.clone();
        let per_resource = (state.resources.iter()).filter_map(|(group, plural)| {
            let providers = made.for_resource(group, plural)?;
            Some((self.keys.resource_prefix(group, plural), providers))
        });
        self.transformers.set(per_resource.collect::<Vec<_>>());
    }

    /// Covers the resources of `next` and of `previous` (requests still served with the
    /// previous catalog read and write through the same providers; a resource no longer
    /// served keeps them until the next change).
    pub(super) fn follow(&self, next: &Catalog, previous: &Catalog) {
        let mut resources = served(next);
        resources.extend(served(previous));
        resources.sort();
        resources.dedup();
        self.update(|c| c.resources = resources);
    }

    /// The storage prefixes encrypted now.
    pub(super) fn prefixes(&self) -> Vec<String> {
        let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        (state.resources.iter())
            .filter(|(group, plural)| state.made.for_resource(group, plural).is_some())
            .map(|(group, plural)| self.keys.resource_prefix(group, plural))
            .collect()
    }
}

/// Every served resource's group and plural.
fn served(catalog: &Catalog) -> Vec<(String, String)> {
    (catalog.resources().iter())
        .map(|r| (r.group.to_string(), r.plural.to_string()))
        .collect()
}

/// The watch cache and encryption follow every later change of the served definitions,
/// before it is served: a request never reaches a resource they do not cover.
pub(super) fn follow_catalog(
    definitions: &Definitions,
    cache: Option<Arc<CachedStore>>,
    coverage: Option<Arc<Coverage>>,
    keys: KeyLayout,
) {
    definitions.on_change(Arc::new(move |next: &Catalog, previous: &Catalog| {
        tracing::info!(
            resources = next.resources().len(),
            "served definitions changed"
        );
        if let Some(cache) = &cache {
            cache.follow(cached(next, &keys));
        }
        if let Some(coverage) = &coverage {
            coverage.follow(next, previous);
        }
    }));
}

/// Each served resource's storage prefix and metric labels, as the watch cache keeps them.
fn cached(catalog: &Catalog, keys: &KeyLayout) -> Vec<(String, crate::metrics::GroupResource)> {
    let mut prefixes: Vec<_> = catalog
        .resources()
        .iter()
        .map(|r| {
            let prefix = keys.resource_prefix(&r.group, &r.plural);
            let labels = crate::metrics::GroupResource {
                group: r.labels.group.clone(),
                resource: r.labels.plural.clone(),
            };
            (prefix, labels)
        })
        .collect();
    prefixes.dedup();
    prefixes
}

/// The watch cache over `direct` for every served resource (unless disabled); logs when
/// it is filled, the moment `/readyz` can turn green.
pub(super) fn watch_cache(
    catalog: &Catalog,
    flags: &ServeFlags,
    direct: Arc<dyn Store>,
    metrics: CacheMetrics,
) -> (Arc<dyn Store>, Option<Arc<CachedStore>>) {
    if flags.watch_cache_size == 0 {
        return (direct, None);
    }
    let keys = KeyLayout::new(&flags.etcd_prefix);
    let prefixes = cached(catalog, &keys);
    let cache = CachedStore::start(direct, prefixes, flags.watch_cache_size, metrics);
    let filling = cache.clone();
    tokio::spawn(async move {
        let started = std::time::Instant::now();
        filling.wait_ready(Duration::MAX).await;
        tracing::info!(
            elapsed_ms = started.elapsed().as_millis() as u64,
            since_process_start_ms = crate::server::process_uptime().as_millis() as u64,
            objects = filling.object_count(),
            "watch cache filled: ready"
        );
    });
    (cache.clone(), Some(cache))
}

/// `store` with spans of `layer`'s names when tracing.
pub(super) fn traced(
    store: Arc<dyn Store>,
    layer: Layer,
    tracer: &Tracer,
    prefix: &str,
) -> Arc<dyn Store> {
    match tracer.is_exporting() {
        true => Traced::wrap(store, layer, prefix),
        false => store,
    }
}

/// kube's compaction schedule: every interval, compact to the revision seen one interval
/// earlier, so watchers always have at least one interval of history to resume from.
pub(super) async fn compact_periodically(store: Arc<dyn Store>, every: Duration) {
    let mut previous: Option<i64> = None;
    let mut ticker = tokio::time::interval(every);
    loop {
        ticker.tick().await;
        if let Some(rev) = previous.filter(|r| *r > 0)
            && let Err(e) = store.compact(rev).await
        {
            tracing::debug!(revision = rev, error = %e, "compaction skipped");
        }
        previous = store.current_revision().await.ok();
    }
}
