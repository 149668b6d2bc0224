//! Start-up: flags → validated configuration → CRD catalog → store → TLS → authn → serving state → listener, in
//! that order, so that a bad definition fails before anything is opened.

use std::sync::Arc;

use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;

use crate::admission::metrics::AdmissionMetrics;
use crate::admission::policy::generic::params::served::OwnStorage;
use crate::authn::{self, Authenticator};
use crate::authz::Authorizer;
use crate::config::ServeFlags;
use crate::config::transport::Transport;
use crate::config::validate::{Config, ConfigErrors, Serving};
use crate::conversion::ConversionMetrics;
use crate::conversion::declarative::DeclarativeMetrics;
use crate::crd::live::Definitions;
use crate::handlers::AppState;
use crate::handlers::state::Lifecycle;
use crate::inflight::InFlight;
use crate::metrics::Metrics;
use crate::register::reconcile::ReconcileMetrics;
use crate::server::chain::Chain;
use crate::server::definitions::{converters, load_definitions};
use crate::server::serving::ServingFiles;
use crate::server::stores::{
    compact_periodically, encrypting, follow_catalog, open_store, traced, watch_cache,
};
use crate::server::{accept, admission_chain, offloading, pki, registration, shutdown, tls};
use crate::storage::cache::CacheMetrics;
use crate::storage::encryption::metrics::TransformationMetrics;
use crate::storage::encryption::reload_metrics::ReloadMetrics;
use crate::storage::key::KeyLayout;
use crate::storage::traced::Layer;
use crate::telemetry::Tracer;

/// Why the server could not start; `exit_code` follows sysexits (64 = bad input).
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("invalid CustomResourceDefinitions:\n{0}")]
    Definitions(String),
    #[error("invalid configuration:\n{0}")]
    Config(#[from] ConfigErrors),
    #[error("setting up delegated authentication or authorization: {0}")]
    Delegation(String),
    /// `--register-apiservices` or `--serving-ca-secret` could not start.
    #[error("{0}")]
    Register(String),
    #[error(transparent)]
    Tls(#[from] tls::TlsError),
    #[error(transparent)]
    Pki(#[from] pki::PkiError),
    #[error("{0}")]
    Unmigrated(String),
    /// The audit policy file or a backend could not be set up (kube's texts).
    #[error("{0}")]
    Audit(String),
    #[error("opening the store: {0}")]
    Store(#[from] crate::storage::StorageError),
    #[error("--encryption-provider-config: {0}")]
    Encryption(String),
    #[error("setting up tracing: {0}")]
    Tracing(String),
    #[error("listening on {addr}: {source}")]
    Listen {
        addr: String,
        source: std::io::Error,
    },
}

impl StartError {
    pub fn exit_code(&self) -> i32 {
        match self {
            StartError::Definitions(_)
            | StartError::Config(_)
            | StartError::Unmigrated(_)
            | StartError::Audit(_)
            | StartError::Tracing(_) => 64,
            _ => 1,
        }
    }
}

/// Serving TLS from the configured pair, a self-signed pair in `--cert-dir`, or the pair
/// `--serving-ca-secret` keeps (`registration` wrote it), and the SNI pairs; the
/// returned follower keeps the pairs in step with their files.
fn acceptor(
    serving: &Serving,
    transport: &Transport,
    registration: &registration::Prepared,
) -> Result<(TlsAcceptor, ServingFiles), StartError> {
    let (cert, key) = match serving {
        Serving::Files { cert, key } => (cert.clone(), key.clone()),
        Serving::SelfSigned { cert_dir } => pki::self_signed_serving(cert_dir)?,
        Serving::CaSecret { .. } => registration.serving_pair().ok_or_else(|| {
            StartError::Register("--serving-ca-secret: no serving pair was prepared".into())
        })?,
    };
    let (files, serving) = ServingFiles::load(cert, key, &transport.sni)?;
    let config = tls::server_config(serving, &transport.tls)?;
    Ok((TlsAcceptor::from(Arc::new(config)), files))
}

/// The delegated authenticator and authorizer; the ConfigMap watcher and the CA file
/// reloader are spawned here so CA rotations apply while serving.
async fn authenticator(
    flags: &ServeFlags,
    metrics: &Arc<Metrics>,
) -> Result<(Authenticator, Authorizer), StartError> {
    let (authenticator, followers) = authn::setup::authenticator(&flags.auth, metrics.clone())
        .await
        .map_err(|e| StartError::Delegation(e.to_string()))?;
    followers.spawn();
    let authorizer = Authorizer::delegated(&flags.auth, metrics.clone())
        .await
        .map_err(|e| StartError::Delegation(e.to_string()))?;
    Ok((authenticator, authorizer))
}

/// What a server that listens tells its starter.
pub struct Listening {
    pub addr: std::net::SocketAddr,
    /// The served definitions (offload serves the host's through them).
    pub definitions: Arc<Definitions>,
    /// The handlers' state (the restore path writes through it).
    pub state: Arc<AppState>,
    /// The APIServices registration keeps (`--register-apiservices`; offload's switch
    /// writes the same).
    pub desired: Option<crate::register::desired::Desired>,
}

/// Runs the server until SIGTERM/SIGINT; `on_listening` learns the bound address first.
pub async fn run(
    flags: ServeFlags,
    on_listening: impl FnOnce(std::net::SocketAddr),
) -> Result<(), StartError> {
    run_with(flags, |listening| on_listening(listening.addr)).await
}

/// [`run`], `on_listening` given the live definitions and the state too (in-process
/// tests drive the catalog through them).
pub async fn run_with(
    flags: ServeFlags,
    on_listening: impl FnOnce(Listening),
) -> Result<(), StartError> {
    tls::install_crypto_provider();
    // Every flag problem is reported at once, before anything is read or opened.
    let config = flags.validate()?;
    crate::server::open_files::raise_limit(config.transport.max_connections);
    let flags = &config.flags;
    let mut metrics = Metrics::new();
    let converters = converters(
        &config,
        ConversionMetrics::register(&mut metrics),
        DeclarativeMetrics::register(&mut metrics),
    );
    let definitions = Arc::new(load_definitions(&flags.crd_dir, Arc::new(converters))?);
    let catalog = definitions.current();
    let registration = registration::prepare(&config).await?;
    let (acceptor, serving_files) = acceptor(&config.serving, &config.transport, &registration)?;
    tokio::spawn(serving_files.run());
    let cache_metrics = CacheMetrics::register(&mut metrics);
    let transformation_metrics = (
        TransformationMetrics::register(&mut metrics),
        ReloadMetrics::register(&mut metrics),
    );
    let admission_metrics = AdmissionMetrics::register(&mut metrics);
    let audit_metrics = crate::audit::backend::AuditMetrics::register(&mut metrics);
    let reconcile_metrics = ReconcileMetrics::register(&mut metrics);
    let offload_metrics = crate::offload::metrics::OffloadMetrics::register(&mut metrics);
    // kube registers them at init whatever the configuration; series appear with a provider.
    crate::storage::encryption::kms::register_metrics(&mut metrics);
    let metrics = Arc::new(metrics);
    let auditor = crate::audit::Auditor::from_settings(&config.audit, audit_metrics)
        .await
        .map_err(StartError::Audit)?;
    let (authenticator, authorizer) = authenticator(flags, &metrics).await?;
    let authorizer = Arc::new(authorizer);
    let tracer = tracer(&config)?;
    let direct = open_store(&config.store).await?;
    let keys = KeyLayout::new(&flags.etcd_prefix);
    let (direct, coverage) =
        encrypting(&config, &catalog, &keys, direct, transformation_metrics).await?;
    let encrypted = coverage.is_some();
    // kube's etcd3 spans cover the value's transformation: traced above encryption.
    let direct = traced(direct, Layer::Backend, &tracer, &flags.etcd_prefix);
    let (store, cache) = watch_cache(&catalog, flags, direct, cache_metrics);
    follow_catalog(&definitions, cache.clone(), coverage, keys.clone());
    let store = match cache {
        Some(_) => traced(store, Layer::Cache, &tracer, &flags.etcd_prefix),
        None => store,
    };
    let sources = crate::server::stored::Sources {
        catalog: catalog.clone(),
        cache: cache.clone(),
        store: store.clone(),
        keys: keys.clone(),
    };
    crate::server::stored::check(sources, flags.allow_unmigrated_versions).await?;
    let served = definitions.clone();
    let own = OwnStorage {
        catalog: Arc::new(move || served.current()),
        store: store.clone(),
        keys: keys.clone(),
    };
    let admission = admission_chain::admission_chain(
        &config,
        &authorizer,
        admission_metrics,
        own,
        &definitions,
    )
    .await?;
    let inflight = InFlight::new(
        flags.limits.max_requests_inflight,
        flags.limits.max_mutating_requests_inflight,
        &metrics,
    );
    let state = Arc::new(AppState {
        definitions: definitions.clone(),
        store: store.clone(),
        cache,
        keys,
        encrypted,
        authorizer: authorizer.clone(),
        metrics,
        lifecycle: Lifecycle::default(),
        bookmark_interval: flags.bookmark_interval,
        max_object_size: flags.max_object_size,
        inflight,
        watches: crate::watch::limit::WatchLimit::new(flags.limits.max_watches_per_user),
        storage_probe: Default::default(),
        admission,
    });
    tracing::debug!(plugins = ?state.admission.names(), "admission chain");
    let chain = Arc::new(Chain {
        authenticator,
        authorizer,
        request_timeout: flags.request_timeout,
        handlers: state.clone(),
        audit: auditor.clone(),
        tracer: tracer.clone(),
    });
    if !flags.compaction_interval.is_zero() {
        tokio::spawn(compact_periodically(store, flags.compaction_interval));
    }
    let addr = flags.listen_addr();
    let listener = TcpListener::bind(addr)
        .await
        .map_err(|source| StartError::Listen {
            addr: addr.to_string(),
            source,
        })?;
    let bound = listener.local_addr().map_err(|source| StartError::Listen {
        addr: addr.to_string(),
        source,
    })?;
    tracing::info!(address = %bound, resources = state.catalog().resources().len(), "serving");
    // Registration follows the live catalog: served group/versions come and go with it.
    let desired = registration.desired.clone();
    registration.start(definitions.subscribe(), reconcile_metrics);
    offloading::start(&config, state.clone(), desired.clone(), offload_metrics);
    on_listening(Listening {
        desired,
        addr: bound,
        definitions,
        state: state.clone(),
    });
    let stop = shutdown::begin(state.clone(), flags.limits.shutdown_delay);
    let limits = accept::Limits {
        max_connections: config.transport.max_connections,
        h2_max_streams: config.transport.h2_max_streams,
        handshake_timeout: flags.limits.handshake_timeout,
        idle_timeout: flags.limits.idle_timeout,
        drain_timeout: flags.shutdown_timeout,
    };
    accept::serve(listener, acceptor, chain, stop, limits).await;
    // kube's audit backends are shut down once the server has stopped serving: what is
    // buffered is written.
    if let Some(auditor) = auditor {
        auditor.shutdown().await;
    }
    tracer.shutdown().await;
    Ok(())
}

/// `--tracing-config-file`'s exporting tracer, or none.
fn tracer(config: &Config) -> Result<Tracer, StartError> {
    let Some(settings) = &config.tracing else {
        return Ok(Tracer::none());
    };
    let tracer = Tracer::start(settings).map_err(StartError::Tracing)?;
    tracing::info!(
        endpoint = settings
            .endpoint
            .as_deref()
            .unwrap_or(crate::telemetry::config::DEFAULT_ENDPOINT),
        sampling_rate_per_million = settings.sampling_rate_per_million.unwrap_or(0),
        "tracing: exporting spans over OTLP"
    );
    Ok(tracer)
}
