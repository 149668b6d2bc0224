//! The audit flags checked as kube's `AuditOptions.Validate` checks them (each backend's
//! only when it is enabled), with kube's texts, into [`AuditSettings`]; the policy file
//! is read and checked here too, so its problems come with the others.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use super::{AuditFlags, LogFlags, WebhookFlags};
use crate::audit::backend::settings::{
    AuditSettings, BatchConfig, Format, LogSettings, LogTarget, Mode, Rotation, Throttle,
    TruncateConfig, WebhookSettings,
};
use crate::audit::policy::Policy;
use crate::config::validate::Problems;

/// kube's `AllowedModes`.
const ALLOWED_MODES: &str = "batch,blocking,blocking-strict";
/// kube's `AllowedFormats`.
const ALLOWED_FORMATS: &str = "legacy,json";

/// A plugin's batch flags, whichever plugin they are.
struct Batch {
    buffer_size: i64,
    max_size: i64,
    max_wait: Duration,
    throttle_enable: bool,
    throttle_qps: f32,
    throttle_burst: i64,
    async_delegate: bool,
}

impl Problems {
    /// Checks the audit flags (each backend's only when it is enabled, as kube does).
    pub(in crate::config) fn audit(&mut self, flags: &AuditFlags) -> Option<AuditSettings> {
        let before = self.count();
        // kube's whole text (`loading audit policy file: …`).
        let policy = flags
            .audit_policy_file
            .as_ref()
            .and_then(|path| match Policy::load(path) {
                Ok(policy) => Some(Arc::new(policy)),
                Err(text) => {
                    self.add("audit-policy-file", text);
                    None
                }
            });
        let log = flags
            .log
            .audit_log_path
            .as_ref()
            .filter(|p| !p.as_os_str().is_empty())
            .map(|path| self.audit_log(path, &flags.log));
        let webhook = flags
            .webhook
            .audit_webhook_config_file
            .as_ref()
            .filter(|p| !p.as_os_str().is_empty())
            .map(|path| self.audit_webhook(path, &flags.webhook));
        (self.count() == before).then(|| AuditSettings {
            policy,
            log: log.flatten(),
            webhook: webhook.flatten(),
        })
    }

    fn audit_log(&mut self, path: &Path, flags: &LogFlags) -> Option<LogSettings> {
        let b = &flags.batch;
        let batch = Batch {
            buffer_size: b.buffer_size,
            max_size: b.max_size,
            max_wait: b.max_wait,
            throttle_enable: b.throttle_enable,
            throttle_qps: b.throttle_qps,
            throttle_burst: b.throttle_burst,
            async_delegate: false,
        };
        let mode = self.audit_mode("log", &flags.audit_log_mode, &batch);
        let t = &flags.truncate;
        let truncate = self.audit_truncate("log", t.enabled, t.max_batch_size, t.max_event_size);
        self.audit_version("audit-log-version", &flags.audit_log_version);
        let format = match flags.audit_log_format.as_str() {
            "json" => Some(Format::Json),
            "legacy" => Some(Format::Legacy),
            other => {
                self.add(
                    "audit-log-format",
                    format!(
                        "invalid audit log format {other}, allowed formats are {ALLOWED_FORMATS:?}"
                    ),
                );
                None
            }
        };
        let max_age = self.not_negative("audit-log-maxage", flags.audit_log_maxage);
        let max_backups = self.not_negative("audit-log-maxbackup", flags.audit_log_maxbackup);
        let max_size = self.not_negative("audit-log-maxsize", flags.audit_log_maxsize);
        let target = match path.as_os_str() == "-" {
            true => LogTarget::Stdout,
            false => LogTarget::File(Rotation {
                path: path.to_path_buf(),
                max_size_mb: max_size?,
                max_age_days: max_age?,
                max_backups: usize::try_from(max_backups?).ok()?,
                compress: flags.audit_log_compress,
            }),
        };
        Some(LogSettings {
            target,
            format: format?,
            mode: mode?,
            truncate: truncate?,
        })
    }

    fn audit_webhook(&mut self, path: &Path, flags: &WebhookFlags) -> Option<WebhookSettings> {
        if !path.is_file() {
            // kube's text when it loads the file (`initializing audit webhook: stat …`).
            let why = match path.exists() {
                true => "not a regular file",
                false => "no such file or directory",
            };
            self.add(
                "audit-webhook-config-file",
                format!("initializing audit webhook: stat {}: {why}", path.display()),
            );
        }
        let b = &flags.batch;
        let batch = Batch {
            buffer_size: b.buffer_size,
            max_size: b.max_size,
            max_wait: b.max_wait,
            throttle_enable: b.throttle_enable,
            throttle_qps: b.throttle_qps,
            throttle_burst: b.throttle_burst,
            async_delegate: true,
        };
        let mode = self.audit_mode("webhook", &flags.audit_webhook_mode, &batch);
        let t = &flags.truncate;
        let truncate =
            self.audit_truncate("webhook", t.enabled, t.max_batch_size, t.max_event_size);
        self.audit_version("audit-webhook-version", &flags.audit_webhook_version);
        Some(WebhookSettings {
            config_file: path.to_path_buf(),
            initial_backoff: flags.audit_webhook_initial_backoff,
            mode: mode?,
            truncate: truncate?,
        })
    }

    /// kube's `validateBackendBatchOptions` (batch options checked in batch mode only).
    fn audit_mode(&mut self, plugin: &str, mode: &str, b: &Batch) -> Option<Mode> {
        let flag = format!("audit-{plugin}-mode");
        match mode {
            "blocking" => return Some(Mode::Blocking),
            "blocking-strict" => return Some(Mode::BlockingStrict),
            "batch" => {}
            other => {
                self.add(
                    &flag,
                    format!(
                        "invalid audit {plugin} mode {other}, allowed modes are {ALLOWED_MODES:?}"
                    ),
                );
                return None;
            }
        }
        let before = self.count();
        let positive = |value: i64| usize::try_from(value).ok().filter(|v| *v > 0);
        if positive(b.buffer_size).is_none() {
            self.add(
                &format!("audit-{plugin}-batch-buffer-size"),
                format!(
                    "invalid audit batch {plugin} buffer size {}, must be a positive number",
                    b.buffer_size
                ),
            );
        }
        if positive(b.max_size).is_none() {
            self.add(
                &format!("audit-{plugin}-batch-max-size"),
                format!(
                    "invalid audit batch {plugin} max batch size {}, must be a positive number",
                    b.max_size
                ),
            );
        }
        if b.throttle_enable && b.throttle_qps <= 0.0 {
            self.add(
                &format!("audit-{plugin}-batch-throttle-qps"),
                format!(
                    "invalid audit batch {plugin} throttle QPS {}, must be a positive number",
                    b.throttle_qps
                ),
            );
        }
        if b.throttle_enable && b.throttle_burst <= 0 {
            self.add(
                &format!("audit-{plugin}-batch-throttle-burst"),
                format!(
                    "invalid audit batch {plugin} throttle burst {}, must be a positive number",
                    b.throttle_burst
                ),
            );
        }
        if self.count() != before {
            return None;
        }
        Some(Mode::Batch(BatchConfig {
            buffer_size: positive(b.buffer_size)?,
            max_batch_size: positive(b.max_size)?,
            max_batch_wait: b.max_wait,
            throttle: b.throttle_enable.then(|| Throttle {
                qps: b.throttle_qps,
                burst: positive(b.throttle_burst).unwrap_or(1),
            }),
            async_delegate: b.async_delegate,
        }))
    }

    /// kube's `AuditTruncateOptions.Validate` (checked whether enabled or not, as kube
    /// does); `Some(None)` when valid and disabled.
    fn audit_truncate(
        &mut self,
        plugin: &str,
        enabled: bool,
        max_batch_size: i64,
        max_event_size: i64,
    ) -> Option<Option<TruncateConfig>> {
        if max_event_size <= 0 {
            self.add(
                &format!("audit-{plugin}-truncate-max-event-size"),
                format!("invalid audit truncate {plugin} max event size {max_event_size}, must be a positive number"),
            );
            return None;
        }
        if max_batch_size < max_event_size {
            self.add(
                &format!("audit-{plugin}-truncate-max-batch-size"),
                format!("invalid audit truncate {plugin} max batch size {max_batch_size}, must be greater than max event size ({max_event_size})"),
            );
            return None;
        }
        Some(enabled.then_some(TruncateConfig {
            max_event_size: max_event_size.unsigned_abs(),
            max_batch_size: max_batch_size.unsigned_abs(),
        }))
    }

    /// kube's `validateGroupVersionString`: only `audit.k8s.io/v1` is known.
    fn audit_version(&mut self, flag: &str, version: &str) {
        if version.matches('/').count() > 1 {
            self.add(flag, format!("unexpected GroupVersion string: {version}"));
        } else if version != "audit.k8s.io/v1" {
            self.add(
                flag,
                "invalid group version, allowed versions are [\"audit.k8s.io/v1\"]",
            );
        }
    }

    fn not_negative(&mut self, flag: &str, value: i64) -> Option<u64> {
        match u64::try_from(value) {
            Ok(value) => Some(value),
            Err(_) => {
                self.add(flag, format!("--{flag} {value} can't be a negative number"));
                None
            }
        }
    }
}
