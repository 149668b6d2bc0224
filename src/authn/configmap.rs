//! Follows `kube-system/extension-apiserver-authentication`: list it (by field selector,
//! so a missing ConfigMap is an empty list, not an error), then watch from the list's
//! resourceVersion and apply every change to the [`LiveCerts`]. A `410 Gone` or an error
//! event relists; a failed call backs off (1s doubling to 30s) and tries again.

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, ListParams, WatchEvent, WatchParams};

use super::live::{CONFIGMAP_NAME, CONFIGMAP_NAMESPACE, LiveCerts};

const MIN_BACKOFF: Duration = Duration::from_secs(1);
const MAX_BACKOFF: Duration = Duration::from_secs(30);
/// Server-side timeout of one watch call; the watch then resumes from the last version.
const WATCH_TIMEOUT_SECONDS: u32 = 290;

/// Keeps the live configuration in step with the ConfigMap.
pub struct Watcher {
    api: Api<ConfigMap>,
    live: Arc<LiveCerts>,
    /// Where the watch starts (from the initial lookup).
    resource_version: Option<String>,
}

/// How one watch call ended.
enum WatchEnd {
    /// The server closed the stream: resume from this version.
    Resume(String),
    /// The version is gone or the server sent an error event: list again.
    Relist,
    /// The call failed: back off, then resume from this version.
    Failed(String, kube::Error),
}

fn selector() -> String {
    format!("metadata.name={CONFIGMAP_NAME}")
}

impl Watcher {
    pub fn new(client: kube::Client, live: Arc<LiveCerts>) -> Self {
        Watcher {
            api: Api::namespaced(client, CONFIGMAP_NAMESPACE),
            live,
            resource_version: None,
        }
    }

    /// Lists the ConfigMap once and applies it (the start-up lookup).
    pub async fn sync(&mut self) -> Result<(), kube::Error> {
        let list = self
            .api
            .list(&ListParams::default().fields(&selector()))
            .await?;
        let data = list.items.into_iter().find_map(|cm| {
            (cm.metadata.name.as_deref() == Some(CONFIGMAP_NAME))
                .then(|| cm.data.unwrap_or_default())
        });
        self.live.apply(data.as_ref());
        self.resource_version = list.metadata.resource_version;
        Ok(())
    }

    /// Runs until the process ends.
    pub async fn run(mut self) {
        let mut backoff = MIN_BACKOFF;
        loop {
            let Some(version) = self.resource_version.clone() else {
                if let Err(e) = self.sync().await {
                    tracing::warn!(error = %e, configmap = CONFIGMAP_NAME, "listing the authentication ConfigMap failed");
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(MAX_BACKOFF);
                }
                continue;
            };
            match self.watch_from(&version).await {
                WatchEnd::Resume(v) => {
                    self.resource_version = Some(v);
                    backoff = MIN_BACKOFF;
                }
                WatchEnd::Relist => {
                    // A server that answers every watch with an error must not make
                    // this loop spin.
                    self.resource_version = None;
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(MAX_BACKOFF);
                }
                WatchEnd::Failed(v, e) => {
                    tracing::warn!(error = %e, configmap = CONFIGMAP_NAME, "watching the authentication ConfigMap failed");
                    self.resource_version = Some(v);
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(MAX_BACKOFF);
                }
            }
        }
    }

    async fn watch_from(&self, version: &str) -> WatchEnd {
        let params = WatchParams::default()
            .fields(&selector())
            .timeout(WATCH_TIMEOUT_SECONDS);
        let stream = match self.api.watch(&params, version).await {
            Ok(s) => s,
            Err(e) => return WatchEnd::Failed(version.to_string(), e),
        };
        futures::pin_mut!(stream);
        let mut version = version.to_string();
        while let Some(event) = stream.next().await {
            let (object, data) = match event {
                Ok(WatchEvent::Added(cm) | WatchEvent::Modified(cm)) => {
                    let data = cm.data.clone().unwrap_or_default();
                    (cm, Some(data))
                }
                Ok(WatchEvent::Deleted(cm)) => (cm, None),
                Ok(WatchEvent::Bookmark(b)) => {
                    version = b.metadata.resource_version;
                    continue;
                }
                Ok(WatchEvent::Error(status)) => {
                    tracing::debug!(code = status.code, message = %status.message, "watch error event; relisting");
                    return WatchEnd::Relist;
                }
                Err(e) => return WatchEnd::Failed(version, e),
            };
            if let Some(v) = object.metadata.resource_version {
                version = v;
            }
            if object.metadata.name.as_deref() == Some(CONFIGMAP_NAME) {
                self.live.apply(data.as_ref());
            }
        }
        WatchEnd::Resume(version)
    }
}
