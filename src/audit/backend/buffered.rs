//! kube's batch mode (k8s.io/apiserver plugin/pkg/audit/buffered): events go into a
//! bounded buffer and the request goes on; a task takes them out in batches (up to
//! `max_batch_size`, or what came within `max_batch_wait`), throttled, and hands each
//! batch to the backend behind it. A full buffer drops the event, counted under the
//! plugin `buffered`. Shutdown sends what is buffered, then shuts the backend down.

use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use tokio::sync::mpsc::error::TrySendError;
use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::JoinSet;
use tokio::time::Instant;

use super::metrics::AuditMetrics;
use super::settings::BatchConfig;
use super::throttle::TokenBucket;
use super::{Backend, Event};

/// kube's `PluginName`, the `plugin` label of its errors.
pub const PLUGIN: &str = "buffered";

/// The buffering backend in front of `delegate`.
pub struct Buffered {
    buffer: mpsc::Sender<Arc<Event>>,
    stop: watch::Sender<bool>,
    stopped: Mutex<Option<oneshot::Receiver<()>>>,
    metrics: AuditMetrics,
}

impl Buffered {
    /// Starts the batching task (within a tokio runtime).
    pub fn start(
        delegate: Arc<dyn Backend>,
        config: &BatchConfig,
        metrics: AuditMetrics,
    ) -> Buffered {
        let (buffer, events) = mpsc::channel(config.buffer_size.max(1));
        let (stop, stopping) = watch::channel(false);
        let (done, stopped) = oneshot::channel();
        let batcher = Batcher {
            events,
            stopping,
            delegate,
            max_batch_size: config.max_batch_size.max(1),
            max_batch_wait: config.max_batch_wait,
            throttle: config.throttle.map(TokenBucket::new),
            async_delegate: config.async_delegate,
            sending: JoinSet::new(),
        };
        tokio::spawn(async move {
            batcher.run().await;
            let _ = done.send(());
        });
        Buffered {
            buffer,
            stop,
            stopped: Mutex::new(Some(stopped)),
            metrics,
        }
    }
}

impl Backend for Buffered {
    fn process_events<'a>(&'a self, events: &'a [Arc<Event>]) -> BoxFuture<'a, bool> {
        for (i, event) in events.iter().enumerate() {
            let (error, answer) = match self.buffer.try_send(event.clone()) {
                Ok(()) => continue,
                Err(TrySendError::Full(_)) => ("audit buffer queue blocked", true),
                Err(TrySendError::Closed(_)) => ("audit backend shut down", false),
            };
            self.metrics.plugin_error(PLUGIN, error, &events[i..]);
            return Box::pin(std::future::ready(answer));
        }
        Box::pin(std::future::ready(true))
    }

    fn shutdown(&self) -> BoxFuture<'_, ()> {
        let _ = self.stop.send(true);
        let stopped = self.stopped.lock().ok().and_then(|mut s| s.take());
        Box::pin(async move {
            if let Some(stopped) = stopped {
                let _ = stopped.await;
            }
        })
    }
}

/// The batching task's state.
struct Batcher {
    events: mpsc::Receiver<Arc<Event>>,
    stopping: watch::Receiver<bool>,
    delegate: Arc<dyn Backend>,
    max_batch_size: usize,
    max_batch_wait: std::time::Duration,
    throttle: Option<TokenBucket>,
    async_delegate: bool,
    sending: JoinSet<()>,
}

impl Batcher {
    async fn run(mut self) {
        loop {
            let (batch, stop) = self.collect().await;
            self.send(batch).await;
            if stop {
                break;
            }
        }
        // What came before the stop is sent; nothing more is taken in.
        self.events.close();
        loop {
            let mut batch = Vec::new();
            let taken = self.events.recv_many(&mut batch, self.max_batch_size).await;
            if taken == 0 {
                break;
            }
            self.send(batch).await;
        }
        while self.sending.join_next().await.is_some() {}
        self.delegate.shutdown().await;
    }

    /// One batch: full, or what came before the wait ran out (batches of more than one
    /// only), or before a stop; `true` when stopping.
    async fn collect(&mut self) -> (Vec<Arc<Event>>, bool) {
        let deadline = (self.max_batch_size > 1).then(|| Instant::now() + self.max_batch_wait);
        let mut batch = Vec::new();
        if *self.stopping.borrow() {
            return (batch, true);
        }
        while batch.len() < self.max_batch_size {
            tokio::select! {
                biased;
                event = self.events.recv() => match event {
                    Some(event) => batch.push(event),
                    None => return (batch, true),
                },
                _ = self.stopping.changed() => return (batch, true),
                _ = sleep_until(deadline) => break,
            }
        }
        (batch, false)
    }

    async fn send(&mut self, batch: Vec<Arc<Event>>) {
        if batch.is_empty() {
            return;
        }
        if let Some(throttle) = &mut self.throttle {
            let delay = throttle.reserve(Instant::now().into_std());
            if !delay.is_zero() {
                tokio::time::sleep(delay).await;
            }
        }
        if !self.async_delegate {
            self.delegate.process_events(&batch).await;
            return;
        }
        while self.sending.try_join_next().is_some() {}
        let delegate = self.delegate.clone();
        self.sending.spawn(async move {
            delegate.process_events(&batch).await;
        });
    }
}

/// Waits until `deadline`, or forever without one.
async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
#[path = "buffered_tests.rs"]
mod tests;
