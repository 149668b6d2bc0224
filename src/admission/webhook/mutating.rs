//! kube's MutatingAdmissionWebhook dispatcher: the matching hooks called one at a time in
//! order, each answer's JSONPatch applied to the object (then defaulted, as kube's
//! object defaulter runs after each patch), the failure policy applied to failed calls,
//! and `reinvocationPolicy: IfNeeded` hooks called once more when a later hook changed
//! the object. Every call leaves kube's audit annotations (`mutation.webhook…`, and
//! `patch.webhook…` for a patch).

use std::collections::HashSet;
use std::time::Instant;

use serde_json::Value;

use super::call::{CallFailure, Sent, call};
use super::dispatch::{RequestFacts, Webhooks, unversioned, versioned_objects};
use super::hook::{FailurePolicy, Hook, Reinvocation};
use super::matching::Invocation;
use super::review::{Phase, Response};
use crate::admission::Attributes;
use crate::admission::metrics::{RejectionType, WebhookCall};
use crate::admission::reinvocation::ReinvocationContext;
use crate::error::ApiError;
use crate::request::gojson::jsonpatch;

/// kube's `webhookReinvokeContext`: which IfNeeded hooks ran before the latest change
/// and so run again in the second round, and the object as the last round left it.
#[derive(Debug, Default)]
pub struct WebhookReinvokeContext {
    previously_invoked: HashSet<String>,
    to_reinvoke: HashSet<String>,
    last_output: Option<Value>,
}

impl WebhookReinvokeContext {
    /// `RequireReinvokingPreviouslyInvokedPlugins`.
    fn require_reinvoking(&mut self) {
        self.to_reinvoke.extend(self.previously_invoked.drain());
    }
}

/// The mutating phase of the webhooks over `object` (absent on a delete), one round of
/// the chain's (`reinvoke.is_reinvoke`: only the IfNeeded hooks called before a later
/// change); whether a hook changed the object, which asks the chain for another round.
pub async fn admit(
    webhooks: &Webhooks,
    attributes: &Attributes<'_>,
    mut object: Option<&mut Value>,
    reinvoke: &mut ReinvocationContext,
) -> Result<bool, ApiError> {
    let hooks = webhooks.hooks(attributes, object.as_deref()).await?;
    if hooks.mutating.is_empty() {
        return Ok(false);
    }
    let facts = webhooks.request_facts(attributes, &hooks).await;
    let state = &mut reinvoke.webhooks;
    if reinvoke.is_reinvoke && state.last_output.as_ref() != object.as_deref() {
        // An in-tree plugin's reinvocation changed the object.
        state.require_reinvoking();
    }
    let round = Round {
        webhooks,
        attributes,
        facts: &facts,
    };
    let number = usize::from(reinvoke.is_reinvoke);
    let mut changed = false;
    let mut result = Ok(());
    for (index, hook) in hooks.mutating.iter().enumerate() {
        let at = At {
            round: number,
            index,
        };
        let state = &mut reinvoke.webhooks;
        match round.hook(hook, at, object.as_deref_mut(), state).await {
            Ok(true) => {
                changed = true;
                reinvoke.should_reinvoke = true;
            }
            Ok(false) => {}
            Err(e) => {
                result = Err(e);
                break;
            }
        }
    }
    reinvoke.webhooks.last_output = object.as_deref().cloned();
    result.map(|()| changed)
}

/// kube's `MutationAuditAnnotation`, its fields in Go's order.
#[derive(serde::Serialize)]
struct MutationAnnotation<'a> {
    configuration: &'a str,
    webhook: &'a str,
    mutated: bool,
}

/// kube's `PatchAuditAnnotation`, its fields in Go's order.
#[derive(serde::Serialize)]
struct PatchAnnotation<'a> {
    configuration: &'a str,
    webhook: &'a str,
    patch: Value,
    #[serde(rename = "patchType")]
    patch_type: &'static str,
}

/// Where a call sits: its round (0, or 1 when reinvoked) and its hook's index.
#[derive(Clone, Copy)]
struct At {
    round: usize,
    index: usize,
}

impl At {
    fn key(self, prefix: &str) -> String {
        format!("{prefix}/round_{}_index_{}", self.round, self.index)
    }
}

struct Round<'r> {
    webhooks: &'r Webhooks,
    attributes: &'r Attributes<'r>,
    facts: &'r RequestFacts,
}

impl Round<'_> {
    /// One hook of a round: matched, called, its patch applied, its failure judged.
    async fn hook(
        &self,
        hook: &std::sync::Arc<Hook>,
        at: At,
        object: Option<&mut Value>,
        reinvocations: &mut WebhookReinvokeContext,
    ) -> Result<bool, ApiError> {
        let attributes = self.attributes;
        let Some(invocation) = self
            .webhooks
            .invocation(self.facts, hook, attributes, object.as_deref())
            .await?
        else {
            return Ok(false);
        };
        if at.round == 1 && !reinvocations.to_reinvoke.contains(&hook.uid) {
            return Ok(false);
        }
        let started = Instant::now();
        let outcome = self.called(&invocation, at, object).await;
        let changed = matches!(outcome, Ok(true));
        self.annotate_mutation(hook, at, changed);
        self.observe(hook, &outcome, started);
        if changed {
            reinvocations.require_reinvoking();
        }
        if hook.reinvocation == Reinvocation::IfNeeded {
            reinvocations.previously_invoked.insert(hook.uid.clone());
        }
        match outcome {
            Ok(_) => Ok(changed),
            Err(CallFailure::Calling { reason, .. }) => match hook.failure_policy {
                FailurePolicy::Ignore => {
                    tracing::warn!(webhook = %hook.name, error = %reason, "failed calling webhook, failing open");
                    self.webhooks
                        .metrics
                        .observe_fail_open(self.call_labels(hook));
                    let key = at.key("failed-open.mutation.webhook.admission.k8s.io");
                    attributes.recorder.annotate(key, hook.name.clone());
                    Ok(false)
                }
                FailurePolicy::Fail => {
                    tracing::warn!(webhook = %hook.name, error = %reason, "failed calling webhook, failing closed");
                    Err(CallFailure::failing_closed(&hook.name, &reason))
                }
            },
            Err(CallFailure::Rejected { error, .. }) | Err(CallFailure::Other(error)) => Err(error),
        }
    }

    /// The call and its patch applied to `object`; whether the object changed.
    async fn called(
        &self,
        invocation: &Invocation,
        at: At,
        object: Option<&mut Value>,
    ) -> Result<bool, CallFailure> {
        let attributes = self.attributes;
        let [seen, old] = versioned_objects(invocation, attributes, object.as_deref())
            .await
            .map_err(CallFailure::Other)?;
        let sent = Sent {
            attributes,
            object: seen.as_deref(),
            old_object: old.as_deref(),
        };
        let response = call(&self.webhooks.mutating, invocation, &sent, Phase::Mutating).await?;
        let Some(patched) = patched(invocation, &response, seen.as_deref())? else {
            return Ok(false);
        };
        let (patched, ops) = patched;
        self.annotate_patch(invocation, at, ops);
        let changed = seen.as_deref() != Some(&patched);
        if let Some(object) = object {
            *object = unversioned(patched, invocation, attributes)
                .await
                .map_err(CallFailure::Other)?;
        }
        Ok(changed)
    }

    /// kube's `mutation.webhook.admission.k8s.io/round_<r>_index_<i>` annotation.
    fn annotate_mutation(&self, hook: &Hook, at: At, mutated: bool) {
        let value = MutationAnnotation {
            configuration: &hook.configuration,
            webhook: &hook.name,
            mutated,
        };
        let key = at.key("mutation.webhook.admission.k8s.io");
        let value = serde_json::to_string(&value).unwrap_or_default();
        self.attributes.recorder.annotate(key, value);
    }

    /// kube's `patch.webhook.admission.k8s.io/round_<r>_index_<i>` annotation.
    fn annotate_patch(&self, invocation: &Invocation, at: At, ops: Value) {
        let hook = &invocation.hook;
        let value = PatchAnnotation {
            configuration: &hook.configuration,
            webhook: &hook.name,
            patch: ops,
            patch_type: "JSONPatch",
        };
        let key = at.key("patch.webhook.admission.k8s.io");
        let value = serde_json::to_string(&value).unwrap_or_default();
        // kube's patch annotations are logged at Request level and above only.
        let level = crate::audit::Level::Request;
        self.attributes.recorder.annotate_at(level, key, value);
    }

    fn call_labels<'h>(&self, hook: &'h Hook) -> WebhookCall<'h> {
        WebhookCall {
            name: &hook.name,
            kind: "admit",
            operation: self.attributes.operation.as_str(),
        }
    }

    /// kube's webhook metrics for one call.
    fn observe(&self, hook: &Hook, outcome: &Result<bool, CallFailure>, started: Instant) {
        let metrics = &self.webhooks.metrics;
        let labels = self.call_labels(hook);
        let elapsed = started.elapsed();
        match outcome {
            Ok(_) => metrics.observe_webhook(labels, false, 200, elapsed),
            Err(CallFailure::Calling { code, .. }) => {
                let rejected = hook.failure_policy == FailurePolicy::Fail;
                if rejected {
                    metrics.observe_rejection(labels, RejectionType::CallingWebhook, *code);
                }
                metrics.observe_webhook(labels, rejected, *code, elapsed);
            }
            Err(CallFailure::Rejected { code, .. }) => {
                metrics.observe_rejection(labels, RejectionType::NoError, *code);
                metrics.observe_webhook(labels, true, *code, elapsed);
            }
            Err(CallFailure::Other(_)) => {
                metrics.observe_rejection(labels, RejectionType::Internal, 0);
                metrics.observe_webhook(labels, true, 0, elapsed);
            }
        }
    }
}

/// The answer's patch applied to the object the hook saw (kube's `callAttrMutatingHook`
/// after the call): `None` when there is nothing to apply; the patched object and the
/// patch's operations.
fn patched(
    invocation: &Invocation,
    response: &Response,
    seen: Option<&Value>,
) -> Result<Option<(Value, Value)>, CallFailure> {
    let name = &invocation.hook.name;
    let Some(patch) = response.patch.as_deref() else {
        return Ok(None);
    };
    let ops: Value = serde_json::from_slice(patch).map_err(|e| CallFailure::Calling {
        reason: format!("received undecodable patch in webhook response: {e}"),
        code: 503,
    })?;
    if !ops.is_array() {
        return Err(CallFailure::Calling {
            reason: "received undecodable patch in webhook response: json: cannot unmarshal object into Go value of type jsonpatch.Patch".into(),
            code: 503,
        });
    }
    if ops.as_array().is_some_and(Vec::is_empty) {
        return Ok(None);
    }
    let Some(seen) = seen else {
        return Err(CallFailure::Other(ApiError::Internal(format!(
            "admission webhook {} attempted to modify the object, which is not supported for this operation",
            crate::gofmt::quote(name)
        ))));
    };
    if response.patch_type != "JSONPatch" {
        return Err(CallFailure::Calling {
            reason: format!(
                "unsupported patch type {}",
                crate::gofmt::quote(&response.patch_type)
            ),
            code: 500,
        });
    }
    let patched = jsonpatch::apply(seen, &ops, None)
        .map_err(|e| CallFailure::Other(ApiError::Internal(e.to_string())))?;
    if !patched.is_object() || patched.get("kind").and_then(Value::as_str).is_none() {
        return Err(CallFailure::Other(ApiError::Internal(format!(
            "Object 'Kind' is missing in '{patched}'"
        ))));
    }
    Ok(Some((patched, ops)))
}

impl Webhooks {
    /// kube's `ShouldCallHook`: the hook's invocation for this request, or `None`; the
    /// matchConditions judged with the hook's failure policy.
    pub async fn invocation(
        &self,
        facts: &RequestFacts,
        hook: &std::sync::Arc<Hook>,
        attributes: &Attributes<'_>,
        object: Option<&Value>,
    ) -> Result<Option<Invocation>, ApiError> {
        let Some(invocation) = facts.should_call(hook, attributes, object)? else {
            return Ok(None);
        };
        match self
            .conditions_match(&invocation, attributes, object)
            .await?
        {
            true => Ok(Some(invocation)),
            false => Ok(None),
        }
    }
}

#[cfg(test)]
mod tests;
