//! Serving state shared by every request: the CRD catalog, the store, authn, authz,
//! metrics, request limits, the cached storage probe and lifecycle.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio::sync::watch;

use crate::authn::Authenticator;
use crate::authz::Authorizer;
use crate::crd::catalog::Catalog;
use crate::handlers::health::StorageProbe;
use crate::metrics::Metrics;
use crate::server::inflight::InFlight;
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

/// Everything handlers share, built once at start-up.
pub struct AppState {
    pub catalog: Arc<Catalog>,
    pub store: Arc<dyn Store>,
    /// The watch cache `store` is, when enabled (its readiness is a `/readyz` check).
    pub cache: Option<Arc<crate::storage::cache::CachedStore>>,
    pub keys: KeyLayout,
    pub authenticator: Authenticator,
    pub authorizer: Authorizer,
    pub metrics: Arc<Metrics>,
    pub lifecycle: Lifecycle,
    pub bookmark_interval: Duration,
    /// `--max-object-size`: the largest stored form of one object, in bytes.
    pub max_object_size: usize,
    /// The read-only and mutating in-flight budgets.
    pub inflight: InFlight,
    /// `--max-watches-per-user`.
    pub watches: crate::watch::limit::WatchLimit,
    /// How long a request (its body included) may take: kube's `--request-timeout`.
    pub request_timeout: Duration,
    /// The storage check behind `/readyz` and `/healthz`, cached briefly.
    pub storage_probe: StorageProbe,
    /// The host cluster's namespaces for NamespaceLifecycle (unchecked without a cluster).
    pub namespaces: crate::namespaces::NamespaceLifecycle,
}
