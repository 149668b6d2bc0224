//! The MutatingAdmissionPolicy plugin's mutating phase (kube's `mutating.Plugin.Admit`
//! and its dispatcher's `dispatchInvocations`): the policies selected for the request
//! (matching, bindings, params, in kube's order), each invocation's matchConditions and
//! mutations on the object in the version it matched (then back in the request's), the
//! reinvocation bookkeeping of the chain's rounds, and the errors judged by
//! failurePolicy into kube's final 403.

use std::sync::Arc;

use serde_json::Value;

use super::compile::ReinvocationPolicy;
use super::evaluate::{Hooks, InvocationInput, matches, patcher_count_error, run_mutations};
use super::metrics::MutatingMetrics;
use super::reinvocation::{Key, NamespacedName};
use crate::admission::policy::generic::dispatch::{Invocation, Outcome, PolicyError};
use crate::admission::policy::generic::kinds::MutatingPolicies;
use crate::admission::policy::generic::plugin::Policies;

use crate::admission::policy::validating::plugin::Prepared;
use crate::admission::reinvocation::ReinvocationContext;
use crate::admission::webhook::conditions::authz_user;
use crate::admission::webhook::dispatch::versioned_as;
use crate::admission::webhook::matching::Gvk;
use crate::admission::{Attributes, blocking};
use crate::cel::lib::authz::{Authorizer, authorizer_value, request_resource_value};
use crate::error::ApiError;

/// kube's reason for a mutation's and a matchCondition's errors.
const INVALID: &str = "Invalid";

/// The plugin's `Admit` over the request's `object` (absent on delete) for this round of
/// the chain; whether a policy changed the object.
pub async fn admit(
    policies: &Policies<MutatingPolicies>,
    attributes: &Attributes<'_>,
    object: Option<&mut Value>,
    reinvoke: &mut ReinvocationContext,
) -> Result<bool, ApiError> {
    let seen = object.as_deref();
    let Some(selection) = policies.select(attributes, seen).await? else {
        return Ok(false);
    };
    let namespace = match attributes.namespace {
        "" => None,
        name => policies.namespaces.object(name),
    };
    let dispatcher = Dispatcher {
        attributes,
        metrics: &policies.metrics.mutating_policy,
        namespace: namespace.as_deref(),
        authorizer: policies.authorizer.clone(),
    };
    let mut mutated = None;
    let calls_authorizer = (selection.invocations.iter()).any(|i| i.hook.compiled.reads.authorizer);
    let dispatch = || {
        selection.finish(attributes, seen, |invocations| {
            let (outcome, object) = dispatcher.invocations(invocations, seen, reinvoke);
            mutated = object;
            outcome
        })
    };
    // The authorizer library asks the cluster synchronously, as kube's does: a policy
    // that can call it is evaluated off the runtime's worker.
    match calls_authorizer {
        true => blocking(dispatch)?,
        false => dispatch()?,
    };
    match (object, mutated) {
        (Some(object), Some(next)) if *object != next => {
            *object = next;
            Ok(true)
        }
        _ => Ok(false),
    }
}

struct Dispatcher<'a> {
    attributes: &'a Attributes<'a>,
    metrics: &'a MutatingMetrics,
    namespace: Option<&'a Value>,
    authorizer: Arc<dyn Authorizer + Send + Sync>,
}

impl Dispatcher<'_> {
    /// kube's `dispatchInvocations`: the errors to judge (or a refusal) and the object
    /// as the invocations left it, in the request's version.
    fn invocations(
        &self,
        invocations: &[Invocation<MutatingPolicies>],
        object: Option<&Value>,
        reinvoke: &mut ReinvocationContext,
    ) -> (Outcome, Option<Value>) {
        let state = &mut reinvoke.policies;
        if reinvoke.is_reinvoke && state.output_changed_since_last_invocation(object) {
            // An in-tree plugin's reinvocation changed the object.
            state.require_reinvoking_previously_invoked();
        }
        let mut current = object.cloned();
        let mut errors = Vec::new();
        for invocation in invocations {
            let compiled = &invocation.hook.compiled;
            if let Some(error) = patcher_count_error(&invocation.hook.name, compiled) {
                reinvoke
                    .policies
                    .set_last_invocation_output(current.as_ref());
                return ((errors, Some(ApiError::Internal(error))), current);
            }
            match self.invocation(invocation, current.as_ref(), reinvoke) {
                Err(refusal) => {
                    reinvoke
                        .policies
                        .set_last_invocation_output(current.as_ref());
                    return ((errors, Some(refusal)), current);
                }
                Ok((next, failures)) => {
                    errors.extend(failures);
                    if let Some(next) = next {
                        current = Some(next);
                    }
                }
            }
        }
        reinvoke
            .policies
            .set_last_invocation_output(current.as_ref());
        ((errors, None), current)
    }

    /// One invocation: its matchConditions, then its mutations; the object its
    /// mutations left (`None`: not run) and its errors, or a refusal.
    fn invocation(
        &self,
        invocation: &Invocation<MutatingPolicies>,
        object: Option<&Value>,
        reinvoke: &mut ReinvocationContext,
    ) -> Result<(Option<Value>, Vec<PolicyError>), ApiError> {
        let attributes = self.attributes;
        let compiled = &invocation.hook.compiled;
        let reads = compiled.reads;
        let prepared = Prepared::new(invocation, attributes, None, attributes.old_object, reads);
        let resource = [
            attributes.group,
            attributes.resource,
            attributes.subresource,
            attributes.namespace,
            attributes.name,
        ];
        let input = InvocationInput {
            old_object: prepared.old_object.as_deref(),
            request: &prepared.request,
            match_request: &prepared.match_request,
            params: prepared.params.as_deref(),
            namespace_object: self.namespace,
            authorizer: reads.authorizer.then(|| {
                let user = authz_user(attributes.user);
                (
                    authorizer_value(user.clone(), self.authorizer.clone()),
                    request_resource_value(user, self.authorizer.clone(), resource),
                )
            }),
        };
        let versioned = object.map(|o| invocation.versioned(o).into_owned());
        match matches(compiled, versioned.as_ref(), &input) {
            Err(e) => return Ok((None, vec![invocation.error(e, INVALID)])),
            Ok(false) => return Ok((None, Vec::new())),
            Ok(true) => {}
        }
        let key = key_for(invocation);
        if reinvoke.is_reinvoke && !reinvoke.policies.should_reinvoke(&key) {
            return Ok((None, Vec::new()));
        }
        let if_needed = compiled.reinvocation == ReinvocationPolicy::IfNeeded;
        if versioned.is_none() {
            // Nothing to patch (DELETE): no patcher runs.
            if if_needed {
                reinvoke.policies.add_reinvocable(key);
            }
            return Ok((None, Vec::new()));
        }
        let ty = self.type_of(invocation)?;
        let served = attributes.served;
        let version = served.and_then(|s| s.version(&invocation.kind.version));
        let default = |o: &mut Value| {
            if let Some(version) = version {
                crate::schema::default::default(o, &version.structural);
            }
        };
        let (policy, binding) = (&invocation.hook.name, &invocation.binding.name);
        let observe = |error: Option<&str>, elapsed| {
            (self.metrics).observe(policy, binding, error, elapsed);
        };
        let hooks = Hooks {
            default: &default,
            observe: &observe,
        };
        let outcome = run_mutations(compiled, &ty, versioned.clone(), &input, &hooks);
        if outcome.object != versioned {
            reinvoke.policies.require_reinvoking_previously_invoked();
            reinvoke.should_reinvoke = true;
        }
        if if_needed {
            reinvoke.policies.add_reinvocable(key);
        }
        let back = outcome.object.map(|o| self.unversioned(o));
        let errors = outcome.errors.into_iter();
        let errors = errors.map(|e| invocation.error(e, INVALID)).collect();
        Ok((back, errors))
    }

    /// The schema type of the version the invocation matched (kube's type converter).
    fn type_of(
        &self,
        invocation: &Invocation<MutatingPolicies>,
    ) -> Result<crate::fieldmanager::typed::TypeRef, ApiError> {
        let kind = &invocation.kind;
        let api_version = format!("{}/{}", kind.group, kind.version);
        let served = self.attributes.served;
        let found = served.filter(|s| s.kind == kind.kind);
        match found.and_then(|s| s.field_types.types.get(&api_version)) {
            Some(ty) => Ok(ty.clone()),
            None => Err(ApiError::ServiceUnavailable(format!(
                "Resource kind {api_version}, Kind={} not found. There can be a delay between when CustomResourceDefinitions are created and when they are available.",
                kind.kind
            ))),
        }
    }

    /// `object` back in the request's version.
    fn unversioned(&self, object: Value) -> Value {
        let kind = self.attributes.kind;
        let gvk = Gvk {
            group: kind.group.to_string(),
            version: kind.version.to_string(),
            kind: kind.kind.to_string(),
        };
        versioned_as(&object, &gvk).into_owned()
    }
}

/// kube's `keyFor`: the policy, the binding and the param's namespace and name.
fn key_for(invocation: &Invocation<MutatingPolicies>) -> Key {
    let named = |name: &str| NamespacedName {
        namespace: String::new(),
        name: name.to_string(),
    };
    let meta = |field: &str| {
        let param = invocation.param.as_deref();
        let value = param.and_then(|p| p["metadata"][field].as_str());
        value.unwrap_or_default().to_string()
    };
    Key {
        policy: named(&invocation.hook.name),
        binding: named(&invocation.binding.name),
        param: NamespacedName {
            namespace: meta("namespace"),
            name: meta("name"),
        },
    }
}
