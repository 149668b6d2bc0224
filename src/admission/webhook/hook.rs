//! A compiled webhook (kube's `webhook.WebhookAccessor`): one entry of a
//! Mutating/ValidatingWebhookConfiguration with kube's defaults applied to what a
//! hand-written object leaves out, its selectors compiled once, and the snapshot of all
//! hooks in kube's calling order ([`Hooks`]).
//!
//! Defaults are `k8s.io/api/admissionregistration/v1`'s: matchPolicy Equivalent,
//! failurePolicy Fail, empty selectors (match all), timeoutSeconds 10,
//! reinvocationPolicy Never, service port 443. A selector kube cannot convert is kept as
//! its error text (logged when the configuration is compiled); so is a `clientConfig`
//! with neither `url` nor `service`.

use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::admissionregistration::v1::{
    MutatingWebhook, MutatingWebhookConfiguration, ValidatingWebhook,
    ValidatingWebhookConfiguration, WebhookClientConfig,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector as ApiSelector;

use super::conditions::MatchConditions;
use super::rules::Rule;
use crate::selector::label::LabelSelector;
use crate::webhook::Endpoint;
use crate::webhook::endpoint::ServiceRef;

/// kube's default `timeoutSeconds`.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);
/// Which plugin calls the hook (kube's accessor `GetType`: `admit` or `validate`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HookKind {
    Mutating,
    Validating,
}

impl HookKind {
    /// The `type` label of kube's webhook metrics.
    pub fn as_str(self) -> &'static str {
        match self {
            HookKind::Mutating => "admit",
            HookKind::Validating => "validate",
        }
    }
}

/// `matchPolicy`: whether another version of the same resource also matches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatchPolicy {
    Exact,
    Equivalent,
}

pub use crate::admission::failure::FailurePolicy;

/// `sideEffects`: a dry-run request may call only `None` and `NoneOnDryRun` hooks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SideEffects {
    Unknown,
    Some,
    None,
    NoneOnDryRun,
}

/// `reinvocationPolicy` (mutating hooks; validating hooks are `Never`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reinvocation {
    Never,
    IfNeeded,
}

/// One webhook, ready to match and call.
#[derive(Clone, Debug)]
pub struct Hook {
    /// kube's accessor uid `<configuration>/<webhook>/<n>`, `n` counting repeated names.
    pub uid: String,
    pub configuration: String,
    pub name: String,
    pub kind: HookKind,
    pub rules: Vec<Rule>,
    pub match_policy: MatchPolicy,
    /// Compiled `namespaceSelector`, or kube's conversion error text.
    pub namespace_selector: Result<LabelSelector, String>,
    /// Compiled `objectSelector`, or kube's conversion error text.
    pub object_selector: Result<LabelSelector, String>,
    /// `matchConditions` as `(name, expression)`, compiled by the conditions module.
    pub match_conditions: Vec<(String, String)>,
    /// The same, compiled once (a condition that does not compile fails the hook per
    /// its failurePolicy when it is consulted).
    pub conditions: Arc<MatchConditions>,
    pub failure_policy: FailurePolicy,
    pub side_effects: SideEffects,
    pub timeout: Duration,
    pub review_versions: Vec<String>,
    /// Where to call, or kube's text for a `clientConfig` without `url` or `service`.
    pub endpoint: Result<Endpoint, String>,
    pub reinvocation: Reinvocation,
}

/// The fields both webhook types share, borrowed.
struct Common<'a> {
    name: &'a str,
    client_config: &'a WebhookClientConfig,
    rules: Option<&'a [k8s_openapi::api::admissionregistration::v1::RuleWithOperations]>,
    match_policy: Option<&'a str>,
    namespace_selector: Option<&'a ApiSelector>,
    object_selector: Option<&'a ApiSelector>,
    match_conditions: Vec<(String, String)>,
    failure_policy: Option<&'a str>,
    side_effects: &'a str,
    timeout_seconds: Option<i32>,
    review_versions: &'a [String],
}

impl<'a> Common<'a> {
    fn of_mutating(h: &'a MutatingWebhook) -> Self {
        Common {
            name: &h.name,
            client_config: &h.client_config,
            rules: h.rules.as_deref(),
            match_policy: h.match_policy.as_deref(),
            namespace_selector: h.namespace_selector.as_ref(),
            object_selector: h.object_selector.as_ref(),
            match_conditions: conditions(h.match_conditions.as_deref()),
            failure_policy: h.failure_policy.as_deref(),
            side_effects: &h.side_effects,
            timeout_seconds: h.timeout_seconds,
            review_versions: &h.admission_review_versions,
        }
    }

    fn of_validating(h: &'a ValidatingWebhook) -> Self {
        Common {
            name: &h.name,
            client_config: &h.client_config,
            rules: h.rules.as_deref(),
            match_policy: h.match_policy.as_deref(),
            namespace_selector: h.namespace_selector.as_ref(),
            object_selector: h.object_selector.as_ref(),
            match_conditions: conditions(h.match_conditions.as_deref()),
            failure_policy: h.failure_policy.as_deref(),
            side_effects: &h.side_effects,
            timeout_seconds: h.timeout_seconds,
            review_versions: &h.admission_review_versions,
        }
    }

    fn compile(self, uid: String, configuration: &str, kind: HookKind) -> Hook {
        let hook = Hook {
            uid,
            configuration: configuration.to_string(),
            name: self.name.to_string(),
            kind,
            rules: self
                .rules
                .unwrap_or_default()
                .iter()
                .map(Rule::compile)
                .collect(),
            match_policy: match self.match_policy {
                Some("Exact") => MatchPolicy::Exact,
                // Unset defaults to Equivalent; kube treats any other value as Exact.
                None | Some("Equivalent") => MatchPolicy::Equivalent,
                Some(_) => MatchPolicy::Exact,
            },
            namespace_selector: selector(self.namespace_selector),
            object_selector: selector(self.object_selector),
            conditions: Arc::new(MatchConditions::compile(&self.match_conditions)),
            match_conditions: self.match_conditions,
            failure_policy: FailurePolicy::of(self.failure_policy),
            side_effects: match self.side_effects {
                "None" => SideEffects::None,
                "NoneOnDryRun" => SideEffects::NoneOnDryRun,
                "Some" => SideEffects::Some,
                _ => SideEffects::Unknown,
            },
            timeout: self.timeout_seconds.map_or(DEFAULT_TIMEOUT, |s| {
                Duration::from_secs(u64::try_from(s).unwrap_or(0))
            }),
            review_versions: self.review_versions.to_vec(),
            endpoint: endpoint(self.client_config),
            reinvocation: Reinvocation::Never,
        };
        hook.log_problems();
        hook
    }
}

fn conditions(
    given: Option<&[k8s_openapi::api::admissionregistration::v1::MatchCondition]>,
) -> Vec<(String, String)> {
    let given = given.unwrap_or_default();
    given
        .iter()
        .map(|c| (c.name.clone(), c.expression.clone()))
        .collect()
}

/// An unset selector is kube's default `{}`, which selects everything.
fn selector(given: Option<&ApiSelector>) -> Result<LabelSelector, String> {
    given.map_or(Ok(LabelSelector::default()), LabelSelector::from_metav1)
}

/// kube's `hookClientConfigForWebhook` and `HookClient`: `service` wins over `url`.
fn endpoint(config: &WebhookClientConfig) -> Result<Endpoint, String> {
    let ca_bundle = config.ca_bundle.as_ref().map(|b| b.0.clone());
    let service = config.service.as_ref().map(|s| ServiceRef {
        namespace: &s.namespace,
        name: &s.name,
        path: s.path.as_deref(),
        port: s.port,
    });
    let missing = "webhook configuration must have either service or URL";
    Endpoint::from_client_config(service, config.url.as_deref(), ca_bundle, missing)
}

impl Hook {
    /// Logs, once per compilation, what will make this hook fail when consulted.
    fn log_problems(&self) {
        let problems = [
            ("namespaceSelector", self.namespace_selector.as_ref().err()),
            ("objectSelector", self.object_selector.as_ref().err()),
            ("clientConfig", self.endpoint.as_ref().err()),
        ];
        for (field, problem) in problems {
            if let Some(error) = problem {
                tracing::warn!(webhook = %self.uid, field, %error, "invalid webhook configuration; the webhook fails when a request matches it");
            }
        }
        for (condition, error) in self.conditions.compile_errors() {
            tracing::warn!(webhook = %self.uid, condition, %error, "matchCondition does not compile; the webhook's failurePolicy decides when a request matches it");
        }
    }
}

/// kube's uids for a configuration's webhooks: `<configuration>/<name>/<n>`, `n` the
/// count of earlier webhooks with that name (names are not checked for uniqueness).
fn uids<'a>(configuration: &str, names: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut seen = std::collections::HashMap::<&str, usize>::new();
    names
        .map(|name| {
            let n = seen.entry(name).or_default();
            let uid = format!("{configuration}/{name}/{n}");
            *n += 1;
            uid
        })
        .collect()
}

/// The hooks of one MutatingWebhookConfiguration, in its order.
pub fn mutating(config: &MutatingWebhookConfiguration) -> Vec<Arc<Hook>> {
    let name = config.metadata.name.as_deref().unwrap_or_default();
    let webhooks = config.webhooks.as_deref().unwrap_or_default();
    let uids = uids(name, webhooks.iter().map(|w| w.name.as_str()));
    webhooks
        .iter()
        .zip(uids)
        .map(|(w, uid)| {
            let mut hook = Common::of_mutating(w).compile(uid, name, HookKind::Mutating);
            if w.reinvocation_policy.as_deref() == Some("IfNeeded") {
                hook.reinvocation = Reinvocation::IfNeeded;
            }
            Arc::new(hook)
        })
        .collect()
}

/// The hooks of one ValidatingWebhookConfiguration, in its order.
pub fn validating(config: &ValidatingWebhookConfiguration) -> Vec<Arc<Hook>> {
    let name = config.metadata.name.as_deref().unwrap_or_default();
    let webhooks = config.webhooks.as_deref().unwrap_or_default();
    let uids = uids(name, webhooks.iter().map(|w| w.name.as_str()));
    webhooks
        .iter()
        .zip(uids)
        .map(|(w, uid)| Arc::new(Common::of_validating(w).compile(uid, name, HookKind::Validating)))
        .collect()
}

/// Every hook in kube's calling order: configurations by name, webhooks in their order.
#[derive(Clone, Debug, Default)]
pub struct Hooks {
    pub mutating: Vec<Arc<Hook>>,
    pub validating: Vec<Arc<Hook>>,
}

impl Hooks {
    /// Whether no hook is configured (the write path then skips webhook admission).
    pub fn is_empty(&self) -> bool {
        self.mutating.is_empty() && self.validating.is_empty()
    }

    /// Whether any hook's `namespaceSelector` needs a namespace's labels (one that
    /// selects everything does not), so a request looks them up only then.
    pub fn use_namespace_labels(&self) -> bool {
        let uses = |h: &Arc<Hook>| h.namespace_selector.as_ref().is_ok_and(|s| !s.is_empty());
        self.mutating.iter().chain(&self.validating).any(uses)
    }
}

#[cfg(test)]
mod tests;
