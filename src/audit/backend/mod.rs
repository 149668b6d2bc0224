//! Where audit events go: kube's backends (`log`, `webhook`), each in its mode
//! (`batch`, `blocking`, `blocking-strict`), behind one [`Backend`] trait.

use std::sync::Arc;

use futures::future::BoxFuture;

use super::Event;

/// kube's `audit.Backend`. `process_events` returns false when an event could not be
/// handed on (in `blocking-strict` mode the request then fails, as in kube).
pub trait Backend: Send + Sync {
    fn process_events<'a>(&'a self, events: &'a [Arc<Event>]) -> BoxFuture<'a, bool>;
    /// Flushes what is buffered; called once on shutdown.
    fn shutdown(&self) -> BoxFuture<'_, ()>;
}
