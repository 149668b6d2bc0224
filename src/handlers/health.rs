//! Health and version: `/healthz`, `/livez`, `/readyz` (with `?verbose` and per-check
//! paths such as `/readyz/etcd`), and `/version`.

use std::sync::Arc;

use http::StatusCode;
use serde_json::json;

use crate::error::ApiError;
use crate::handlers::{AppState, Call, Reply};
use crate::request::negotiate::Representation;

/// One named check and its result.
struct Check {
    name: &'static str,
    result: Result<(), String>,
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
        let storage = state.store.check().await.map_err(|e| e.to_string());
        checks.push(Check {
            name: "etcd",
            result: storage,
        });
    }
    if endpoint == "readyz" {
        let shutdown = if state.lifecycle.is_ready() {
            Ok(())
        } else {
            Err("process is shutting down".into())
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
    for c in &checks {
        if let Err(reason) = &c.result {
            tracing::warn!(endpoint, check = c.name, %reason, "health check failed");
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
