//! kube's ValidatingAdmissionWebhook dispatcher: every matching hook called at once, after
//! validation; the request waits for all of them, and the first refusal to arrive is the
//! answer (kube takes the first error off its channel). A failed call with
//! `failurePolicy: Ignore` lets the request through with kube's
//! `failed-open.validating.webhook…` audit annotation.

use std::time::Instant;

use futures::StreamExt;
use futures::stream::FuturesUnordered;
use serde_json::Value;

use super::call::{CallFailure, Sent, call};
use super::dispatch::{Webhooks, versioned_objects};
use super::hook::FailurePolicy;
use super::matching::Invocation;
use super::review::Phase;
use crate::admission::Attributes;
use crate::admission::metrics::{RejectionType, WebhookCall};
use crate::error::ApiError;

/// The validating phase of the webhooks over `object` (absent on a delete).
pub async fn validate(
    webhooks: &Webhooks,
    attributes: &Attributes<'_>,
    object: Option<&Value>,
) -> Result<(), ApiError> {
    let hooks = webhooks.hooks(attributes, object).await?;
    if hooks.validating.is_empty() {
        return Ok(());
    }
    let facts = webhooks.request_facts(attributes, &hooks).await;
    let mut relevant = Vec::new();
    for (index, hook) in hooks.validating.iter().enumerate() {
        if let Some(invocation) = webhooks
            .invocation(&facts, hook, attributes, object)
            .await?
        {
            relevant.push((index, invocation));
        }
    }
    let mut calls: FuturesUnordered<_> = relevant
        .iter()
        .map(|(index, invocation)| one(webhooks, attributes, object, *index, invocation))
        .collect();
    let mut first = None;
    while let Some(outcome) = calls.next().await {
        if let (Err(e), None) = (outcome, &first) {
            first = Some(e);
        }
    }
    match first {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// One hook's call, judged: `Ok` when it allowed the request or failed open.
async fn one(
    webhooks: &Webhooks,
    attributes: &Attributes<'_>,
    object: Option<&Value>,
    index: usize,
    invocation: &Invocation,
) -> Result<(), ApiError> {
    let hook = &invocation.hook;
    let [seen, old] = versioned_objects(invocation, attributes, object).await?;
    let sent = Sent {
        attributes,
        object: seen.as_deref(),
        old_object: old.as_deref(),
    };
    let started = Instant::now();
    let outcome = call(&webhooks.validating, invocation, &sent, Phase::Validating).await;
    let metrics = &webhooks.metrics;
    let labels = WebhookCall {
        name: &hook.name,
        kind: "validating",
        operation: attributes.operation.as_str(),
    };
    let elapsed = started.elapsed();
    let failure = match outcome {
        Ok(_) => {
            metrics.observe_webhook(labels, false, 200, elapsed);
            return Ok(());
        }
        Err(failure) => failure,
    };
    match failure {
        CallFailure::Calling { reason, code } => {
            let ignore = hook.failure_policy == FailurePolicy::Ignore;
            if !ignore {
                metrics.observe_rejection(labels, RejectionType::CallingWebhook, code);
            }
            metrics.observe_webhook(labels, !ignore, code, elapsed);
            if ignore {
                tracing::warn!(webhook = %hook.name, error = %reason, "failed calling webhook, failing open");
                metrics.observe_fail_open(labels);
                let key = format!(
                    "failed-open.validating.webhook.admission.k8s.io/round_0_index_{index}"
                );
                attributes.recorder.annotate(key, hook.name.clone());
                return Ok(());
            }
            tracing::warn!(webhook = %hook.name, error = %reason, "failed calling webhook, failing closed");
            Err(CallFailure::failing_closed(&hook.name, &reason))
        }
        CallFailure::Rejected { error, code } => {
            metrics.observe_rejection(labels, RejectionType::NoError, code);
            metrics.observe_webhook(labels, true, code, elapsed);
            Err(error)
        }
        CallFailure::Other(error) => {
            metrics.observe_rejection(labels, RejectionType::Internal, 0);
            metrics.observe_webhook(labels, true, 0, elapsed);
            Err(error)
        }
    }
}
