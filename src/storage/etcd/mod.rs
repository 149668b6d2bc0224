//! Storage stage, etcd backend: the [`Store`] contract on an etcd v3 cluster, as kube's
//! etcd3 store does it (`k8s.io/apiserver/pkg/storage/etcd3`).
//!
//! # Layout
//!
//! - `connect`: the gRPC client (TLS with client certificates, keepalive, fail-fast on a
//!   member without leader) and which server versions answer progress requests safely.
//! - `kv`: get and range (limit, fixed read revision), and create / update / delete as
//!   transactions comparing `create_revision` / `mod_revision`.
//! - `compaction`: compact, and finding the compacted revision etcd does not report.
//! - `gate`: the current revision, one fetch shared by the callers that arrived before it
//!   started (consistent reads ask it for every request).
//! - `watch`: watch streams that survive etcd restarts.
//! - `errors`: every etcd error and timeout into one [`StorageError`].
//!
//! # Behaviour
//!
//! - Keys are used as given (callers include their prefix, e.g. `/registry`).
//! - Every call is bounded by `request_timeout` (→ `Timeout`); an unreachable etcd fails
//!   at once with `Unavailable` (connection refused, no leader). `check` uses
//!   [`CHECK_TIMEOUT`] at most, like kube's `--etcd-healthcheck-timeout`.
//! - Watch progress: etcd sends a progress notification (in order with events, only for a
//!   watcher that caught up) when asked, or periodically (`progress_notify`; every 10
//!   minutes unless the server sets `--experimental-watch-progress-notify-interval`). On
//!   etcd >= 3.4.31 / 3.5.13 a watch idle for `progress_every` asks for one and yields
//!   `Progress` at its revision. Older servers may answer a request before queued events
//!   (etcd-io/etcd#15220), so, as kube does, they are never asked: an idle watch yields
//!   `Progress` at the last revision known complete, which their periodic notifications
//!   move forward.
//! - The compacted revision: see the `compaction` module.

mod compaction;
mod connect;
mod errors;
mod gate;
mod kv;
mod watch;

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicI64;
use std::time::Duration;

use etcd_client::{KvClient, WatchClient};

use self::errors::call_plain;
use self::gate::RevisionGate;
use super::{
    KeyValue, RangeRequest, RangeResult, Result, Revision, StorageError, Store, WatchStream,
};

/// How long connecting to etcd may take (kube's etcd client dial timeout).
pub const DEFAULT_DIAL_TIMEOUT: Duration = Duration::from_secs(20);
/// How long one storage call may take (kube's `--request-timeout`).
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(60);
/// The longest a health check waits (kube's `--etcd-healthcheck-timeout`).
pub const CHECK_TIMEOUT: Duration = Duration::from_secs(2);
/// The largest response accepted (kube's etcd client allows `math.MaxInt32`).
const MAX_MESSAGE_SIZE: usize = i32::MAX as usize;

/// How to reach etcd.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EtcdConfig {
    /// Client URLs, `https://host:port` or `http://host:port`.
    pub endpoints: Vec<String>,
    /// CA bundle etcd's serving certificate must chain to.
    pub ca_file: Option<PathBuf>,
    /// Client certificate and key (PEM), both or neither.
    pub cert_file: Option<PathBuf>,
    pub key_file: Option<PathBuf>,
    /// Bound on connecting (at start-up and when a watch reconnects).
    pub dial_timeout: Duration,
    /// Bound on every other call.
    pub request_timeout: Duration,
}

impl EtcdConfig {
    /// Plain-text endpoints with the default timeouts.
    pub fn new(endpoints: Vec<String>) -> EtcdConfig {
        EtcdConfig {
            endpoints,
            ca_file: None,
            cert_file: None,
            key_file: None,
            dial_timeout: DEFAULT_DIAL_TIMEOUT,
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
        }
    }
}

/// What the store and its watch streams share.
struct Shared {
    kv: KvClient,
    watch: WatchClient,
    request_timeout: Duration,
    dial_timeout: Duration,
    /// The server answers progress requests only after the events before them.
    synchronised_progress: bool,
    /// A lower bound of etcd's compacted revision (see `compaction`).
    compacted: AtomicI64,
}

/// The etcd [`Store`]. Dropping it ends its watch streams.
pub struct EtcdStore {
    shared: Arc<Shared>,
    /// Shares one revision fetch among the callers of `current_revision`.
    gate: RevisionGate,
    /// Dropped with the store; watch streams wait on it.
    closed: tokio::sync::watch::Sender<()>,
    endpoints: Vec<String>,
}

impl EtcdStore {
    /// Connects and checks that etcd answers within the dial timeout (`Unavailable` if not).
    pub async fn connect(config: EtcdConfig) -> Result<Arc<EtcdStore>> {
        let client = connect::client(&config).await?;
        let mut maintenance = client.maintenance_client();
        let status = call_plain(config.dial_timeout, "status", maintenance.status())
            .await
            .map_err(|err| unreachable_error(&config, err))?;
        let synchronised_progress = connect::synchronised_progress(status.version());
        tracing::info!(
            endpoints = %config.endpoints.join(","),
            version = status.version(),
            synchronised_progress,
            "connected to etcd"
        );
        let shared = Shared {
            kv: client
                .kv_client()
                .max_decoding_message_size(MAX_MESSAGE_SIZE),
            watch: client
                .watch_client()
                .max_decoding_message_size(MAX_MESSAGE_SIZE),
            request_timeout: config.request_timeout,
            dial_timeout: config.dial_timeout,
            synchronised_progress,
            compacted: AtomicI64::new(0),
        };
        let (closed, _) = tokio::sync::watch::channel(());
        Ok(Arc::new(EtcdStore {
            shared: Arc::new(shared),
            gate: RevisionGate::default(),
            closed,
            endpoints: config.endpoints,
        }))
    }
}

/// The error of a failed first contact, naming the endpoints (and what to check with TLS:
/// a refused client certificate often shows only as a closed connection).
fn unreachable_error(config: &EtcdConfig, err: StorageError) -> StorageError {
    let endpoints = config.endpoints.join(",");
    let tls = config.endpoints.iter().any(|e| e.starts_with("https://"));
    let hint = if tls && !err.to_string().contains("tcp connect error") {
        " (with TLS, check that etcd trusts the client certificate and that the CA file \
         signed etcd's serving certificate)"
    } else {
        ""
    };
    match err {
        StorageError::Backend(text) => {
            StorageError::Backend(format!("etcd at {endpoints} failed: {text}{hint}"))
        }
        StorageError::Unavailable(text) | StorageError::Timeout(text) => {
            StorageError::Unavailable(format!("cannot reach etcd at {endpoints}: {text}{hint}"))
        }
        other => other,
    }
}

#[async_trait::async_trait]
impl Store for EtcdStore {
    async fn get(&self, key: &str) -> Result<Option<KeyValue>> {
        self.shared.get(key).await
    }

    async fn range(&self, req: RangeRequest) -> Result<RangeResult> {
        self.shared.range(req).await
    }

    async fn create(&self, key: &str, value: Vec<u8>) -> Result<Revision> {
        self.shared.create(key, value).await
    }

    async fn update(&self, key: &str, value: Vec<u8>, expected: Revision) -> Result<Revision> {
        self.shared.update(key, value, expected).await
    }

    async fn delete(&self, key: &str, expected: Revision) -> Result<KeyValue> {
        self.shared.delete(key, expected).await
    }

    async fn watch(
        &self,
        prefix: &str,
        after: Revision,
        progress_every: Duration,
    ) -> Result<WatchStream> {
        let closed = self.closed.subscribe();
        watch::open(
            self.shared.clone(),
            closed,
            prefix,
            after,
            progress_every,
            None,
        )
        .await
    }

    async fn watch_with_progress(
        &self,
        prefix: &str,
        after: Revision,
        progress_every: Duration,
        progress: Arc<tokio::sync::Notify>,
    ) -> Result<WatchStream> {
        let closed = self.closed.subscribe();
        let requests = Some(progress);
        watch::open(
            self.shared.clone(),
            closed,
            prefix,
            after,
            progress_every,
            requests,
        )
        .await
    }

    fn progress_on_request(&self) -> bool {
        self.shared.synchronised_progress
    }

    async fn current_revision(&self) -> Result<Revision> {
        self.gate.current(|| self.shared.current_revision()).await
    }

    async fn compact(&self, revision: Revision) -> Result<()> {
        self.shared.compact(revision).await
    }

    async fn compacted_revision(&self) -> Result<Revision> {
        self.shared.compacted_revision().await
    }

    async fn check(&self) -> Result<()> {
        let timeout = CHECK_TIMEOUT.min(self.shared.request_timeout);
        let probe = self.shared.probe(0, "health check");
        match tokio::time::timeout(timeout, probe).await {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(failure)) => Err(failure.into_storage("health check")),
            Err(_) => Err(errors::timed_out("health check", timeout)),
        }
    }
}

impl std::fmt::Debug for EtcdStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EtcdStore")
            .field("endpoints", &self.endpoints)
            .finish_non_exhaustive()
    }
}
