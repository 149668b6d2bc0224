//! kube's webhook backend (k8s.io/apiserver plugin/pkg/audit/webhook): each batch is
//! POSTed as one `audit.k8s.io/v1` EventList to the server of the kubeconfig given by
//! `--audit-webhook-config-file` (its CA, client certificate or token), each attempt
//! bounded by kube's 30s request timeout, retried on any error with [`backoff`].
//!
//! [`backoff`]: super::backoff

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use http::header::{ACCEPT, CONTENT_TYPE};
use kube::config::{KubeConfigOptions, Kubeconfig};

use super::backoff::{Backoff, retry};
use super::format::write_list_item;
use super::metrics::AuditMetrics;
use super::{Backend, Event};

/// kube's `PluginName`, the `plugin` label of its errors.
pub const PLUGIN: &str = "webhook";
/// kube's `defaultRequestTimeout`: one POST, the answer read included.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// How much of an error answer is kept for the log.
const ERROR_BODY: usize = 1024;

/// The webhook backend.
pub struct WebhookBackend {
    client: kube::Client,
    /// The kubeconfig server's path and query, POSTed to as it is.
    path: String,
    backoff: Backoff,
    metrics: AuditMetrics,
}

impl WebhookBackend {
    /// Reads the kubeconfig and builds its client (kube's `loadWebhook`).
    pub async fn load(
        config_file: &Path,
        initial_backoff: Duration,
        metrics: AuditMetrics,
    ) -> Result<WebhookBackend, String> {
        let kubeconfig = Kubeconfig::read_from(config_file).map_err(|e| e.to_string())?;
        let mut config =
            kube::Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default())
                .await
                .map_err(|e| e.to_string())?;
        // The server's path is the receiver's: kube's client would append ours to it.
        // client-go adds its timeout to the query: `?timeout=30s`.
        let path = match config.cluster_url.path_and_query() {
            Some(p) if p.query().is_some() => format!("{}&timeout=30s", p.as_str()),
            Some(p) => format!("{}?timeout=30s", p.path()),
            None => "/?timeout=30s".to_string(),
        };
        let mut base = http::Uri::builder();
        if let Some(scheme) = config.cluster_url.scheme() {
            base = base.scheme(scheme.clone());
        }
        if let Some(authority) = config.cluster_url.authority() {
            base = base.authority(authority.clone());
        }
        config.cluster_url = base
            .path_and_query("/")
            .build()
            .map_err(|e| e.to_string())?;
        // Retries are ours (kube's backoff on every error), not the client's.
        config.default_retry = false;
        config.read_timeout = Some(REQUEST_TIMEOUT);
        let client = kube::Client::try_from(config).map_err(|e| e.to_string())?;
        Ok(WebhookBackend {
            client,
            path,
            backoff: Backoff::with_initial_delay(initial_backoff),
            metrics,
        })
    }

    async fn post(&self, body: &[u8]) -> Result<(), String> {
        let request = http::Request::post(self.path.as_str())
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "application/json, */*")
            .body(kube::client::Body::from(body.to_vec()))
            .map_err(|e| e.to_string())?;
        let sent = tokio::time::timeout(REQUEST_TIMEOUT, async {
            let response = self.client.send(request).await.map_err(|e| e.to_string())?;
            let status = response.status();
            if status.is_success() {
                return Ok(());
            }
            let body = response
                .into_body()
                .collect_bytes()
                .await
                .unwrap_or_default();
            let text = String::from_utf8_lossy(&body[..body.len().min(ERROR_BODY)]).into_owned();
            Err(format!(
                "the server responded with the status code {} ({text})",
                status.as_u16()
            ))
        });
        sent.await
            .map_err(|_| format!("Post {:?}: context deadline exceeded", self.path))?
    }
}

impl Backend for WebhookBackend {
    fn process_events<'a>(&'a self, events: &'a [Arc<Event>]) -> BoxFuture<'a, bool> {
        Box::pin(async move {
            let sent = match event_list(events) {
                Ok(body) => retry(self.backoff, || self.post(&body)).await,
                Err(e) => Err(e),
            };
            match sent {
                Ok(()) => true,
                Err(e) => {
                    self.metrics.plugin_error(PLUGIN, &e, events);
                    false
                }
            }
        })
    }

    fn shutdown(&self) -> BoxFuture<'_, ()> {
        Box::pin(std::future::ready(()))
    }
}

/// The `audit.k8s.io/v1` EventList of `events` (its items without `kind` and
/// `apiVersion`, as kube writes them).
pub fn event_list(events: &[Arc<Event>]) -> Result<Vec<u8>, String> {
    let mut body = Vec::with_capacity(1024 * events.len().max(1));
    body.extend_from_slice(
        br#"{"kind":"EventList","apiVersion":"audit.k8s.io/v1","metadata":{},"items":["#,
    );
    for (i, event) in events.iter().enumerate() {
        if i > 0 {
            body.push(b',');
        }
        write_list_item(&mut body, event)?;
    }
    // Go's JSON encoder ends with a newline.
    body.extend_from_slice(b"]}\n");
    Ok(body)
}
