//! The store stack the handlers read and write through, bottom up: the backend (etcd or
//! the embedded store), encryption at rest, kube's etcd3 spans when tracing, the watch
//! cache; and the compaction schedule.

use std::sync::Arc;
use std::time::Duration;

use super::run::StartError;
use crate::config::ServeFlags;
use crate::config::validate::{Config, StoreChoice};
use crate::crd::catalog::Catalog;
use crate::storage::Store;
use crate::storage::cache::{CacheMetrics, CachedStore};
use crate::storage::embedded::EmbeddedStore;
use crate::storage::encryption::metrics::TransformationMetrics;
use crate::storage::encryption::reload::{Build, Reload};
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
/// the file is polled and a valid new configuration swapped in.
pub(super) async fn encrypting(
    config: &Config,
    catalog: &Arc<Catalog>,
    keys: &KeyLayout,
    direct: Arc<dyn Store>,
    metrics: (TransformationMetrics, ReloadMetrics),
) -> Result<(Arc<dyn Store>, bool), StartError> {
    let Some(encryption) = &config.encryption else {
        return Ok((direct, false));
    };
    let (transformation, reload_metrics) = metrics;
    let plan = Plan::new(encryption).map_err(StartError::Encryption)?;
    let made = plan
        .connect(transformation.clone())
        .await
        .map_err(StartError::Encryption)?;
    let build = per_resource(catalog.clone(), keys.clone());
    let resources = build(&made);
    let names: Vec<_> = resources.iter().map(|(prefix, _)| prefix.clone()).collect();
    tracing::info!(resources = ?names, "encryption at rest");
    reload_metrics.config_info(&encryption.content_hash);
    let transformers = Transformers::new(resources);
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
            transformers: transformers.clone(),
            build,
            transformation,
            metrics: reload_metrics,
        };
        reload.spawn(encryption.content_hash.clone());
    }
    Ok((Arc::new(EncryptingStore::new(direct, transformers)), true))
}

/// Each served resource's storage prefix and the providers a configuration gives it.
fn per_resource(catalog: Arc<Catalog>, keys: KeyLayout) -> Build {
    Arc::new(move |made: &Encryption| {
        catalog
            .resources()
            .iter()
            .filter_map(|r| {
                let providers = made.for_resource(&r.group, &r.plural)?;
                Some((keys.resource_prefix(&r.group, &r.plural), providers))
            })
            .collect()
    })
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
