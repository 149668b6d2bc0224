//! Test helpers: a backend that keeps what it is given.

use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;

use super::backend::Backend;
use super::event::Event;

/// Keeps every event it is given; refuses them all when `refuse`.
#[derive(Default)]
pub struct Recording {
    pub events: Mutex<Vec<Arc<Event>>>,
    pub refuse: bool,
}

impl Backend for Recording {
    fn process_events<'a>(&'a self, events: &'a [Arc<Event>]) -> BoxFuture<'a, bool> {
        self.events.lock().unwrap().extend(events.iter().cloned());
        Box::pin(std::future::ready(!self.refuse))
    }
    fn shutdown(&self) -> BoxFuture<'_, ()> {
        Box::pin(std::future::ready(()))
    }
}

impl Recording {
    /// The events' stages so far.
    pub fn stages(&self) -> Vec<super::Stage> {
        self.events
            .lock()
            .unwrap()
            .iter()
            .map(|e| e.stage)
            .collect()
    }
}
