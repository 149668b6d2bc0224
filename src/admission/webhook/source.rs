//! Where the webhooks come from: the host cluster's `admissionregistration.k8s.io/v1`
//! MutatingWebhookConfigurations and ValidatingWebhookConfigurations, each kind listed
//! and watched through the one cluster client (kube's configuration managers over
//! shared informers), compiled into a [`Hooks`] snapshot that follows every change
//! without a restart. Without a cluster (dev mode) there are no webhooks.
//!
//! - [`configurations`]: the followed objects, compiled once each, and the snapshot.

pub mod configurations;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::admissionregistration::v1::{
    MutatingWebhookConfiguration, ValidatingWebhookConfiguration,
};
use kube::api::Api;

use super::hook::Hooks;
use crate::cluster::client::{ClientError, delegation_client};
use crate::cluster::informer::Reflector;
use configurations::Configurations;

/// The webhooks of this server: none (no cluster) or followed from the cluster.
#[derive(Clone)]
pub enum Source {
    /// No cluster: never any webhook.
    None(Arc<Hooks>),
    /// Followed from the host cluster.
    Followed(Arc<Configurations>),
}

impl Source {
    /// No webhooks, ever (dev mode: no `--kubeconfig` and not in a cluster).
    pub fn none() -> Source {
        Source::None(Arc::default())
    }

    /// Follows the configurations of the cluster `--kubeconfig` (else in-cluster) names;
    /// [`Source::none`] when there is no cluster.
    pub async fn from_cluster(kubeconfig: Option<&Path>) -> Result<Source, ClientError> {
        Ok(match delegation_client(kubeconfig, None).await? {
            Some(client) => Source::follow(client),
            None => Source::none(),
        })
    }

    /// Spawns the two informers over `client` (within a tokio runtime).
    pub fn follow(client: kube::Client) -> Source {
        let configurations = Arc::new(Configurations::default());
        let mutating: Api<MutatingWebhookConfiguration> = Api::all(client.clone());
        let validating: Api<ValidatingWebhookConfiguration> = Api::all(client);
        let shared = configurations.clone();
        let what = "mutatingwebhookconfigurations";
        tokio::spawn(Reflector::new(mutating, shared.clone(), what).run());
        let what = "validatingwebhookconfigurations";
        tokio::spawn(Reflector::new(validating, shared, what).run());
        Source::Followed(configurations)
    }

    /// Whether the configurations come from a cluster.
    pub fn is_followed(&self) -> bool {
        matches!(self, Source::Followed(_))
    }

    /// The hooks now; `None` until both kinds have listed (kube's `HasSynced`).
    pub fn current(&self) -> Option<Arc<Hooks>> {
        match self {
            Source::None(hooks) => Some(hooks.clone()),
            Source::Followed(configurations) => configurations.current(),
        }
    }

    /// Waits up to `within` for both first lists; whether they have arrived.
    pub async fn wait_synced(&self, within: Duration) -> bool {
        let Source::Followed(configurations) = self else {
            return true;
        };
        let mut synced = configurations.synced();
        let arrived = tokio::time::timeout(within, synced.wait_for(|s| *s)).await;
        matches!(arrived, Ok(Ok(_)))
    }
}
