//! kube's truncating backend (k8s.io/apiserver plugin/pkg/audit/truncate,
//! `--audit-<plugin>-truncate-enabled`): an event over `max_event_size` loses its request
//! and response objects (annotated `audit.k8s.io/truncated: "true"`), one still over it is
//! dropped (counted under the plugin `truncate`), and batches are split so none passes
//! `max_batch_size`.

use std::collections::BTreeSet;
use std::sync::Arc;

use futures::future::BoxFuture;

use super::format::json_size;
use super::metrics::AuditMetrics;
use super::settings::TruncateConfig;
use super::{Backend, Event};
use crate::audit::Level;

/// kube's `PluginName`, the `plugin` label of its errors.
pub const PLUGIN: &str = "truncate";
const ANNOTATION_KEY: &str = "audit.k8s.io/truncated";
const ANNOTATION_VALUE: &str = "true";

/// The truncating backend in front of `delegate`.
pub struct Truncating {
    pub delegate: Arc<dyn Backend>,
    pub config: TruncateConfig,
    pub metrics: AuditMetrics,
}

/// One event's fate: kept at its size, or dropped with why.
fn fit(event: &Arc<Event>, max: u64) -> Result<(Arc<Event>, u64), String> {
    let size = json_size(event);
    if size <= max {
        return Ok((event.clone(), size));
    }
    if event.level < Level::Request {
        return Err("event is too large even after truncating".into());
    }
    let truncated = Arc::new(truncate(event));
    match json_size(&truncated) {
        size if size <= max => Ok((truncated, size)),
        _ => Err("event is too large even after truncating".into()),
    }
}

/// The event without its request and response objects (which are not copied),
/// annotated as truncated.
fn truncate(event: &Event) -> Event {
    let mut annotations = event.annotations.clone();
    annotations.insert(ANNOTATION_KEY.into(), ANNOTATION_VALUE.into());
    Event {
        kind: event.kind.clone(),
        api_version: event.api_version.clone(),
        level: event.level,
        audit_id: event.audit_id.clone(),
        stage: event.stage,
        request_uri: event.request_uri.clone(),
        verb: event.verb.clone(),
        user: event.user.clone(),
        impersonated_user: event.impersonated_user.clone(),
        source_ips: event.source_ips.clone(),
        user_agent: event.user_agent.clone(),
        object_ref: event.object_ref.clone(),
        response_status: event.response_status.clone(),
        request_object: None,
        response_object: None,
        request_received_timestamp: event.request_received_timestamp.clone(),
        stage_timestamp: event.stage_timestamp.clone(),
        annotations,
    }
}

/// apimachinery's aggregate error text: one message as it is, more in brackets.
fn aggregate(errors: &BTreeSet<String>) -> String {
    match errors.len() {
        1 => errors.iter().next().cloned().unwrap_or_default(),
        _ => format!(
            "[{}]",
            errors.iter().cloned().collect::<Vec<_>>().join(", ")
        ),
    }
}

impl Backend for Truncating {
    fn process_events<'a>(&'a self, events: &'a [Arc<Event>]) -> BoxFuture<'a, bool> {
        Box::pin(async move {
            let mut errors = BTreeSet::new();
            let mut impacted = Vec::new();
            let mut batch = Vec::new();
            let mut batch_size = 0u64;
            let mut success = true;
            for event in events {
                let (event, size) = match fit(event, self.config.max_event_size) {
                    Ok(fitted) => fitted,
                    Err(e) => {
                        errors.insert(e);
                        impacted.push(event.clone());
                        continue;
                    }
                };
                if !batch.is_empty() && batch_size + size > self.config.max_batch_size {
                    success = self.delegate.process_events(&batch).await && success;
                    batch.clear();
                    batch_size = 0;
                }
                batch_size += size;
                batch.push(event);
            }
            if !batch.is_empty() {
                success = self.delegate.process_events(&batch).await && success;
            }
            if !impacted.is_empty() {
                self.metrics
                    .plugin_error(PLUGIN, &aggregate(&errors), &impacted);
            }
            success
        })
    }

    fn shutdown(&self) -> BoxFuture<'_, ()> {
        self.delegate.shutdown()
    }
}

#[cfg(test)]
#[path = "truncate_tests.rs"]
mod tests;
