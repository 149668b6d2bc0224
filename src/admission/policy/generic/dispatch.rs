//! kube's `policyDispatcher.Dispatch`: the hooks into invocations (the policy matches,
//! else its configuration error; each matching binding with its params), the kind's
//! delegate over them, then `failurePolicy` and kube's final 403: the first error's
//! message and reason, one cause per error.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use super::hooks::{BindingHook, FailurePolicy, PolicyHook, PolicyHooks};
use super::kind::{PolicyKind, Versioning};
use super::params::{Resolution, collect_params, gvk_string};
use super::versioned::{Versioned, Versions, api_version_of};
use crate::admission::webhook::dispatch::{match_error, versioned_as};
use crate::admission::webhook::matching::{Gvk, Gvr, MatchRequest};
use crate::admission::{Attributes, forbidden};
use crate::error::ApiError;

/// kube's wait for a param kind's informer (`CollectParams`).
const PARAM_WAIT: Duration = Duration::from_secs(1);

/// One failure of a policy or binding (kube's `PolicyError`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyError {
    pub policy: String,
    pub binding: Option<String>,
    pub message: String,
    /// A `metav1.StatusReason`, empty for none.
    pub reason: String,
    /// The policy's, deciding whether the error counts.
    pub failure_policy: FailurePolicy,
}

/// kube's `PolicyError.Error()`.
impl fmt::Display for PolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (policy, message) = (&self.policy, &self.message);
        match &self.binding {
            Some(binding) => write!(
                f,
                "policy '{policy}' with binding '{binding}' denied request: {message}"
            ),
            None => {
                let quoted = crate::gofmt::quote(policy);
                write!(f, "policy {quoted} denied request: {message}")
            }
        }
    }
}

/// kube's `PolicyInvocation`: a policy, one of its bindings and one param, for the
/// resource and kind the policy matched the request as.
pub struct Invocation<K: PolicyKind> {
    pub hook: Arc<PolicyHook<K>>,
    pub binding: Arc<BindingHook<K>>,
    pub param: Option<Arc<Value>>,
    pub kind: Gvk,
    pub resource: Gvr,
}

impl<K: PolicyKind> Invocation<K> {
    /// `object` in the version this invocation matched (kube's versioned attributes).
    pub fn versioned<'v>(&self, object: &'v Value) -> Cow<'v, Value> {
        versioned_as(object, &self.kind)
    }

    /// An error of this invocation's policy and binding, with `reason` (may be empty).
    pub fn error(&self, message: String, reason: &str) -> PolicyError {
        PolicyError {
            policy: self.hook.name.clone(),
            binding: Some(self.binding.name.clone()),
            message,
            reason: reason.to_string(),
            failure_policy: self.hook.failure_policy,
        }
    }
}

/// What the kind's delegate answers (kube's `dispatcherDelegate`): errors to filter by
/// failurePolicy, or a refusal returned as it is.
pub type Outcome = (Vec<PolicyError>, Option<ApiError>);

/// The invocations of one request and the configuration errors met on the way.
pub struct Selection<K: PolicyKind> {
    pub invocations: Vec<Invocation<K>>,
    pub errors: Vec<PolicyError>,
    /// Both in the order they were met (policy by policy, binding by binding), which
    /// kube's validating dispatcher keeps: its first denial may be either.
    pub order: Vec<Picked>,
    /// The request's objects at each version an invocation matched at, other than the
    /// request's.
    pub versioned: Vec<Versioned>,
}

/// One entry of [`Selection::order`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Picked {
    /// `invocations[i]`.
    Invocation(usize),
    /// `errors[i]`, with the configuration error as met (before kube's `failed to
    /// configure policy:` / `binding:` prefix).
    Error(usize, String),
}

impl<K: PolicyKind> Selection<K> {
    fn error(&mut self, hook: &PolicyHook<K>, binding: Option<&BindingHook<K>>, error: String) {
        self.order
            .push(Picked::Error(self.errors.len(), error.clone()));
        self.errors.push(config_error(hook, binding, error));
    }

    fn invocation(&mut self, invocation: Invocation<K>) {
        self.order.push(Picked::Invocation(self.invocations.len()));
        self.invocations.push(invocation);
    }
}

fn config_error<K: PolicyKind>(
    hook: &PolicyHook<K>,
    binding: Option<&BindingHook<K>>,
    error: String,
) -> PolicyError {
    let (binding, message) = match binding {
        None => (None, format!("failed to configure policy: {error}")),
        Some(b) => (
            Some(b.name.clone()),
            format!("failed to configure binding: {error}"),
        ),
    };
    PolicyError {
        policy: hook.name.clone(),
        binding,
        message,
        reason: String::new(),
        failure_policy: hook.failure_policy,
    }
}

/// kube's `ConfigurationError` of a hook: its own, or a param kind the host does not
/// serve (waiting up to [`PARAM_WAIT`] while that is being looked up).
async fn configuration_error<K: PolicyKind>(hook: &PolicyHook<K>) -> Option<String> {
    if let Some(error) = &hook.configuration_error {
        return Some(error.clone());
    }
    let (store, kind) = (hook.params.as_ref()?, hook.param_kind.as_ref()?);
    if store.resolution() == Resolution::Pending {
        store.wait_ready(PARAM_WAIT).await;
    }
    match store.resolution() {
        Resolution::Unknown => Some(format!(
            "failed to find resource referenced by paramKind: '{}'",
            gvk_string(&kind.gvk)
        )),
        _ => None,
    }
}

/// The first half of kube's `Dispatch`: every hook against the request (`name` its
/// name, `namespace` its namespace), into invocations and configuration errors; the
/// request's objects converted to each matched version where kube converts them.
pub async fn select<K: PolicyKind>(
    hooks: &PolicyHooks<K>,
    request: &MatchRequest<'_>,
    name: &str,
    versions: &mut Versions<'_, '_>,
) -> Selection<K> {
    let mut selection = Selection {
        invocations: Vec::new(),
        errors: Vec::new(),
        order: Vec::new(),
        versioned: Vec::new(),
    };
    for hook in &hooks.hooks {
        let matched = match hook.matcher.as_ref() {
            Err(error) => Err(error.clone()),
            Ok(m) => m
                .matches(request, name)
                .map_err(|e| match_error(e).to_string()),
        };
        let matched = match matched {
            Err(error) => {
                selection.error(hook, None, error);
                continue;
            }
            Ok(None) => continue,
            Ok(Some(m)) => m,
        };
        if let Some(error) = configuration_error(hook).await {
            selection.error(hook, None, error);
            continue;
        }
        for binding in &hook.bindings {
            let applies = match binding.matcher.as_ref() {
                Err(error) => Err(error.clone()),
                Ok(None) => Ok(true),
                Ok(Some(m)) => m
                    .matches(request, name)
                    .map(|m| m.is_some())
                    .map_err(|e| match_error(e).to_string()),
            };
            match applies {
                Err(error) => {
                    selection.error(hook, Some(binding), error);
                    continue;
                }
                Ok(false) => continue,
                Ok(true) => {}
            }
            if K::VERSIONING == Versioning::BeforeParams
                && let Err(error) = versions.at(&matched.kind).await
            {
                selection.error(hook, None, error);
                continue;
            }
            let store = hook.params.as_deref();
            if let (Some(store), Some(_)) = (store, &binding.param_ref)
                && !store.synced()
            {
                store.wait_ready(PARAM_WAIT).await;
            }
            let param_ref = binding.param_ref.as_ref();
            let kind = hook.param_kind.as_ref();
            match collect_params(kind, store, param_ref, request.namespace).await {
                Err(error) => selection.error(hook, Some(binding), error),
                Ok(params) => {
                    if K::VERSIONING == Versioning::AfterParams
                        && !params.is_empty()
                        && let Err(error) = versions.at(&matched.kind).await
                    {
                        let error = format!("failed to convert object version: {error}");
                        selection.error(hook, Some(binding), error);
                        continue;
                    }
                    for param in params {
                        selection.invocation(Invocation {
                            hook: hook.clone(),
                            binding: binding.clone(),
                            param,
                            kind: matched.kind.clone(),
                            resource: matched.resource.clone(),
                        });
                    }
                }
            }
        }
    }
    selection
}

impl<K: PolicyKind> Selection<K> {
    /// The request's objects at `kind`'s version, when that is not the request's.
    pub fn versioned_at(&self, kind: &Gvk) -> Option<&Versioned> {
        let api_version = api_version_of(kind);
        self.versioned.iter().find(|v| v.api_version == api_version)
    }

    /// The second half of kube's `Dispatch`: the delegate over the invocations (when
    /// there are any), then failurePolicy and the final 403 for the request's
    /// `object`.
    pub fn finish(
        self,
        attributes: &Attributes<'_>,
        object: Option<&Value>,
        delegate: impl FnOnce(&[Invocation<K>]) -> Outcome,
    ) -> Result<(), ApiError> {
        let mut errors = self.errors;
        if !self.invocations.is_empty() {
            let (more, refusal) = delegate(&self.invocations);
            if let Some(refusal) = refusal {
                return Err(refusal);
            }
            errors.extend(more);
        }
        errors.retain(|e| e.failure_policy == FailurePolicy::Fail);
        match errors.is_empty() {
            true => Ok(()),
            false => Err(denied(attributes, object, &errors)),
        }
    }
}

/// kube's final 403: `admission.NewForbidden` whose message is the first error's (and
/// reason, when it has one), with one cause per error.
pub fn denied(
    attributes: &Attributes<'_>,
    object: Option<&Value>,
    errors: &[PolicyError],
) -> ApiError {
    let forbidden = forbidden(attributes, object, "admission request denied by policy");
    let mut status = forbidden.to_status();
    if let Some(first) = errors.first() {
        status["message"] = json!(first.to_string());
        if !first.reason.is_empty() {
            status["reason"] = json!(first.reason);
        }
    }
    let causes: Vec<Value> = errors
        .iter()
        .map(|e| json!({"message": e.to_string()}))
        .collect();
    status["details"]["causes"] = json!(causes);
    ApiError::Rejected(Box::new(status))
}

#[cfg(test)]
mod tests;
