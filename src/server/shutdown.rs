//! The shutdown sequence on SIGTERM or SIGINT:
//! 1. `/readyz` fails (load balancers and the aggregator stop sending new requests);
//! 2. the listener stops accepting;
//! 3. open watches end cleanly (their streams close, clients re-list elsewhere);
//! 4. in-flight requests finish, for at most `--shutdown-timeout`.

use std::sync::Arc;

use crate::handlers::AppState;

/// Resolves on the first SIGTERM or SIGINT.
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

/// Steps 1 and 3: readiness red, then watches end. The accept loop does 2 and 4.
pub async fn begin(state: Arc<AppState>) {
    signal().await;
    tracing::info!("shutdown: readyz now fails; ending watches and draining requests");
    state.lifecycle.mark_not_ready();
    state.lifecycle.end_watches();
}
