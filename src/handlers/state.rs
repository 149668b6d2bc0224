//! Serving state shared by every request: the CRD catalog, the store, authn, authz,
//! metrics, request limits, the cached storage probe and lifecycle.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio::sync::watch;

use crate::crd::catalog::Catalog;
use crate::crd::live::Definitions;
use crate::error::ApiError;
use crate::handlers::health::StorageProbe;
use crate::inflight::InFlight;
use crate::metrics::Metrics;
use crate::request::info::RequestInfo;
use crate::request::user::UserInfo;
use crate::storage::Store;
use crate::storage::key::KeyLayout;

/// Readiness and the shutdown signal that ends watches.
pub struct Lifecycle {
    ready: AtomicBool,
    shutdown: watch::Sender<bool>,
}

impl Default for Lifecycle {
    fn default() -> Self {
        Lifecycle {
            ready: AtomicBool::new(true),
            shutdown: watch::channel(false).0,
        }
    }
}

impl Lifecycle {
    pub fn is_ready(&self) -> bool {
        self.ready.load(Ordering::Acquire)
    }

    /// First step of shutdown: `/readyz` fails from now on.
    pub fn mark_not_ready(&self) {
        self.ready.store(false, Ordering::Release);
    }

    /// Ends every open watch cleanly.
    pub fn end_watches(&self) {
        self.shutdown.send_replace(true);
    }

    /// Resolves when watches must end.
    pub fn watch_shutdown(&self) -> watch::Receiver<bool> {
        self.shutdown.subscribe()
    }
}

/// A pending authorization decision.
pub type Authorizing<'a> = Pin<Box<dyn Future<Output = Result<(), ApiError>> + Send + 'a>>;

/// Authorization as handlers ask it: kube's patch handler authorizes `create` for an
/// apply that creates, with the filter chain's authorizer.
pub trait Authorize: Send + Sync {
    fn authorize<'a>(&'a self, user: &'a UserInfo, info: &'a RequestInfo) -> Authorizing<'a>;
}

/// Everything handlers share, built once at start-up.
pub struct AppState {
    /// The served definitions, live: a request takes [`AppState::catalog`] once (into
    /// its [`crate::handlers::Call`]) and is served with that snapshot throughout.
    pub definitions: Arc<Definitions>,
    pub store: Arc<dyn Store>,
    /// The watch cache `store` is, when enabled (its readiness is a `/readyz` check).
    pub cache: Option<Arc<crate::storage::cache::CachedStore>>,
    pub keys: KeyLayout,
    /// Whether values pass through encryption at rest: their staleness (kube's `stale`)
    /// can then change without a write (a KMS plugin's new key ID), so a no-op update is
    /// confirmed on a read below the watch cache.
    pub encrypted: bool,
    /// The chain's authorizer, for the writes that authorize a second verb.
    pub authorizer: Arc<dyn Authorize>,
    pub metrics: Arc<Metrics>,
    pub lifecycle: Lifecycle,
    pub bookmark_interval: Duration,
    /// `--max-object-size`: the largest stored form of one object, in bytes.
    pub max_object_size: usize,
    /// The read-only and mutating in-flight budgets.
    pub inflight: InFlight,
    /// `--max-watches-per-user`.
    pub watches: crate::watch::limit::WatchLimit,
    /// The storage check behind `/readyz` and `/healthz`, cached briefly.
    pub storage_probe: StorageProbe,
    /// The admission chain writes run (see [`crate::admission`]).
    pub admission: crate::admission::Chain,
}

impl AppState {
    /// The catalog served now (one read-locked load and an `Arc` clone).
    pub fn catalog(&self) -> Arc<Catalog> {
        self.definitions.current()
    }
}
