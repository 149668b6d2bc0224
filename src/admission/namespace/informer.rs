//! Follows the host cluster's namespaces into the [`Cache`], as client-go's reflector
//! does for kube's namespace informer: list (in pages), then watch from the list's
//! resourceVersion; a closed watch resumes from the last version seen, a `410 Gone` or
//! an error event lists again, and failures back off (1s doubling to 30s).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::StreamExt;
use k8s_openapi::api::core::v1::Namespace;
use kube::api::{Api, ListParams, WatchEvent, WatchParams};

use super::cache::Cache;
use super::decision::Phase;

const MIN_BACKOFF: Duration = Duration::from_secs(1);
const MAX_BACKOFF: Duration = Duration::from_secs(30);
/// Server-side timeout of one watch call; the watch then resumes from the last version.
const WATCH_TIMEOUT_SECONDS: u32 = 290;
/// client-go's list page size.
const PAGE_SIZE: u32 = 500;
/// A watch that ends sooner than this without events counts as a failure, so a server
/// that closes every watch at once is not called in a tight loop.
const SHORTEST_HEALTHY_WATCH: Duration = Duration::from_secs(1);

/// How one watch call ended.
enum WatchEnd {
    /// The server closed the stream: resume from this version.
    Resume { version: String, healthy: bool },
    /// The version is gone or the server sent an error event: list again.
    Relist,
    /// The call failed: back off, then resume from this version.
    Failed(String, kube::Error),
}

/// The list+watch loop of the namespace informer.
pub struct Informer {
    api: Api<Namespace>,
    cache: Arc<Cache>,
}

fn phase(ns: &Namespace) -> Phase {
    Phase::of(ns.status.as_ref().and_then(|s| s.phase.as_deref()))
}

impl Informer {
    pub fn new(api: Api<Namespace>, cache: Arc<Cache>) -> Self {
        Informer { api, cache }
    }

    /// Runs until the process ends.
    pub async fn run(self) {
        let mut backoff = MIN_BACKOFF;
        let mut version: Option<String> = None;
        loop {
            let from = match version.take() {
                Some(v) => v,
                None => match self.list().await {
                    Ok(v) => v,
                    Err(e) => {
                        tracing::warn!(error = %e, "listing namespaces failed; creates wait for the first list");
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
                    tracing::warn!(error = %e, "watching namespaces failed");
                    version = Some(v);
                    backoff = pause(backoff).await;
                }
            }
        }
    }

    /// Lists every namespace (in pages) into the cache; the list's resourceVersion.
    async fn list(&self) -> Result<String, kube::Error> {
        let mut listed = HashMap::new();
        let mut params = ListParams::default().limit(PAGE_SIZE);
        loop {
            let page = self.api.list(&params).await?;
            for ns in &page.items {
                if let Some(name) = &ns.metadata.name {
                    listed.insert(name.clone(), phase(ns));
                }
            }
            match page.metadata.continue_.filter(|c| !c.is_empty()) {
                Some(token) => params = params.continue_token(&token),
                None => {
                    self.cache.replace(listed);
                    return Ok(page.metadata.resource_version.unwrap_or_default());
                }
            }
        }
    }

    async fn watch_from(&self, version: &str) -> WatchEnd {
        let started = Instant::now();
        let params = WatchParams::default().timeout(WATCH_TIMEOUT_SECONDS);
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
            let object = match event {
                Ok(WatchEvent::Added(ns) | WatchEvent::Modified(ns)) => {
                    if let Some(name) = ns.metadata.name.clone() {
                        self.cache.upsert(name, phase(&ns));
                    }
                    ns
                }
                Ok(WatchEvent::Deleted(ns)) => {
                    if let Some(name) = &ns.metadata.name {
                        self.cache.remove(name);
                    }
                    ns
                }
                Ok(WatchEvent::Bookmark(b)) => {
                    version = b.metadata.resource_version;
                    continue;
                }
                Ok(WatchEvent::Error(status)) => {
                    tracing::debug!(code = status.code, message = %status.message, "namespace watch error event; relisting");
                    return WatchEnd::Relist;
                }
                Err(e) => return WatchEnd::Failed(version, e),
            };
            if let Some(v) = object.metadata.resource_version {
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
