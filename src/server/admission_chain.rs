//! Start-up of kube's admission chain: NamespaceLifecycle, the admission policies of
//! both kinds and the admission webhooks, each following the host cluster (or nothing
//! checked without one).

use std::sync::Arc;

use crate::admission::metrics::AdmissionMetrics;
use crate::admission::namespace::NamespaceLifecycle;
use crate::admission::policy::generic::kinds::{MutatingPolicies, ValidatingPolicies};
use crate::admission::policy::generic::params::host::HostParams;
use crate::admission::policy::generic::params::served::{OwnStorage, ServedParams};
use crate::admission::policy::generic::plugin::Policies;
use crate::admission::policy::generic::source::{ParamSources, Source as PolicySource};
use crate::admission::policy::validating::typecheck::warnings::TypeChecks;
use crate::admission::webhook::dispatch::Webhooks;
use crate::admission::webhook::source::Source;
use crate::admission::{self, Plugin};
use crate::authz::Authorizer;
use crate::authz::cel::CelBridge;
use crate::config::validate::Config;
use crate::crd::live::Definitions;
use crate::server::run::StartError;
use crate::webhook::{Settings as TransportSettings, Transport as WebhookTransport};

/// kube's admission chain in `RecommendedPluginOrder` (of its plugins, those that act on
/// custom resources and are built): NamespaceLifecycle, MutatingAdmissionWebhook,
/// ValidatingAdmissionWebhook, all following the cluster of `--kubeconfig` (else
/// in-cluster); without a cluster, nothing is checked and no webhook is called.
pub async fn admission_chain(
    config: &Config,
    authorizer: &Arc<Authorizer>,
    metrics: AdmissionMetrics,
    own: OwnStorage,
    definitions: &Arc<Definitions>,
) -> Result<admission::Chain, StartError> {
    let kubeconfig = config.flags.auth.kubeconfig.as_deref();
    let delegation = |e: crate::cluster::client::ClientError| StartError::Delegation(e.to_string());
    let namespaces = NamespaceLifecycle::from_cluster(kubeconfig)
        .await
        .map_err(delegation)?;
    let source = Source::from_cluster(kubeconfig).await.map_err(delegation)?;
    if !source.is_followed() {
        tracing::warn!(
            "no --kubeconfig and not in a cluster: no admission webhooks are called (MutatingAdmissionWebhook and ValidatingAdmissionWebhook have no configurations)"
        );
    }
    // One client per plugin, each with its plugin's kubeConfigFile users.
    let admission = &config.admission;
    let transport = |users: &crate::webhook::Users| {
        WebhookTransport::new(TransportSettings {
            users: users.clone(),
            service_addresses: admission.service_addresses.clone(),
            max_response_bytes: admission.max_response_bytes,
        })
    };
    let cel_authorizer: Arc<dyn crate::cel::lib::authz::Authorizer + Send + Sync> =
        Arc::new(CelBridge::new(authorizer.clone()));
    let webhooks = Arc::new(Webhooks {
        source,
        mutating: transport(&admission.users.mutating),
        validating: transport(&admission.users.validating),
        namespaces: namespaces.clone(),
        metrics: metrics.clone(),
        authorizer: cel_authorizer.clone(),
    });
    let served = definitions.clone();
    let type_checks = Arc::new(TypeChecks {
        catalog: Arc::new(move || served.current()),
        warnings: metrics.validating_policy.type_warnings.clone(),
    });
    let (mutating, validating) = policy_sources(kubeconfig, own, type_checks)
        .await
        .map_err(delegation)?;
    let mutating = Policies {
        source: mutating,
        namespaces: namespaces.clone(),
        authorizer: cel_authorizer.clone(),
        metrics: metrics.clone(),
    };
    let validating = Policies {
        source: validating,
        namespaces: namespaces.clone(),
        authorizer: cel_authorizer,
        metrics: metrics.clone(),
    };
    let plugins = vec![
        Plugin::NamespaceLifecycle(namespaces),
        Plugin::MutatingPolicy(Arc::new(mutating)),
        Plugin::MutatingWebhook(webhooks.clone()),
        Plugin::ValidatingPolicy(Arc::new(validating)),
        Plugin::ValidatingWebhook(webhooks),
    ];
    Ok(admission::Chain::new(plugins, metrics))
}

/// The admission policies of the cluster `--kubeconfig` (else in-cluster) names, both
/// kinds over the same client and param stores (our own kinds read from `own`, the
/// others from the host), ValidatingAdmissionPolicies type checked by `type_checks`; none
/// without a cluster.
async fn policy_sources(
    kubeconfig: Option<&std::path::Path>,
    own: OwnStorage,
    type_checks: Arc<TypeChecks>,
) -> Result<
    (
        PolicySource<MutatingPolicies>,
        PolicySource<ValidatingPolicies>,
    ),
    crate::cluster::client::ClientError,
> {
    let Some(client) = crate::cluster::client::delegation_client(kubeconfig, None).await? else {
        tracing::warn!(
            "no --kubeconfig and not in a cluster: no admission policies are applied (MutatingAdmissionPolicy and ValidatingAdmissionPolicy have no policies)"
        );
        return Ok((PolicySource::none(), PolicySource::none()));
    };
    // Each plugin its own param informers, as kube's policy sources have: one source's
    // `retain` must not stop the informer another source's policies still read.
    let params = |own: OwnStorage| -> Arc<dyn ParamSources> {
        Arc::new(ServedParams {
            storage: own,
            host: Arc::new(HostParams::new(client.clone())),
        })
    };
    let (mutating, validating) = (params(own.clone()), params(own));
    Ok((
        PolicySource::follow(client.clone(), mutating),
        PolicySource::follow_with_hook(client.clone(), validating, Some(type_checks)),
    ))
}
