//! A policy with its bindings, compiled once (kube's `PolicyHook`), and the snapshot of
//! every hook requests read ([`PolicyHooks`]). A policy without bindings is no hook.
//!
//! Defaults for what an undefaulted object leaves out: failurePolicy Fail, matchPolicy
//! Equivalent (the API's defaults); a missing `matchConstraints` or selector is kube's
//! configuration error, reported when a request is matched against it.

use std::sync::Arc;

use k8s_openapi::api::admissionregistration::v1::ParamRef;

use super::kind::PolicyKind;
use super::matching::{self, Matcher};
use super::params::{ParamKindRef, ParamStore};

pub use crate::admission::failure::FailurePolicy;

/// One binding of a hook's policy.
pub struct BindingHook<K: PolicyKind> {
    pub name: String,
    /// The binding as followed (the validating side reads `validationActions`).
    pub binding: Arc<K::Binding>,
    /// `matchResources`: `Ok(None)` when unset; kube's configuration error text.
    pub matcher: Result<Option<Matcher>, String>,
    pub param_ref: Option<ParamRef>,
}

/// One policy and its bindings.
pub struct PolicyHook<K: PolicyKind> {
    pub name: String,
    pub policy: Arc<K::Policy>,
    pub compiled: Arc<K::Compiled>,
    /// `matchConstraints`, or kube's configuration error text.
    pub matcher: Result<Matcher, String>,
    pub param_kind: Option<ParamKindRef>,
    /// The objects of `param_kind`.
    pub params: Option<Arc<dyn ParamStore>>,
    pub failure_policy: FailurePolicy,
    /// kube's `ConfigurationError`, reported when a request matches the policy.
    pub configuration_error: Option<String>,
    pub bindings: Vec<Arc<BindingHook<K>>>,
}

/// Every hook, policies by name and each one's bindings by name.
pub struct PolicyHooks<K: PolicyKind> {
    pub hooks: Vec<Arc<PolicyHook<K>>>,
}

impl<K: PolicyKind> Default for PolicyHooks<K> {
    fn default() -> Self {
        PolicyHooks { hooks: Vec::new() }
    }
}

impl<K: PolicyKind> PolicyHooks<K> {
    pub fn is_empty(&self) -> bool {
        self.hooks.is_empty()
    }

    /// Whether a request must look its namespace's labels up for some hook.
    pub fn use_namespace_labels(&self) -> bool {
        self.hooks.iter().any(|h| {
            h.matcher.as_ref().is_ok_and(Matcher::uses_namespace_labels)
                || h.bindings.iter().any(|b| {
                    let m = b.matcher.as_ref().ok().and_then(Option::as_ref);
                    m.is_some_and(Matcher::uses_namespace_labels)
                })
        })
    }
}

impl<K: PolicyKind> BindingHook<K> {
    pub fn compile(binding: Arc<K::Binding>) -> BindingHook<K> {
        let view = K::binding(&binding);
        BindingHook {
            name: view.name.to_string(),
            matcher: matching::binding(view.match_resources),
            param_ref: view.param_ref.cloned(),
            binding: binding.clone(),
        }
    }
}

impl<K: PolicyKind> PolicyHook<K> {
    /// The hook of `policy` (already compiled) and its `bindings`; `None` when its
    /// `paramKind.apiVersion` does not parse (kube skips such a policy).
    pub fn assemble(
        policy: Arc<K::Policy>,
        compiled: Arc<K::Compiled>,
        params: impl FnOnce(&ParamKindRef) -> Arc<dyn ParamStore>,
        bindings: Vec<Arc<BindingHook<K>>>,
    ) -> Option<PolicyHook<K>> {
        let view = K::policy(&policy);
        let param_kind = match view.param_kind.map(ParamKindRef::parse).transpose() {
            Ok(kind) => kind,
            Err(error) => {
                let policy = view.name;
                tracing::warn!(policy, %error, "failed to parse paramKind APIVersion; the policy is not applied");
                return None;
            }
        };
        let matcher = matching::definition(view.match_constraints);
        Some(PolicyHook {
            name: view.name.to_string(),
            failure_policy: FailurePolicy::of(view.failure_policy),
            params: param_kind.as_ref().map(params),
            param_kind,
            matcher,
            configuration_error: None,
            compiled,
            bindings,
            policy: policy.clone(),
        })
    }
}
