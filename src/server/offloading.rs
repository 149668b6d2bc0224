//! Start-up wiring of offload mode (`--offload-selector`): once the serving state exists,
//! the host's client, our username there (the real [`Mover`]'s SelfSubjectReview, retried
//! until the host answers), and offload's controller with its Lease in the service
//! namespace.

use std::sync::Arc;
use std::time::Duration;

use crate::config::validate::Config;
use crate::handlers::AppState;
use crate::offload::metrics::OffloadMetrics;
use crate::offload::steps::Mover;
use crate::register::desired::Desired;
use crate::selector::label::LabelSelector;

const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// Starts offload mode in the background when `--offload-selector` is set (validation
/// made it require `--register-apiservices`, whose `desired` APIServices the switch writes).
pub fn start(
    config: &Config,
    state: Arc<AppState>,
    desired: Option<Desired>,
    metrics: OffloadMetrics,
) {
    let Some(selector) = config.flags.offload.offload_selector.as_deref() else {
        return;
    };
    let (selector, desired) = match (LabelSelector::parse(selector), desired) {
        (Ok(selector), Some(desired)) => (selector, desired),
        (Err(e), _) => {
            tracing::error!(error = %e, "--offload-selector: not a label selector; offload mode is off");
            return;
        }
        (_, None) => {
            tracing::error!("--offload-selector needs --register-apiservices; offload mode is off");
            return;
        }
    };
    let kubeconfig = config.flags.auth.kubeconfig.clone();
    tokio::spawn(async move {
        let client = match crate::cluster::client::delegation_client(kubeconfig.as_deref(), None)
            .await
        {
            Ok(Some(client)) => client,
            Ok(None) => {
                tracing::error!(
                    "--offload-selector needs a cluster: --kubeconfig, or run in-cluster; offload mode is off"
                );
                return;
            }
            Err(e) => {
                tracing::error!(error = %e, "offload mode is off");
                return;
            }
        };
        let namespace = desired.route.service_namespace.clone();
        let mut backoff = Duration::from_secs(1);
        let mover = loop {
            match Mover::new(client.clone(), state.clone(), desired.clone()).await {
                Ok(mover) => break mover,
                Err(e) => {
                    tracing::warn!(error = %e, retry_in = ?backoff, "offload: asking the host who we are failed");
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(MAX_BACKOFF);
                }
            }
        };
        crate::offload::controller::start(client, Arc::new(mover), selector, &namespace, metrics);
    });
}
