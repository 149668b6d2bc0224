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

use crate::admission::policy::generic::versioned::{Versioned, api_version_of};
use crate::admission::policy::validating::plugin::Prepared;
use crate::admission::reinvocation::ReinvocationContext;
use crate::admission::webhook::conditions::authz_user;
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
    let Some(mut selection) = policies.select(attributes, seen).await? else {
        return Ok(false);
    };
    let versioned = std::mem::take(&mut selection.versioned);
    let namespace = match attributes.namespace {
        "" => None,
        name => policies.namespaces.object(name),
    };
    let dispatcher = Dispatcher {
        attributes,
        metrics: &policies.metrics.mutating_policy,
        namespace: namespace.as_deref(),
        authorizer: policies.authorizer.clone(),
        versioned: &versioned,
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
    let finished = match calls_authorizer {
        true => blocking(dispatch),
        false => dispatch(),
    };
    // kube's last step of the delegate: the last invocation's object, when a patch
    // changed it, back in the request's version (a failure is its 500, before the
    // failurePolicy verdict); the reinvocation state then sees the request's object.
    let next = match mutated {
        Some(Mutated {
            api_version,
            object,
        }) => back(attributes, object, &api_version).await,
        None => Ok(None),
    };
    let output = match &next {
        Ok(Some(next)) => Some(next),
        _ => seen,
    };
    reinvoke.policies.set_last_invocation_output(output);
    let next = next?;
    finished?;
    match (object, next) {
        (Some(object), Some(next)) if *object != next => {
            *object = next;
            Ok(true)
        }
        _ => Ok(false),
    }
}

/// The object the last invocation left at `api_version`, in the request's version.
async fn back(
    attributes: &Attributes<'_>,
    object: Value,
    api_version: &str,
) -> Result<Option<Value>, ApiError> {
    let kind = &attributes.kind;
    let request = match kind.group {
        "" => kind.version.to_string(),
        group => format!("{group}/{}", kind.version),
    };
    if api_version == request {
        return Ok(Some(object));
    }
    crate::admission::convert::unversioned(attributes, object, &request)
        .await
        .map(Some)
        .map_err(|e| ApiError::Internal(format!("failed to convert object: {e}")))
}

/// The object a patch of the last invocation left, at the version that invocation matched.
struct Mutated {
    api_version: String,
    object: Value,
}

/// The object at one version invocations matched at (kube's versioned attributes): what
/// the invocations at that version left, and whether a patch updated it (`Dirty`).
struct AtVersion {
    api_version: String,
    object: Option<Value>,
    dirty: bool,
}

struct Dispatcher<'a> {
    attributes: &'a Attributes<'a>,
    metrics: &'a MutatingMetrics,
    namespace: Option<&'a Value>,
    authorizer: Arc<dyn Authorizer + Send + Sync>,
    /// The request's objects at the other versions invocations matched at.
    versioned: &'a [Versioned],
}

impl Dispatcher<'_> {
    /// kube's `dispatchInvocations`: the errors to judge (or a refusal) and, when the
    /// last invocation that ran mutations left its version's object patched, that object
    /// (to be converted back to the request's version). Each version's invocations
    /// patch that version's object, as kube's versioned attributes are kept per version.
    fn invocations(
        &self,
        invocations: &[Invocation<MutatingPolicies>],
        object: Option<&Value>,
        reinvoke: &mut ReinvocationContext,
    ) -> (Outcome, Option<Mutated>) {
        let state = &mut reinvoke.policies;
        if reinvoke.is_reinvoke && state.output_changed_since_last_invocation(object) {
            // An in-tree plugin's reinvocation changed the object.
            state.require_reinvoking_previously_invoked();
        }
        let mut versions: Vec<AtVersion> = Vec::new();
        let mut last = None;
        let mut errors = Vec::new();
        for invocation in invocations {
            let compiled = &invocation.hook.compiled;
            if let Some(error) = patcher_count_error(&invocation.hook.name, compiled) {
                return ((errors, Some(ApiError::Internal(error))), None);
            }
            let at = self.at_version(&mut versions, invocation, object);
            match self.invocation(invocation, versions[at].object.as_ref(), reinvoke) {
                Err(refusal) => return ((errors, Some(refusal)), None),
                Ok(ran) => {
                    errors.extend(ran.errors);
                    if ran.reached {
                        last = Some(at);
                    }
                    if let Some(next) = ran.object {
                        versions[at].object = Some(next);
                        versions[at].dirty = true;
                    }
                }
            }
        }
        let mutated = last.map(|at| versions.swap_remove(at)).and_then(|v| {
            let object = v.object.filter(|_| v.dirty)?;
            Some(Mutated {
                api_version: v.api_version,
                object,
            })
        });
        ((errors, None), mutated)
    }

    /// The index in `versions` of the object at `invocation`'s version, made on first
    /// use: the request's object, or as converted at selection.
    fn at_version(
        &self,
        versions: &mut Vec<AtVersion>,
        invocation: &Invocation<MutatingPolicies>,
        object: Option<&Value>,
    ) -> usize {
        let api_version = api_version_of(&invocation.kind);
        if let Some(at) = versions.iter().position(|v| v.api_version == api_version) {
            return at;
        }
        let converted = self.versioned.iter().find(|v| v.api_version == api_version);
        let object = match converted.and_then(|v| v.object.as_ref()) {
            Some(converted) => Some(converted.clone()),
            None => object.map(|o| invocation.versioned(o).into_owned()),
        };
        versions.push(AtVersion {
            api_version,
            object,
            dirty: false,
        });
        versions.len() - 1
    }

    /// One invocation over `object` (at its version): its matchConditions, then its
    /// mutations; or a refusal.
    fn invocation(
        &self,
        invocation: &Invocation<MutatingPolicies>,
        object: Option<&Value>,
        reinvoke: &mut ReinvocationContext,
    ) -> Result<Ran, ApiError> {
        let attributes = self.attributes;
        let compiled = &invocation.hook.compiled;
        let reads = compiled.reads;
        let api_version = api_version_of(&invocation.kind);
        let versioned = self.versioned.iter().find(|v| v.api_version == api_version);
        let objects = (None, attributes.old_object);
        let prepared = Prepared::new(invocation, attributes, objects, versioned, reads);
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
        let versioned = object.cloned();
        match matches(compiled, versioned.as_ref(), &input) {
            Err(e) => return Ok(Ran::errors(vec![invocation.error(e, INVALID)])),
            Ok(false) => return Ok(Ran::errors(Vec::new())),
            Ok(true) => {}
        }
        let key = key_for(invocation);
        if reinvoke.is_reinvoke && !reinvoke.policies.should_reinvoke(&key) {
            return Ok(Ran::errors(Vec::new()));
        }
        let if_needed = compiled.reinvocation == ReinvocationPolicy::IfNeeded;
        let reached = !compiled.patchers.is_empty();
        if versioned.is_none() {
            // Nothing to patch (DELETE): no patcher runs.
            if if_needed {
                reinvoke.policies.add_reinvocable(key);
            }
            return Ok(Ran {
                object: None,
                errors: Vec::new(),
                reached,
            });
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
        // kube's `UpdateObject` (Dirty) after each patch that succeeded.
        let patched = outcome.errors.len() < compiled.patchers.len();
        let errors = outcome.errors.into_iter();
        let errors = errors.map(|e| invocation.error(e, INVALID)).collect();
        Ok(Ran {
            object: outcome.object.filter(|_| patched),
            errors,
            reached,
        })
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
}

/// What one invocation did.
struct Ran {
    /// The object its patches left (`None`: no patch succeeded).
    object: Option<Value>,
    errors: Vec<PolicyError>,
    /// Whether it got to its mutations (kube's `lastVersionedAttr`).
    reached: bool,
}

impl Ran {
    fn errors(errors: Vec<PolicyError>) -> Ran {
        Ran {
            object: None,
            errors,
            reached: false,
        }
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
