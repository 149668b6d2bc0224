//! What the audit backends are built from ([`AuditSettings`]): kube's `AuditOptions`
//! (k8s.io/apiserver pkg/server/options/audit.go) once the `--audit-*` flags are checked.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::audit::policy::Policy;

/// kube's `DefaultInitialBackoffDelay` (`--audit-webhook-initial-backoff`).
pub const DEFAULT_INITIAL_BACKOFF: Duration = Duration::from_secs(10);

/// The audit configuration: the policy and the backends it feeds.
#[derive(Clone, Debug, Default)]
pub struct AuditSettings {
    /// `--audit-policy-file`, read and checked; without it no event is recorded (kube
    /// builds no backend).
    pub policy: Option<Arc<Policy>>,
    /// `--audit-log-path` and its options.
    pub log: Option<LogSettings>,
    /// `--audit-webhook-config-file` and its options.
    pub webhook: Option<WebhookSettings>,
}

/// The log backend: where and how lines are written.
#[derive(Clone, Debug, PartialEq)]
pub struct LogSettings {
    pub target: LogTarget,
    pub format: Format,
    pub mode: Mode,
    pub truncate: Option<TruncateConfig>,
}

/// `--audit-log-path`: `-` is standard out; a file is rotated as lumberjack rotates it.
#[derive(Clone, Debug, PartialEq)]
pub enum LogTarget {
    Stdout,
    File(Rotation),
}

/// lumberjack's options (`--audit-log-maxsize/maxage/maxbackup/compress`).
#[derive(Clone, Debug, PartialEq)]
pub struct Rotation {
    pub path: PathBuf,
    /// Megabytes (MiB) before the file is rotated; 0 disables rotation.
    pub max_size_mb: u64,
    /// Days a backup is kept (by the timestamp in its name); 0 keeps them.
    pub max_age_days: u64,
    /// Backups kept; 0 keeps them all.
    pub max_backups: usize,
    /// Rotated files are gzipped.
    pub compress: bool,
}

/// `--audit-log-format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// One JSON `Event` per line.
    Json,
    /// kube's one-line text (`audit.EventString`).
    Legacy,
}

/// `--audit-<plugin>-mode`.
#[derive(Clone, Debug, PartialEq)]
pub enum Mode {
    /// Buffered and sent asynchronously; a full buffer drops the event (counted).
    Batch(BatchConfig),
    /// The request waits for the backend; its failures are only counted.
    Blocking,
    /// As blocking, and a failure at RequestReceived fails the request.
    BlockingStrict,
}

/// kube's `buffered.BatchConfig`.
#[derive(Clone, Debug, PartialEq)]
pub struct BatchConfig {
    pub buffer_size: usize,
    pub max_batch_size: usize,
    /// Used only when `max_batch_size` > 1.
    pub max_batch_wait: Duration,
    pub throttle: Option<Throttle>,
    /// Whether each batch is handed on in its own task (the webhook) or in turn (the log).
    pub async_delegate: bool,
}

/// Batches per second and burst (client-go's token bucket).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Throttle {
    pub qps: f32,
    pub burst: usize,
}

/// kube's `truncate.Config` (`--audit-<plugin>-truncate-*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TruncateConfig {
    pub max_event_size: u64,
    pub max_batch_size: u64,
}

/// The webhook backend.
#[derive(Clone, Debug, PartialEq)]
pub struct WebhookSettings {
    /// A kubeconfig naming the receiver.
    pub config_file: PathBuf,
    /// The first retry's delay (then × 1.5, with 20% jitter, 5 attempts).
    pub initial_backoff: Duration,
    pub mode: Mode,
    pub truncate: Option<TruncateConfig>,
}

impl BatchConfig {
    /// kube's `defaultLogBatchConfig`: one event per batch, handed on in turn.
    pub fn log_default() -> BatchConfig {
        BatchConfig {
            buffer_size: 10_000,
            max_batch_size: 1,
            max_batch_wait: Duration::ZERO,
            throttle: None,
            async_delegate: false,
        }
    }

    /// kube's `defaultWebhookBatchConfig`.
    pub fn webhook_default() -> BatchConfig {
        BatchConfig {
            buffer_size: 10_000,
            max_batch_size: 400,
            max_batch_wait: Duration::from_secs(30),
            throttle: Some(Throttle {
                qps: 10.0,
                burst: 15,
            }),
            async_delegate: true,
        }
    }
}

impl TruncateConfig {
    /// kube's `NewAuditTruncateOptions`: 100 KiB events, 10 MiB batches.
    pub const DEFAULT: TruncateConfig = TruncateConfig {
        max_event_size: 100 * 1024,
        max_batch_size: 10 * 1024 * 1024,
    };
}
