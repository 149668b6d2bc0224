//! ValidatingAdmissionPolicy evaluation cost, in process (issue 31's "≤ 5 µs of server CPU
//! per create on top of no policy"): the policy of the throughput bench's `policy` section
//! (one variable, three validations, `Deny`) compiled once, then what the plugin does per
//! create after matching — the `request` variables built where an expression can read
//! them (`Reads`), the inputs bound, every
//! validation and the variable evaluated, the decisions acted on — timed over batches of
//! the 1 KiB CronTab. The full-stack cell (with against without the policy, and kube's
//! server) is `BENCH_ONLY=policy,policy-reference cargo bench --bench throughput`.
//!
//! Run: `cargo bench --bench policy`. Prints the median µs per evaluation.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a harness fails loudly

use std::hint::black_box;
use std::time::{Duration, Instant};

use crd_apiserver::admission::Recorder;
use crd_apiserver::admission::policy::validating::metrics::ValidatingMetrics;
use crd_apiserver::admission::policy::validating::{
    Entry, Invocation, ValidateInput, Validator, dispatch,
};
use crd_apiserver::admission::webhook::conditions::{ConditionInput, Gvk, Gvr, request_json};
use crd_apiserver::request::user::UserInfo;
use k8s_openapi::api::admissionregistration::v1::ValidatingAdmissionPolicySpec;
use serde_json::{Value, json};

#[path = "policy/fixture.rs"]
mod fixture;
#[path = "policy/plugin.rs"]
mod plugin;

const ROUNDS: usize = 21;
const BATCH: usize = 2_000;
const GOAL_US: f64 = 5.0;

/// The policy's spec.
fn spec() -> ValidatingAdmissionPolicySpec {
    let [policy, _] = fixture::policy_and_binding();
    serde_json::from_value(policy["spec"].clone()).unwrap()
}

/// The throughput bench's 1 KiB CronTab, as the plugin sees it on create.
fn object() -> Value {
    let mut o = json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
        "metadata": {"name": "c1", "namespace": "default", "uid": "0b6f5c1e-7e1c-4a59-9f51-1f0c0b7d2f11",
            "creationTimestamp": "2026-12-07T10:00:00Z", "generation": 1},
        "spec": {"cronSpec": "* * * * */5", "image": ""}});
    let pad = 1024usize.saturating_sub(o.to_string().len());
    o["spec"]["image"] = json!("x".repeat(pad));
    o
}

fn main() {
    let validator = Validator::compile(&spec());
    assert!(validator.compile_errors().is_empty(), "the policy compiles");
    let (object, user) = (
        object(),
        UserInfo::new("admin".into(), vec!["system:masters".into()]),
    );
    let metrics = ValidatingMetrics::default();
    let kind = Gvk {
        group: "stable.example.com",
        version: "v1",
        kind: "CronTab",
    };
    let resource = Gvr {
        group: "stable.example.com",
        version: "v1",
        resource: "crontabs",
    };
    let options = json!({"apiVersion": "meta.k8s.io/v1", "kind": "CreateOptions"});
    let actions = vec!["Deny".to_string()];
    let one = || {
        let input = ConditionInput {
            kind,
            request_kind: kind,
            resource,
            request_resource: resource,
            sub_resource: "",
            name: "c1",
            namespace: "default",
            operation: "CREATE",
            user: &user,
            dry_run: false,
            options: Some(&options),
            object: None,
            old_object: None,
        };
        // As the plugin: a `request` no expression can read is bound as null.
        let build = |used: bool| {
            if used {
                request_json(&input)
            } else {
                Value::Null
            }
        };
        let uses = validator.reads;
        let (request, match_request) = (build(uses.request), build(uses.match_request));
        let recorder = Recorder::default();
        let entries = [Entry::Invocation(Invocation {
            policy: "bench",
            binding: "bench",
            validation_actions: &actions,
            validator: &validator,
            input: ValidateInput {
                object: Some(&object),
                old_object: None,
                params: None,
                namespace_object: None,
                request: &request,
                match_request: &match_request,
                authorizer: None,
            },
        })];
        let denial = dispatch(&entries, &recorder, &metrics);
        assert!(denial.is_none(), "the bench policy admits the CronTab");
        black_box(recorder.take_warnings());
    };
    let mut rounds: Vec<Duration> = (0..ROUNDS)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..BATCH {
                one();
            }
            start.elapsed() / BATCH as u32
        })
        .collect();
    rounds.sort();
    let median = rounds[ROUNDS / 2].as_secs_f64() * 1e6;
    println!(
        "ValidatingAdmissionPolicy (1 variable, 3 validations), evaluation per create: {median:.2} µs \
         (median of {ROUNDS} batches of {BATCH}); goal ≤ {GOAL_US} µs: {:.2}× the goal",
        median / GOAL_US
    );
    let [policy, binding] = fixture::policy_and_binding();
    let whole = plugin::per_create(policy, binding, &object, ROUNDS, BATCH);
    println!(
        "the whole plugin per create (snapshot, matching, inputs, evaluation): {whole:.2} µs; \
         goal ≤ {GOAL_US} µs: {:.2}× the goal",
        whole / GOAL_US
    );
}
