//! Where audit events go: kube's backends (`log`, `webhook`), each in its mode
//! (`batch`, `blocking`, `blocking-strict`), behind one [`Backend`] trait.
//!
//! # Layout
//!
//! - `settings`: [`AuditSettings`], what the `--audit-*` flags configure.
//! - `build`: [`from_config`], the backend of the settings (kube's `ApplyTo`).
//! - `log/`: the log backend, its writer thread, lumberjack's rotation and mill.
//! - `webhook`, `backoff`: the webhook backend and its retries.
//! - `buffered`, `throttle`: batch mode. `union`: both backends; blocking mode.
//! - `truncate`: `--audit-*-truncate-*`. `format`: an event's JSON and legacy lines.
//! - `metrics`: [`AuditMetrics`], kube's `apiserver_audit_*` counters.

mod backoff;
pub mod buffered;
mod build;
pub mod format;
pub mod log;
pub mod metrics;
pub mod settings;
mod throttle;
pub mod truncate;
pub mod union;
pub mod webhook;

#[cfg(test)]
pub(crate) mod testing;

use std::sync::Arc;

use futures::future::BoxFuture;

use super::Event;

pub use build::from_config;
pub use metrics::AuditMetrics;
pub use settings::AuditSettings;

/// kube's `audit.Backend`. `process_events` returns false when an event could not be
/// handed on (in `blocking-strict` mode the request then fails, as in kube).
pub trait Backend: Send + Sync {
    fn process_events<'a>(&'a self, events: &'a [Arc<Event>]) -> BoxFuture<'a, bool>;
    /// Flushes what is buffered; called once on shutdown.
    fn shutdown(&self) -> BoxFuture<'_, ()>;
}
