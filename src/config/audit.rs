//! kube's audit flags (k8s.io/apiserver pkg/server/options/audit.go): the policy file,
//! the log backend's and the webhook backend's, with kube's names, defaults and
//! validation texts, checked into `AuditSettings` (`audit_check.rs`).

use std::path::PathBuf;
use std::time::Duration;

use clap::{ArgAction, Args};

use super::parse_duration;

/// The audit flags, flattened into the serve flags.
#[derive(Args, Debug, Clone)]
pub struct AuditFlags {
    /// Path to the file that defines the audit policy configuration.
    #[arg(long = "audit-policy-file")]
    pub audit_policy_file: Option<PathBuf>,
    #[command(flatten)]
    pub log: LogFlags,
    #[command(flatten)]
    pub webhook: WebhookFlags,
}

/// `--audit-log-*`.
#[derive(Args, Debug, Clone)]
pub struct LogFlags {
    /// If set, all requests coming to the apiserver will be logged to this file. '-' means standard out.
    #[arg(long = "audit-log-path")]
    pub audit_log_path: Option<PathBuf>,
    /// The maximum number of days to retain old audit log files based on the timestamp
    /// encoded in their filename; 0 keeps them.
    #[arg(
        long = "audit-log-maxage", value_parser = go_int("audit-log-maxage"),
        default_value_t = 366,
        allow_negative_numbers = true
    )]
    pub audit_log_maxage: i64,
    /// The maximum number of old audit log files to retain; 0 keeps them all.
    #[arg(
        long = "audit-log-maxbackup", value_parser = go_int("audit-log-maxbackup"),
        default_value_t = 100,
        allow_negative_numbers = true
    )]
    pub audit_log_maxbackup: i64,
    /// The maximum size in megabytes of the audit log file before it gets rotated; 0 disables rotation.
    #[arg(
        long = "audit-log-maxsize", value_parser = go_int("audit-log-maxsize"),
        default_value_t = 100,
        allow_negative_numbers = true
    )]
    pub audit_log_maxsize: i64,
    /// Format of saved audits: "legacy" (1-line text) or "json" (structured).
    #[arg(long = "audit-log-format", default_value = "json")]
    pub audit_log_format: String,
    /// If set, the rotated log files will be compressed using gzip.
    #[arg(long = "audit-log-compress", action = ArgAction::Set, num_args = 0..=1,
        default_value_t = false, default_missing_value = "true")]
    pub audit_log_compress: bool,
    /// API group and version used for serializing audit events written to log.
    #[arg(long = "audit-log-version", default_value = "audit.k8s.io/v1")]
    pub audit_log_version: String,
    /// Strategy for sending audit events: blocking, batch or blocking-strict.
    #[arg(long = "audit-log-mode", default_value = "blocking")]
    pub audit_log_mode: String,
    #[command(flatten)]
    pub batch: LogBatchFlags,
    #[command(flatten)]
    pub truncate: LogTruncateFlags,
}

/// `--audit-webhook-*`.
#[derive(Args, Debug, Clone)]
pub struct WebhookFlags {
    /// Path to a kubeconfig formatted file that defines the audit webhook configuration.
    #[arg(long = "audit-webhook-config-file")]
    pub audit_webhook_config_file: Option<PathBuf>,
    /// The amount of time to wait before retrying the first failed request.
    #[arg(long = "audit-webhook-initial-backoff", alias = "audit-webhook-batch-initial-backoff",
        default_value = "10s", value_parser = parse_duration)]
    pub audit_webhook_initial_backoff: Duration,
    /// API group and version used for serializing audit events written to webhook.
    #[arg(long = "audit-webhook-version", default_value = "audit.k8s.io/v1")]
    pub audit_webhook_version: String,
    /// Strategy for sending audit events: batch, blocking or blocking-strict.
    #[arg(long = "audit-webhook-mode", default_value = "batch")]
    pub audit_webhook_mode: String,
    #[command(flatten)]
    pub batch: WebhookBatchFlags,
    #[command(flatten)]
    pub truncate: WebhookTruncateFlags,
}

/// One plugin's `--audit-<plugin>-batch-*` (kube registers the same set for both, with
/// each plugin's defaults).
macro_rules! batch_flags {
    ($name:ident, $plugin:literal, $size:literal, $max:literal, $wait:literal, $throttle:literal, $qps:literal, $burst:literal) => {
        #[doc = concat!("`--audit-", $plugin, "-batch-*` (used only in batch mode).")]
        #[derive(Args, Debug, Clone)]
        pub struct $name {
            /// The size of the buffer to store events before batching and writing.
            #[arg(id = concat!("audit-", $plugin, "-batch-buffer-size"), long = concat!("audit-", $plugin, "-batch-buffer-size"), value_parser = go_int(concat!("audit-", $plugin, "-batch-buffer-size")), default_value_t = $size, allow_negative_numbers = true)]
            pub buffer_size: i64,
            /// The maximum size of a batch.
            #[arg(id = concat!("audit-", $plugin, "-batch-max-size"), long = concat!("audit-", $plugin, "-batch-max-size"), value_parser = go_int(concat!("audit-", $plugin, "-batch-max-size")), default_value_t = $max, allow_negative_numbers = true)]
            pub max_size: i64,
            /// The amount of time to wait before force writing the batch that hadn't reached the max size.
            #[arg(id = concat!("audit-", $plugin, "-batch-max-wait"), long = concat!("audit-", $plugin, "-batch-max-wait"), default_value = $wait, value_parser = parse_duration)]
            pub max_wait: Duration,
            /// Whether batching throttling is enabled.
            #[arg(id = concat!("audit-", $plugin, "-batch-throttle-enable"), long = concat!("audit-", $plugin, "-batch-throttle-enable"), action = ArgAction::Set,
                num_args = 0..=1, default_value_t = $throttle, default_missing_value = "true")]
            pub throttle_enable: bool,
            /// Maximum average number of batches per second.
            #[arg(id = concat!("audit-", $plugin, "-batch-throttle-qps"), long = concat!("audit-", $plugin, "-batch-throttle-qps"), value_parser = go_float(concat!("audit-", $plugin, "-batch-throttle-qps")), default_value_t = $qps, allow_negative_numbers = true)]
            pub throttle_qps: f32,
            /// Maximum number of requests sent at the same moment if ThrottleQPS was not utilized before.
            #[arg(id = concat!("audit-", $plugin, "-batch-throttle-burst"), long = concat!("audit-", $plugin, "-batch-throttle-burst"), value_parser = go_int(concat!("audit-", $plugin, "-batch-throttle-burst")), default_value_t = $burst, allow_negative_numbers = true)]
            pub throttle_burst: i64,
        }
    };
}

batch_flags!(LogBatchFlags, "log", 10000, 1, "0", false, 0.0, 0);
batch_flags!(
    WebhookBatchFlags,
    "webhook",
    10000,
    400,
    "30s",
    true,
    10.0,
    15
);

/// One plugin's `--audit-<plugin>-truncate-*`.
macro_rules! truncate_flags {
    ($name:ident, $plugin:literal) => {
        #[doc = concat!("`--audit-", $plugin, "-truncate-*`.")]
        #[derive(Args, Debug, Clone)]
        pub struct $name {
            /// Whether event and batch truncating is enabled.
            #[arg(id = concat!("audit-", $plugin, "-truncate-enabled"), long = concat!("audit-", $plugin, "-truncate-enabled"), action = ArgAction::Set,
                num_args = 0..=1, default_value_t = false, default_missing_value = "true")]
            pub enabled: bool,
            /// Maximum size of the batch sent to the underlying backend; larger batches are split.
            #[arg(id = concat!("audit-", $plugin, "-truncate-max-batch-size"), long = concat!("audit-", $plugin, "-truncate-max-batch-size"), value_parser = go_int(concat!("audit-", $plugin, "-truncate-max-batch-size")), default_value_t = 10 * 1024 * 1024, allow_negative_numbers = true)]
            pub max_batch_size: i64,
            /// Maximum size of the audit event sent to the underlying backend: larger events
            /// lose their request and response, and are dropped if still larger.
            #[arg(id = concat!("audit-", $plugin, "-truncate-max-event-size"), long = concat!("audit-", $plugin, "-truncate-max-event-size"), value_parser = go_int(concat!("audit-", $plugin, "-truncate-max-event-size")), default_value_t = 100 * 1024, allow_negative_numbers = true)]
            pub max_event_size: i64,
        }
    };
}

truncate_flags!(LogTruncateFlags, "log");
truncate_flags!(WebhookTruncateFlags, "webhook");

/// pflag's integer flag: Go's texts for a value that is not one (`invalid argument
/// "ten" for "--audit-log-maxage" flag: strconv.ParseInt: parsing "ten": invalid syntax`).
fn go_int(flag: &'static str) -> impl Fn(&str) -> Result<i64, String> + Clone + Send + Sync {
    move |value: &str| {
        value.parse::<i64>().map_err(|e| {
            let why = match e.kind() {
                std::num::IntErrorKind::PosOverflow | std::num::IntErrorKind::NegOverflow => {
                    "value out of range"
                }
                _ => "invalid syntax",
            };
            format!("invalid argument {value:?} for \"--{flag}\" flag: strconv.ParseInt: parsing {value:?}: {why}")
        })
    }
}

/// pflag's float flag, with Go's texts as [`go_int`].
fn go_float(flag: &'static str) -> impl Fn(&str) -> Result<f32, String> + Clone + Send + Sync {
    move |value: &str| {
        value.parse::<f32>().map_err(|_| {
            format!("invalid argument {value:?} for \"--{flag}\" flag: strconv.ParseFloat: parsing {value:?}: invalid syntax")
        })
    }
}

#[path = "audit_check.rs"]
mod check;

#[cfg(test)]
#[path = "audit_tests.rs"]
mod tests;
