//! Admission stage: kube's admission chain, an ordered list of plugins the write path
//! runs after a request's object is decoded and before it is stored.
//!
//! As in k8s.io/apiserver, every plugin has a mutating phase ([`Chain::admit`]: run
//! before the object is validated, may change it) and/or a validating phase
//! ([`Chain::validate`]: run after validation, may only refuse). A create runs them on
//! the decoded object; an update, a patch, `/status` and `/scale` run them on each
//! attempt of the write loop, once the object to change was found (a missing object is
//! answered 404 before admission). Reads pass through without admission.
//!
//! The plugins run in kube's `RecommendedPluginOrder`. Of its plugins, those that act on
//! custom resources in an aggregated server are, in order: NamespaceLifecycle (here),
//! then MutatingAdmissionPolicy, MutatingAdmissionWebhook, ValidatingAdmissionPolicy
//! and ValidatingAdmissionWebhook (each a variant of [`Plugin`] when it is built).
//!
//! - [`attributes`]: what a plugin is told about the request (kube's `admission.Attributes`).
//! - [`failure`]: the `failurePolicy` webhooks and policies share.
//! - [`namespace`]: NamespaceLifecycle, fed by the host cluster's namespaces.
//! - [`policy`]: MutatingAdmissionPolicy and ValidatingAdmissionPolicy, fed by the host
//!   cluster's policies and bindings.
//! - [`webhook`]: MutatingAdmissionWebhook and ValidatingAdmissionWebhook, fed by the host
//!   cluster's webhook configurations.
//! - [`metrics`]: kube's admission metrics.

pub mod attributes;
pub mod convert;
pub mod failure;
pub mod metrics;
pub mod namespace;
pub mod policy;
pub mod reinvocation;
pub mod webhook;

pub use attributes::{Attributes, Kind, Operation, Options, Recorder};

use serde_json::Value;

use std::sync::Arc;
use std::time::Instant;

use crate::error::ApiError;
use metrics::AdmissionMetrics;
use namespace::NamespaceLifecycle;
use policy::generic::kinds::{MutatingPolicies, ValidatingPolicies};
use policy::generic::plugin::Policies;
use reinvocation::ReinvocationContext;
use webhook::dispatch::Webhooks;

/// kube's `admission.NewForbidden`: `<resource>.<group> "<name>" is forbidden: <cause>`,
/// naming the object as kube's admission errors name it.
pub fn forbidden(attributes: &Attributes<'_>, object: Option<&Value>, cause: &str) -> ApiError {
    forbidden_named(attributes, attributes.shown_name(object), cause)
}

/// kube's `apierrors.NewForbidden` for the request's resource and `name`.
pub fn forbidden_named(attributes: &Attributes<'_>, name: &str, cause: &str) -> ApiError {
    let resource = crate::error::GroupResource::new(attributes.group, attributes.resource);
    ApiError::Forbidden {
        message: format!(
            "{resource} {} is forbidden: {cause}",
            crate::gofmt::quote(name)
        ),
        resource: Some(resource),
        name: name.to_string(),
    }
}

/// Runs `work` that may block on the cluster (the CEL authorizer library asks
/// SubjectAccessReviews synchronously, as kube's does): off the runtime's worker when the
/// runtime has several, in place otherwise.
pub fn blocking<T>(work: impl FnOnce() -> T) -> T {
    match tokio::runtime::Handle::try_current().map(|h| h.runtime_flavor()) {
        Ok(tokio::runtime::RuntimeFlavor::MultiThread) => tokio::task::block_in_place(work),
        _ => work(),
    }
}

/// One admission plugin of this server.
pub enum Plugin {
    /// kube's `NamespaceLifecycle`: writes into missing or terminating namespaces refused.
    NamespaceLifecycle(NamespaceLifecycle),
    /// kube's `MutatingAdmissionPolicy`.
    MutatingPolicy(Arc<Policies<MutatingPolicies>>),
    /// kube's `MutatingAdmissionWebhook`.
    MutatingWebhook(Arc<Webhooks>),
    /// kube's `ValidatingAdmissionWebhook`.
    /// kube's `ValidatingAdmissionPolicy`.
    ValidatingPolicy(Arc<Policies<ValidatingPolicies>>),
    /// kube's `ValidatingAdmissionWebhook`.
    ValidatingWebhook(Arc<Webhooks>),
}

impl Plugin {
    /// kube's plugin name, as `--enable-admission-plugins` spells it.
    pub fn name(&self) -> &'static str {
        match self {
            Plugin::NamespaceLifecycle(_) => "NamespaceLifecycle",
            Plugin::MutatingPolicy(_) => "MutatingAdmissionPolicy",
            Plugin::MutatingWebhook(_) => "MutatingAdmissionWebhook",
            Plugin::ValidatingPolicy(_) => "ValidatingAdmissionPolicy",
            Plugin::ValidatingWebhook(_) => "ValidatingAdmissionWebhook",
        }
    }

    /// Whether the plugin is a mutating one (kube's `MutationInterface`); the others have
    /// a validating phase only (`ValidationInterface`).
    /// The span of one plugin's step (kube traces no plugin; these names are ours).
    fn span_name(&self, step: Step) -> &'static str {
        match (self, step) {
            (Plugin::NamespaceLifecycle(_), Step::Admit) => "Admit NamespaceLifecycle",
            (Plugin::MutatingPolicy(_), Step::Admit) => "Admit MutatingAdmissionPolicy",
            (Plugin::MutatingWebhook(_), Step::Admit) => "Admit MutatingAdmissionWebhook",
            (Plugin::ValidatingPolicy(_), _) => "Validate ValidatingAdmissionPolicy",
            (Plugin::ValidatingWebhook(_), _) => "Validate ValidatingAdmissionWebhook",
            (_, Step::Validate) => "Validate",
        }
    }

    fn mutates(&self) -> bool {
        match self {
            Plugin::NamespaceLifecycle(_)
            | Plugin::MutatingPolicy(_)
            | Plugin::MutatingWebhook(_) => true,
            Plugin::ValidatingPolicy(_) | Plugin::ValidatingWebhook(_) => false,
        }
    }

    /// The mutating phase (kube's `MutationInterface.Admit`): `object` is the object to
    /// be written (absent on delete), which the plugin may change; whether it did.
    async fn admit(
        &self,
        attributes: &Attributes<'_>,
        object: Option<&mut Value>,
        reinvoke: &mut ReinvocationContext,
    ) -> Result<bool, ApiError> {
        match self {
            Plugin::NamespaceLifecycle(plugin) => {
                plugin.admit(attributes, object.as_deref()).await?;
                Ok(false)
            }
            Plugin::MutatingPolicy(policies) => {
                policy::mutating::plugin::admit(policies, attributes, object, reinvoke).await
            }
            Plugin::MutatingWebhook(webhooks) => {
                webhook::mutating::admit(webhooks, attributes, object, reinvoke).await
            }
            Plugin::ValidatingPolicy(_) | Plugin::ValidatingWebhook(_) => Ok(false),
        }
    }

    /// The validating phase (kube's `ValidationInterface.Validate`).
    async fn validate(
        &self,
        attributes: &Attributes<'_>,
        object: Option<&Value>,
    ) -> Result<(), ApiError> {
        match self {
            Plugin::ValidatingPolicy(policies) => {
                policy::validating::plugin::validate(policies, attributes, object).await
            }
            Plugin::ValidatingWebhook(webhooks) => {
                webhook::validating::validate(webhooks, attributes, object).await
            }
            // NamespaceLifecycle and the mutating plugins have no validating phase.
            Plugin::NamespaceLifecycle(_)
            | Plugin::MutatingPolicy(_)
            | Plugin::MutatingWebhook(_) => Ok(()),
        }
    }
}

/// The plugins in the order they run, built once at start-up.
/// The two steps of the chain.
#[derive(Clone, Copy)]
enum Step {
    Admit,
    Validate,
}

/// A plugin step's span under the request's.
fn plugin_span(plugin: &Plugin, step: Step, operation: &'static str) -> crate::telemetry::Span {
    use crate::telemetry::KeyValue;
    crate::telemetry::Span::start(plugin.span_name(step), || {
        vec![
            KeyValue::new("plugin", plugin.name()),
            KeyValue::new("operation", operation),
        ]
    })
}

#[derive(Default)]
pub struct Chain {
    plugins: Vec<Plugin>,
    metrics: AdmissionMetrics,
}

impl Chain {
    /// The chain of these plugins, in kube's `RecommendedPluginOrder` (callers list them
    /// in that order).
    pub fn new(plugins: Vec<Plugin>, metrics: AdmissionMetrics) -> Self {
        Chain { plugins, metrics }
    }

    /// The plugins' names, in order.
    pub fn names(&self) -> Vec<&'static str> {
        self.plugins.iter().map(Plugin::name).collect()
    }

    /// The mutating phase of every plugin, in order, and once more when a plugin asked
    /// for it (kube's `reinvoker`: a policy or webhook changed the object); the first
    /// refusal is the answer. Whether a plugin changed the object.
    pub async fn admit(
        &self,
        attributes: &Attributes<'_>,
        mut object: Option<&mut Value>,
    ) -> Result<bool, ApiError> {
        let operation = attributes.operation.as_str();
        let started = Instant::now();
        let mut reinvoke = ReinvocationContext::default();
        let mut result = self
            .admit_round(attributes, object.as_deref_mut(), &mut reinvoke)
            .await;
        if matches!(result, Ok(true)) && reinvoke.should_reinvoke {
            reinvoke.is_reinvoke = true;
            let again = self.admit_round(attributes, object, &mut reinvoke).await;
            result = again.map(|_| true);
        }
        let elapsed = started.elapsed();
        self.metrics
            .observe_step("admit", operation, result.is_err(), elapsed);
        result
    }

    /// One round of the mutating phase.
    async fn admit_round(
        &self,
        attributes: &Attributes<'_>,
        mut object: Option<&mut Value>,
        reinvoke: &mut ReinvocationContext,
    ) -> Result<bool, ApiError> {
        let operation = attributes.operation.as_str();
        let mut changed = false;
        let mut result = Ok(());
        for plugin in self.plugins.iter().filter(|p| p.mutates()) {
            let plugin_started = Instant::now();
            let span = plugin_span(plugin, Step::Admit, operation);
            let admitted = span
                .scope(plugin.admit(attributes, object.as_deref_mut(), reinvoke))
                .await;
            drop(span);
            let (name, elapsed) = (plugin.name(), plugin_started.elapsed());
            let rejected = admitted.is_err();
            self.metrics
                .observe_controller(name, "admit", operation, rejected, elapsed);
            match admitted {
                Ok(c) => changed |= c,
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        result.map(|()| changed)
    }

    /// The validating phase of the ValidatingAdmissionPolicy plugin alone, `None` without
    /// it: offload's fence probe, a synthetic dry-run request that must meet the fence's
    /// denial here without calling any webhook.
    pub async fn validate_policies(
        &self,
        attributes: &Attributes<'_>,
        object: Option<&Value>,
    ) -> Option<Result<(), ApiError>> {
        let plugin = self
            .plugins
            .iter()
            .find(|p| matches!(p, Plugin::ValidatingPolicy(_)))?;
        Some(plugin.validate(attributes, object).await)
    }

    /// The validating phase of every plugin, in order; the first refusal is the answer.
    pub async fn validate(
        &self,
        attributes: &Attributes<'_>,
        object: Option<&Value>,
    ) -> Result<(), ApiError> {
        let operation = attributes.operation.as_str();
        let started = Instant::now();
        let mut result = Ok(());
        for plugin in self.plugins.iter().filter(|p| !p.mutates()) {
            let plugin_started = Instant::now();
            let span = plugin_span(plugin, Step::Validate, operation);
            result = span.scope(plugin.validate(attributes, object)).await;
            drop(span);
            let (name, elapsed) = (plugin.name(), plugin_started.elapsed());
            let rejected = result.is_err();
            self.metrics
                .observe_controller(name, "validate", operation, rejected, elapsed);
            if rejected {
                break;
            }
        }
        let elapsed = started.elapsed();
        self.metrics
            .observe_step("validate", operation, result.is_err(), elapsed);
        result
    }
}
