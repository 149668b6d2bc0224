//! Backends combined: kube's `audit.Union` (every backend in turn, all must succeed) and
//! `ignoreErrorsBackend` (`blocking` mode: the request waits, its failures are only
//! counted by the backend).

use std::sync::Arc;

use futures::future::BoxFuture;

use super::{Backend, Event};

/// Every backend in turn; true when all succeeded.
pub struct Union(pub Vec<Arc<dyn Backend>>);

impl Backend for Union {
    fn process_events<'a>(&'a self, events: &'a [Arc<Event>]) -> BoxFuture<'a, bool> {
        Box::pin(async move {
            let mut success = true;
            for backend in &self.0 {
                success = backend.process_events(events).await && success;
            }
            success
        })
    }

    fn shutdown(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            for backend in &self.0 {
                backend.shutdown().await;
            }
        })
    }
}

/// Waits for the backend, then answers true whatever happened.
pub struct IgnoreErrors(pub Arc<dyn Backend>);

impl Backend for IgnoreErrors {
    fn process_events<'a>(&'a self, events: &'a [Arc<Event>]) -> BoxFuture<'a, bool> {
        Box::pin(async move {
            self.0.process_events(events).await;
            true
        })
    }

    fn shutdown(&self) -> BoxFuture<'_, ()> {
        self.0.shutdown()
    }
}
