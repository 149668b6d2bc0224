//! Webhook admission end to end (issue 30): the real server in dev mode following the fake
//! core API's Mutating/ValidatingWebhookConfigurations (tests/common/fake_kube.rs), calling
//! a real HTTPS webhook (tests/common/webhook.rs). Each test asserts on the answer, the
//! object stored (read back) and the AdmissionReviews the webhook received:
//! - `configurations`: changes followed without restart, writes waiting for the first list
//!   then refused with kube's "not yet ready" 403, dev mode's one start-up line;
//! - `defaulting`: the mutated object defaulted after each patch, unknown fields pruned
//!   once the mutating phase is over;
//! - `flags`: `--admission-webhook-service-address` and `--admission-control-config-file`;
//! - `parallel`: validating webhooks called at once, the first denial answered;
//! - `warnings`: `Warning` headers (refusals and dry runs too, duplicates once) and
//!   auditAnnotations;
//! - `metrics`: kube's admission metrics counting the calls made;
//! - `pooling`: 64 concurrent creates over a handful of HTTP/2 connections.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;
#[path = "common/fake_kube.rs"]
mod fake_kube;
#[path = "common/webhook.rs"]
mod webhook;
#[path = "common/webhook_host.rs"]
mod webhook_host;

#[path = "admission_webhooks/configurations.rs"]
mod configurations;
#[path = "admission_webhooks/defaulting.rs"]
mod defaulting;
#[path = "admission_webhooks/flags.rs"]
mod flags;
#[path = "admission_webhooks/metrics.rs"]
mod metrics;
#[path = "admission_webhooks/parallel.rs"]
mod parallel;
#[path = "admission_webhooks/pooling.rs"]
mod pooling;
#[path = "admission_webhooks/warnings.rs"]
mod warnings;

use serde_json::{Value, json};
use webhook::{Behaviour, Review, Webhook};

/// A `clientConfig` calling `path` of `hook`, trusting its CA.
fn at(hook: &Webhook, path: &str) -> Value {
    webhook_host::url_config(&hook.url(path), &hook.ca_pem())
}

/// `metadata.name` of each review's object (of `oldObject` when there is none).
fn names(reviews: &[Review]) -> Vec<String> {
    reviews
        .iter()
        .map(|r| {
            let request = r.request();
            let object = match request["object"].is_object() {
                true => &request["object"],
                false => &request["oldObject"],
            };
            object["metadata"]["name"].as_str().unwrap().to_string()
        })
        .collect()
}

/// Allows, with `warnings` (none when empty), denies objects labelled `deny=true` with
/// 403 `denied: <name>`.
fn deny_labelled(warnings: &'static [&'static str]) -> Behaviour {
    Behaviour::custom(move |request| {
        let object = &request["object"];
        match object["metadata"]["labels"]["deny"] == json!("true") {
            true => json!({"allowed": false, "warnings": warnings, "status": {"code": 403,
                "reason": "Forbidden",
                "message": format!("denied: {}", object["metadata"]["name"].as_str().unwrap())}}),
            false => json!({"allowed": true, "warnings": warnings}),
        }
    })
}
