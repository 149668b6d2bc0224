//! Follows one kind of the host cluster's objects into a [`Sink`], as client-go's
//! reflector does for kube's informers: list (in pages), then watch from the list's
//! resourceVersion; a closed watch resumes from the last version seen, a `410 Gone` or
//! an error event lists again, and failures back off (1s doubling to 30s).

use std::fmt::Debug;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::StreamExt;
use kube::api::{Api, ListParams, WatchEvent, WatchParams};
use serde::de::DeserializeOwned;

const MIN_BACKOFF: Duration = Duration::from_secs(1);
const MAX_BACKOFF: Duration = Duration::from_secs(30);
/// Server-side timeout of one watch call; the watch then resumes from the last version.
const WATCH_TIMEOUT_SECONDS: u32 = 290;
/// client-go's list page size.
const PAGE_SIZE: u32 = 500;
/// A watch that ends sooner than this without events counts as a failure, so a server
/// that closes every watch at once is not called in a tight loop.
const SHORTEST_HEALTHY_WATCH: Duration = Duration::from_secs(1);

/// Where a reflector delivers what it sees.
pub trait Sink<K>: Send + Sync {
    /// A full list: the store becomes exactly it (and has synced from now on).
    fn replace(&self, listed: Vec<K>);
    /// An added or modified object.
    fn upsert(&self, object: K);
    /// A deleted object (its last state).
    fn remove(&self, object: K);
}

/// The objects a reflector can follow.
pub trait Followable:
    kube::Resource + Clone + Debug + DeserializeOwned + Send + Sync + 'static
{
}

impl<K> Followable for K where
    K: kube::Resource + Clone + Debug + DeserializeOwned + Send + Sync + 'static
{
}

/// How one watch call ended.
enum WatchEnd {
    /// The server closed the stream: resume from this version.
    Resume { version: String, healthy: bool },
    /// The version is gone or the server sent an error event: list again.
    Relist,
    /// The call failed: back off, then resume from this version.
    Failed(String, kube::Error),
}

/// The list+watch loop of one informer.
pub struct Reflector<K, S> {
    api: Api<K>,
    sink: Arc<S>,
    /// What is followed, for the logs (`namespaces`, ...).
    what: &'static str,
    /// Only objects with these labels (a label selector), when set.
    labels: Option<String>,
}

impl<K: Followable, S: Sink<K>> Reflector<K, S> {
    pub fn new(api: Api<K>, sink: Arc<S>, what: &'static str) -> Self {
        Reflector {
            api,
            sink,
            what,
            labels: None,
        }
    }

    /// Follows only the objects `selector` (a label selector) selects.
    pub fn with_label_selector(mut self, selector: &str) -> Self {
        self.labels = Some(selector.to_string());
        self
    }

    /// Runs until the process ends.
    pub async fn run(self) {
        let what = self.what;
        let mut backoff = MIN_BACKOFF;
        let mut version: Option<String> = None;
        loop {
            let from = match version.take() {
                Some(v) => v,
                None => match self.list().await {
                    Ok(v) => v,
                    Err(e) => {
                        tracing::warn!(error = %e, "listing {what} failed; retrying");
                        backoff = pause(backoff).await;
                        continue;
                    }
                },
            };
            match self.watch_from(&from).await {
                WatchEnd::Resume {
                    version: v,
                    healthy,
                } => {
                    version = Some(v);
                    backoff = if healthy {
                        MIN_BACKOFF
                    } else {
                        pause(backoff).await
                    };
                }
                WatchEnd::Relist => backoff = pause(backoff).await,
                WatchEnd::Failed(v, e) => {
                    tracing::warn!(error = %e, "watching {what} failed");
                    version = Some(v);
                    backoff = pause(backoff).await;
                }
            }
        }
    }

    /// Lists every object (in pages) into the sink; the list's resourceVersion.
    async fn list(&self) -> Result<String, kube::Error> {
        let mut listed = Vec::new();
        let mut params = ListParams::default().limit(PAGE_SIZE);
        if let Some(selector) = &self.labels {
            params = params.labels(selector);
        }
        loop {
            let page = self.api.list(&params).await?;
            listed.extend(page.items);
            match page.metadata.continue_.filter(|c| !c.is_empty()) {
                Some(token) => params = params.continue_token(&token),
                None => {
                    self.sink.replace(listed);
                    return Ok(page.metadata.resource_version.unwrap_or_default());
                }
            }
        }
    }

    async fn watch_from(&self, version: &str) -> WatchEnd {
        let started = Instant::now();
        let mut params = WatchParams::default().timeout(WATCH_TIMEOUT_SECONDS);
        if let Some(selector) = &self.labels {
            params = params.labels(selector);
        }
        let stream = match self.api.watch(&params, version).await {
            Ok(s) => s,
            Err(kube::Error::Api(s)) if s.code == 410 => return WatchEnd::Relist,
            Err(e) => return WatchEnd::Failed(version.to_string(), e),
        };
        futures::pin_mut!(stream);
        let mut version = version.to_string();
        let mut events = 0usize;
        while let Some(event) = stream.next().await {
            events += 1;
            let seen = match event {
                Ok(WatchEvent::Added(object) | WatchEvent::Modified(object)) => {
                    let seen = object.meta().resource_version.clone();
                    self.sink.upsert(object);
                    seen
                }
                Ok(WatchEvent::Deleted(object)) => {
                    let seen = object.meta().resource_version.clone();
                    self.sink.remove(object);
                    seen
                }
                Ok(WatchEvent::Bookmark(b)) => Some(b.metadata.resource_version),
                Ok(WatchEvent::Error(status)) => {
                    tracing::debug!(code = status.code, message = %status.message, "{} watch error event; relisting", self.what);
                    return WatchEnd::Relist;
                }
                Err(e) => return WatchEnd::Failed(version, e),
            };
            if let Some(v) = seen {
                version = v;
            }
        }
        let healthy = events > 0 || started.elapsed() >= SHORTEST_HEALTHY_WATCH;
        WatchEnd::Resume { version, healthy }
    }
}

/// Sleeps `backoff`; the next one.
async fn pause(backoff: Duration) -> Duration {
    tokio::time::sleep(backoff).await;
    (backoff * 2).min(MAX_BACKOFF)
}
