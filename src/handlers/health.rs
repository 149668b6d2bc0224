//! Health and version: `/healthz`, `/livez`, `/readyz` (with `?verbose` and per-check
//! paths such as `/readyz/etcd`; `kms-providers` on healthz and readyz when a KMS v2
//! provider is configured), and `/version`.
//!
//! The probes are open to anyone (kube's always-allow paths), so they must stay cheap: the
//! storage check runs at most once per [`STORAGE_CHECK_TTL`] whatever the probe rate
//! (concurrent probes share the check in flight), and failures are logged at most once
//! per [`FAILURE_LOG_INTERVAL`].

use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use http::StatusCode;
use serde_json::json;
use tokio::time::Instant;

use crate::error::ApiError;
use crate::handlers::{AppState, Call, Reply};
use crate::request::negotiate::Representation;
use crate::storage::StorageError;

/// How long one storage check answers the probes.
pub const STORAGE_CHECK_TTL: Duration = Duration::from_secs(1);
/// How long one storage check may take before it counts as failed.
pub const STORAGE_CHECK_TIMEOUT: Duration = Duration::from_secs(2);
/// Failed checks are logged at most this often.
pub const FAILURE_LOG_INTERVAL: Duration = Duration::from_secs(10);

/// Why a health check failed; logged, never shown to the prober.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
enum CheckError {
    /// The storage backend's check failed (the `etcd` check).
    #[error(transparent)]
    Storage(#[from] StorageError),
    /// The watch cache has not listed every resource yet (the `watch-cache` check).
    #[error("the watch cache is not filled yet")]
    CacheFilling,
    /// A KMS v2 plugin failed its Status check (the `kms-providers` check).
    #[error("{0}")]
    Kms(String),
    /// Shutdown has begun (the `shutdown` check of `/readyz`).
    #[error("process is shutting down")]
    ShuttingDown,
}

/// The storage check as the probes see it, and when a failure was last logged.
#[derive(Default)]
pub struct StorageProbe {
    last: tokio::sync::Mutex<Option<(Instant, Result<(), StorageError>)>>,
    logged: Mutex<Option<Instant>>,
}

impl StorageProbe {
    /// The last result if it is fresh, else the result of `run` (one at a time: probes
    /// arriving meanwhile wait for it and share it).
    pub async fn check<F>(&self, run: impl FnOnce() -> F) -> Result<(), StorageError>
    where
        F: Future<Output = Result<(), StorageError>>,
    {
        let mut last = self.last.lock().await;
        if let Some((at, result)) = last.as_ref()
            && at.elapsed() < STORAGE_CHECK_TTL
        {
            return result.clone();
        }
        // Bounded as kube bounds its etcd health check (`--etcd-healthcheck-timeout`, 2 s),
        // so probes queued behind a hung store answer instead of piling up.
        let result = tokio::time::timeout(STORAGE_CHECK_TIMEOUT, run())
            .await
            .unwrap_or_else(|_| {
                Err(StorageError::Timeout(
                    "the storage health check did not answer in time".into(),
                ))
            });
        *last = Some((Instant::now(), result.clone()));
        result
    }

    /// True when a failure may be logged now (and then not again for a while).
    fn may_log(&self) -> bool {
        let mut logged = self.logged.lock().unwrap_or_else(PoisonError::into_inner);
        if logged.is_some_and(|at| at.elapsed() < FAILURE_LOG_INTERVAL) {
            return false;
        }
        *logged = Some(Instant::now());
        true
    }
}

/// One named check and its result.
struct Check {
    name: &'static str,
    result: Result<(), CheckError>,
}

/// Runs the checks of one endpoint. Readiness includes storage and shutdown; liveness
/// does not, so a storage outage never restarts the process.
async fn run_checks(state: &AppState, endpoint: &str) -> Vec<Check> {
    let mut checks = vec![
        Check {
            name: "ping",
            result: Ok(()),
        },
        Check {
            name: "log",
            result: Ok(()),
        },
    ];
    if endpoint != "livez" {
        let store = state.store.clone();
        let storage = state
            .storage_probe
            .check(move || async move { store.check().await })
            .await;
        checks.push(Check {
            name: "etcd",
            result: storage.map_err(CheckError::from),
        });
    }
    // kube adds its KMS checks to healthz and readyz, not livez.
    if endpoint != "livez"
        && let Some(kms) = crate::storage::encryption::kms::health().await
    {
        checks.push(Check {
            name: "kms-providers",
            result: kms.map_err(CheckError::Kms),
        });
    }
    if endpoint == "readyz"
        && let Some(cache) = &state.cache
    {
        checks.push(Check {
            name: "watch-cache",
            result: if cache.ready() {
                Ok(())
            } else {
                Err(CheckError::CacheFilling)
            },
        });
    }
    if endpoint == "readyz" {
        let shutdown = if state.lifecycle.is_ready() {
            Ok(())
        } else {
            Err(CheckError::ShuttingDown)
        };
        checks.push(Check {
            name: "shutdown",
            result: shutdown,
        });
    }
    checks
}

pub async fn check(state: &Arc<AppState>, call: &Call, parts: &[&str]) -> Result<Reply, ApiError> {
    let endpoint = parts.first().copied().unwrap_or("healthz");
    let mut checks = run_checks(state, endpoint).await;
    if let Some(only) = parts.get(1) {
        checks.retain(|c| c.name == *only);
        if checks.is_empty() || parts.len() > 2 {
            return Err(ApiError::PathNotFound);
        }
    }
    let verbose = call.query.iter().any(|(k, _)| k == "verbose");
    let failed = checks.iter().any(|c| c.result.is_err());
    if failed && state.storage_probe.may_log() {
        for c in &checks {
            if let Err(reason) = &c.result {
                tracing::warn!(endpoint, check = c.name, %reason, "health check failed");
            }
        }
    }
    let code = if failed {
        StatusCode::INTERNAL_SERVER_ERROR
    } else {
        StatusCode::OK
    };
    if !verbose && !failed {
        return Ok(Reply::Text {
            code,
            body: "ok".into(),
        });
    }
    let mut body = String::new();
    for c in &checks {
        match &c.result {
            Ok(()) => body.push_str(&format!("[+]{} ok\n", c.name)),
            Err(_) => body.push_str(&format!("[-]{} failed: reason withheld\n", c.name)),
        }
    }
    let verdict = if failed { "failed" } else { "passed" };
    body.push_str(&format!("{endpoint} check {verdict}\n"));
    Ok(Reply::Text { code, body })
}

pub fn version() -> Reply {
    Reply::ok(
        json!({
            "major": "1", "minor": "33",
            "gitVersion": concat!("v", env!("CARGO_PKG_VERSION")),
            "gitCommit": "", "gitTreeState": "", "buildDate": "",
            "goVersion": "", "compiler": "rustc",
            "platform": format!("{}/{}", std::env::consts::OS, std::env::consts::ARCH),
        }),
        Representation::Json,
    )
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    #[tokio::test(start_paused = true)]
    async fn storage_probe_within_ttl_reuses_result() {
        let probe = StorageProbe::default();
        let runs = AtomicUsize::new(0);
        let run = || async {
            runs.fetch_add(1, Ordering::SeqCst);
            Err::<(), _>(StorageError::Unavailable("etcd down".into()))
        };
        for _ in 0..100 {
            assert_eq!(
                probe.check(run).await,
                Err(StorageError::Unavailable("etcd down".into()))
            );
        }
        assert_eq!(runs.load(Ordering::SeqCst), 1);
        tokio::time::advance(STORAGE_CHECK_TTL).await;
        assert!(probe.check(run).await.is_err());
        assert_eq!(runs.load(Ordering::SeqCst), 2, "checked again once stale");
    }

    #[tokio::test(start_paused = true)]
    async fn storage_probe_hung_store_times_out() {
        let probe = StorageProbe::default();
        let hung = || std::future::pending::<Result<(), StorageError>>();
        let result = probe.check(hung).await;
        assert!(
            matches!(result, Err(StorageError::Timeout(_))),
            "{result:?}"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn may_log_once_per_interval() {
        let probe = StorageProbe::default();
        assert!(probe.may_log());
        assert!(!probe.may_log());
        tokio::time::advance(FAILURE_LOG_INTERVAL - Duration::from_millis(1)).await;
        assert!(!probe.may_log());
        tokio::time::advance(Duration::from_millis(1)).await;
        assert!(probe.may_log());
    }
}
