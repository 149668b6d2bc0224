//! Admission webhooks given bad input (issue 30, point 8), end to end: the dev server's
//! cluster (`--kubeconfig`) is the fake core API serving webhook configurations that call
//! the Rust test webhook (tests/common/webhook.rs) over real TLS. Each test asserts kube's
//! answer (Status code, reason, message), the stored object read back (nothing changed
//! on a refusal) and the reviews the webhook received, and that the server answers the
//! next request normally:
//! - `answers.rs`: answers that are not JSON, another kind, a wrong uid, a hang, a closed
//!   connection, an oversized body, undecodable patches and patch types, patches that do
//!   not apply, remove `kind`, make the object invalid or rename it; failurePolicy Fail
//!   and Ignore;
//! - `configuration.rs`: a bad objectSelector or a matchCondition that does not compile
//!   beside good webhooks; matchConditions with the authorizer, the user, `object` and
//!   `oldObject`;
//! - `subresources.rs`: a patch on DELETE, mutating webhooks on `/status` and `/scale`.
//!
//! What kube does is in hack/admission-oracle/FINDINGS.md (recorded from the reference)
//! and k8s.io/apiserver's `admission/plugin/webhook` (mutating/dispatcher.go,
//! generic/webhook.go).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

#[path = "common/admission_host.rs"]
mod admission_host;
mod common;
#[path = "common/fake_kube.rs"]
mod fake_kube;
#[path = "common/webhook.rs"]
mod webhook;
#[path = "common/webhook_host.rs"]
mod webhook_host;

#[path = "admission_bad_input/answers.rs"]
mod answers;
#[path = "admission_bad_input/configuration.rs"]
mod configuration;
#[path = "admission_bad_input/subresources.rs"]
mod subresources;
