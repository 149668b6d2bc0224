//! The ValidatingAdmissionPolicy plugin's validating phase (kube's
//! `validating.Plugin.Validate`): the policies selected for the request (matching,
//! bindings, params, in kube's order), each invocation's inputs in the version it
//! matched, the dispatcher's verdict, and its denial as kube's Status.

use std::borrow::Cow;
use std::sync::Arc;

use serde_json::{Value, json};

use super::compile::Reads;
use super::dispatcher::{Denial, Entry, Invocation as Validation, dispatch};
use super::validator::ValidateInput;
use crate::admission::policy::generic::dispatch::{Invocation, Picked, Selection};
use crate::admission::policy::generic::hooks::FailurePolicy;
use crate::admission::policy::generic::kind::PolicyKind;
use crate::admission::policy::generic::kinds::ValidatingPolicies;
use crate::admission::policy::generic::plugin::Policies;
use crate::admission::policy::generic::versioned::Versioned;
use crate::admission::webhook::call::{request_kind, request_resource};
use crate::admission::webhook::conditions::{ConditionInput, Gvk, Gvr, authz_user, request_json};
use crate::admission::{Attributes, blocking, forbidden};
use crate::cel::lib::authz::{Authorizer, authorizer_value, request_resource_value};
use crate::error::ApiError;

/// What one invocation evaluates against, owned for the length of the dispatch (shared
/// with the MutatingAdmissionPolicy plugin).
pub struct Prepared<'o> {
    pub object: Option<Cow<'o, Value>>,
    pub old_object: Option<Cow<'o, Value>>,
    pub params: Option<Cow<'o, Value>>,
    /// `request` with the matched resource and kind.
    pub request: Value,
    /// `request` as matchConditions see it: the request's own resource.
    pub match_request: Value,
}

impl<'o> Prepared<'o> {
    /// The inputs of `invocation`; `versioned` holds the request's objects at the
    /// version it matched when that is not the request's (converted at selection).
    pub fn new<K: PolicyKind>(
        invocation: &'o Invocation<K>,
        attributes: &Attributes<'_>,
        (object, old_object): (Option<&'o Value>, Option<&'o Value>),
        versioned: Option<&'o Versioned>,
        reads: Reads,
    ) -> Prepared<'o> {
        let kind = Gvk {
            group: &invocation.kind.group,
            version: &invocation.kind.version,
            kind: &invocation.kind.kind,
        };
        let resource = Gvr {
            group: &invocation.resource.group,
            version: &invocation.resource.version,
            resource: &invocation.resource.resource,
        };
        let options = match reads.request || reads.match_request {
            true => attributes.options.to_json(),
            false => None,
        };
        let input = ConditionInput {
            kind,
            request_kind: request_kind(attributes),
            resource,
            request_resource: request_resource(attributes),
            sub_resource: attributes.subresource,
            name: attributes.name,
            namespace: attributes.namespace,
            operation: attributes.operation.as_str(),
            user: attributes.user,
            dry_run: attributes.dry_run,
            options: options.as_ref(),
            object: None,
            old_object: None,
        };
        let request = match reads.request {
            true => request_json(&input),
            false => Value::Null,
        };
        let match_request = match reads.match_request {
            true => request_json(&ConditionInput {
                resource: request_resource(attributes),
                ..input
            }),
            false => Value::Null,
        };
        Prepared {
            object: object.map(|o| at_version(invocation, versioned.map(|v| &v.object), o)),
            old_object: old_object
                .map(|o| at_version(invocation, versioned.map(|v| &v.old_object), o)),
            params: invocation
                .param
                .as_deref()
                .map(|p| typed_param(p, invocation)),
            request,
            match_request,
        }
    }
}

/// `object` at the version `invocation` matched: as converted at selection, else as it
/// is (the request's version; `strategy: None` only sets apiVersion).
fn at_version<'o, K: PolicyKind>(
    invocation: &Invocation<K>,
    converted: Option<&'o Option<Value>>,
    object: &'o Value,
) -> Cow<'o, Value> {
    match converted {
        Some(Some(converted)) => Cow::Borrowed(converted),
        _ => invocation.versioned(object),
    }
}

/// kube's `wrappedParam`: a param without `apiVersion` and `kind` is given those of the
/// policy's `paramKind`.
fn typed_param<'p, K: PolicyKind>(param: &'p Value, invocation: &Invocation<K>) -> Cow<'p, Value> {
    let typed = param.get("apiVersion").is_some() || param.get("kind").is_some();
    let Some(kind) = invocation.hook.param_kind.as_ref().filter(|_| !typed) else {
        return Cow::Borrowed(param);
    };
    let mut wrapped = param.clone();
    if let Some(fields) = wrapped.as_object_mut() {
        fields.insert("apiVersion".into(), json!(kind.api_version));
        fields.insert("kind".into(), json!(kind.kind));
    }
    Cow::Owned(wrapped)
}

/// The plugin's `Validate` for the request's `object` (absent on delete).
pub async fn validate(
    policies: &Policies<ValidatingPolicies>,
    attributes: &Attributes<'_>,
    object: Option<&Value>,
) -> Result<(), ApiError> {
    let Some(selection) = policies.select(attributes, object).await? else {
        return Ok(());
    };
    if selection.order.is_empty() {
        return Ok(());
    }
    let namespace = match attributes.namespace {
        "" => None,
        name => policies.namespaces.object(name),
    };
    let authorizer: Arc<dyn Authorizer> = policies.authorizer.clone();
    let metrics = &policies.metrics.validating_policy;
    let evaluate = || {
        let prepared: Vec<Prepared<'_>> = (selection.invocations.iter())
            .map(|i| {
                let reads = i.hook.compiled.reads;
                let objects = (object, attributes.old_object);
                Prepared::new(
                    i,
                    attributes,
                    objects,
                    selection.versioned_at(&i.kind),
                    reads,
                )
            })
            .collect();
        let entries = entries(
            &selection,
            &prepared,
            attributes,
            namespace.as_deref(),
            &authorizer,
        );
        dispatch(&entries, attributes.recorder, metrics)
    };
    // The authorizer library asks the cluster synchronously, as kube's does: a policy
    // that can call it is evaluated off the runtime's worker.
    let calls_authorizer = (selection.invocations.iter()).any(|i| i.hook.compiled.reads.authorizer);
    let denial = match calls_authorizer {
        true => blocking(evaluate),
        false => evaluate(),
    };
    match denial {
        None => Ok(()),
        Some(denial) => Err(refused(attributes, object, denial)),
    }
}

/// The dispatcher's entries in kube's order.
fn entries<'a>(
    selection: &'a Selection<ValidatingPolicies>,
    prepared: &'a [Prepared<'a>],
    attributes: &Attributes<'a>,
    namespace: Option<&'a Value>,
    authorizer: &Arc<dyn Authorizer>,
) -> Vec<Entry<'a>> {
    // The user as the authorizer library asks, made only when a policy can ask.
    let user = selection
        .invocations
        .iter()
        .any(|i| i.hook.compiled.reads.authorizer)
        .then(|| authz_user(attributes.user));
    let resource = [
        attributes.group,
        attributes.resource,
        attributes.subresource,
        attributes.namespace,
        attributes.name,
    ];
    let entry = |picked: &'a Picked| match picked {
        Picked::Invocation(i) => {
            let (invocation, inputs) = (&selection.invocations[*i], &prepared[*i]);
            let authorizers = (user.as_ref())
                .filter(|_| invocation.hook.compiled.reads.authorizer)
                .map(|user| {
                    (
                        authorizer_value(user.clone(), authorizer.clone()),
                        request_resource_value(user.clone(), authorizer.clone(), resource),
                    )
                });
            Entry::Invocation(Validation {
                policy: &invocation.hook.name,
                binding: &invocation.binding.name,
                validation_actions: &invocation.binding.binding.spec.validation_actions,
                validator: &invocation.hook.compiled,
                input: ValidateInput {
                    object: inputs.object.as_deref(),
                    old_object: inputs.old_object.as_deref(),
                    params: inputs.params.as_deref(),
                    namespace_object: namespace,
                    request: &inputs.request,
                    match_request: &inputs.match_request,
                    authorizer: authorizers,
                },
            })
        }
        Picked::Error(i, raw) => {
            let error = &selection.errors[*i];
            Entry::ConfigError {
                policy: &error.policy,
                binding: error.binding.as_deref(),
                failure_policy: Some(match error.failure_policy {
                    FailurePolicy::Fail => "Fail",
                    FailurePolicy::Ignore => "Ignore",
                }),
                error: raw.clone(),
            }
        }
    };
    selection.order.iter().map(entry).collect()
}

/// kube's denial: `admission.NewForbidden` with the dispatcher's message, then its
/// reason and code, and the message as the one cause.
fn refused(attributes: &Attributes<'_>, object: Option<&Value>, denial: Denial) -> ApiError {
    let mut status = forbidden(attributes, object, &denial.message).to_status();
    status["reason"] = json!(denial.reason);
    status["code"] = json!(denial.code);
    let cause = json!({"message": denial.message});
    match status["details"]["causes"].as_array_mut() {
        Some(causes) => causes.push(cause),
        None => status["details"]["causes"] = json!([cause]),
    }
    ApiError::Rejected(Box::new(status))
}
