//! The audit backend from the settings, as kube's `AuditOptions.ApplyTo` builds it: the
//! log backend and the webhook backend, each in its mode and truncated when asked, joined
//! when both are configured; none without a policy file.

use std::sync::Arc;

use jiff::Timestamp;

use super::Backend;
use super::buffered::Buffered;
use super::log::LogBackend;
use super::metrics::AuditMetrics;
use super::settings::{AuditSettings, LogSettings, Mode, TruncateConfig, WebhookSettings};
use super::truncate::Truncating;
use super::union::{IgnoreErrors, Union};
use super::webhook::WebhookBackend;

/// The backend events are processed by, or none when nothing is audited. Called within
/// the runtime (batch modes start their task, the webhook its client).
pub async fn from_config(
    settings: &AuditSettings,
    metrics: AuditMetrics,
) -> Result<Option<Arc<dyn Backend>>, String> {
    if settings.policy.is_none() {
        if settings.log.is_some() || settings.webhook.is_some() {
            tracing::info!("no audit policy file provided, no events will be recorded");
        }
        return Ok(None);
    }
    let mut backends = Vec::new();
    if let Some(log) = &settings.log {
        backends.push(log_backend(log, &metrics)?);
    }
    if let Some(webhook) = &settings.webhook {
        backends.push(webhook_backend(webhook, &metrics).await?);
    }
    Ok(match backends.len() {
        0 => None,
        1 => backends.pop(),
        _ => Some(Arc::new(Union(backends))),
    })
}

fn log_backend(settings: &LogSettings, metrics: &AuditMetrics) -> Result<Arc<dyn Backend>, String> {
    let clock = Arc::new(Timestamp::now);
    let log = LogBackend::start(&settings.target, settings.format, metrics.clone(), clock)?;
    let log = in_mode(Arc::new(log), &settings.mode, metrics);
    Ok(truncated(log, settings.truncate, metrics))
}

async fn webhook_backend(
    settings: &WebhookSettings,
    metrics: &AuditMetrics,
) -> Result<Arc<dyn Backend>, String> {
    let webhook = WebhookBackend::load(
        &settings.config_file,
        settings.initial_backoff,
        metrics.clone(),
    )
    .await
    .map_err(|e| format!("initializing audit webhook: {e}"))?;
    let webhook = in_mode(Arc::new(webhook), &settings.mode, metrics);
    Ok(truncated(webhook, settings.truncate, metrics))
}

/// kube's `AuditBatchOptions.wrapBackend`.
fn in_mode(backend: Arc<dyn Backend>, mode: &Mode, metrics: &AuditMetrics) -> Arc<dyn Backend> {
    match mode {
        Mode::BlockingStrict => backend,
        Mode::Blocking => Arc::new(IgnoreErrors(backend)),
        Mode::Batch(config) => Arc::new(Buffered::start(backend, config, metrics.clone())),
    }
}

/// kube's `AuditTruncateOptions.wrapBackend`.
fn truncated(
    backend: Arc<dyn Backend>,
    truncate: Option<TruncateConfig>,
    metrics: &AuditMetrics,
) -> Arc<dyn Backend> {
    match truncate {
        None => backend,
        Some(config) => Arc::new(Truncating {
            delegate: backend,
            config,
            metrics: metrics.clone(),
        }),
    }
}
