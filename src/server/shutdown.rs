//! The shutdown sequence on SIGTERM or SIGINT, as k8s.io/apiserver's lifecycle signals:
//! 1. `/readyz` fails (load balancers and the aggregator stop sending new requests);
//! 2. for `--shutdown-delay-duration` everything is still served, so requests that
//!    endpoints route here before they notice step 1 succeed (a second signal cuts the
//!    delay short);
//! 3. open watches end cleanly (their streams close, clients re-list elsewhere);
//! 4. the listener stops accepting;
//! 5. in-flight requests finish and connections close, for at most `--shutdown-timeout`.

use std::sync::Arc;
use std::time::Duration;

use crate::handlers::AppState;

/// Resolves on the next SIGTERM or SIGINT.
pub async fn signal() {
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(e) => {
                tracing::error!(error = %e, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    tokio::select! {
        _ = terminate => {},
        _ = tokio::signal::ctrl_c() => {},
    }
}

/// Steps 1 to 3; the accept loop does 4 and 5 once this resolves.
pub async fn begin(state: Arc<AppState>, delay: Duration) {
    signal().await;
    state.lifecycle.mark_not_ready();
    if !delay.is_zero() {
        tracing::info!(
            delay_seconds = delay.as_secs_f64(),
            "shutdown: readyz now fails; still serving during the shutdown delay"
        );
        tokio::select! {
            _ = tokio::time::sleep(delay) => {},
            _ = signal() => tracing::info!("shutdown: second signal, delay cut short"),
        }
    }
    tracing::info!("shutdown: ending watches and draining requests");
    state.lifecycle.end_watches();
}
