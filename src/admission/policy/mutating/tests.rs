//! A MutatingAdmissionPolicy's mutations compiled once and run in order (kube's
//! `compilation_test.go` / `dispatcher_test.go` behaviours), with kube's texts.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use k8s_openapi::api::admissionregistration::v1::MutatingAdmissionPolicy;
use serde_json::{Value as Json, json};

use super::compile::{ReinvocationPolicy, compile_mutations};
use super::evaluate::{Hooks, InvocationInput, Outcome, patcher_count_error, run_mutations};
use crate::schema::Schema;
use crate::schema::typed::resource_type;

fn policy(mutations: Json, reinvocation: Option<&str>) -> MutatingAdmissionPolicy {
    serde_json::from_value(json!({
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "MutatingAdmissionPolicy",
        "metadata": {"name": "p"},
        "spec": {"mutations": mutations, "reinvocationPolicy": reinvocation}
    }))
    .unwrap()
}

const NO_HOOKS: Hooks<'static> = Hooks {
    default: &|_| {},
    observe: &|_, _| {},
};

fn object() -> Json {
    json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
           "spec": {"replicas": 1, "args": ["a"]}})
}

fn run(mutations: Json) -> Outcome {
    let ty = resource_type(&Schema::parse(&json!({
        "type": "object",
        "properties": {"spec": {"type": "object", "properties": {
            "replicas": {"type": "integer"},
            "args": {"type": "array", "items": {"type": "string"}}}}}
    })));
    let compiled = compile_mutations(&policy(mutations, None));
    let request = json!({"operation": "CREATE"});
    let input = InvocationInput {
        old_object: None,
        request: &request,
        match_request: &request,
        params: None,
        namespace_object: None,
        authorizer: None,
    };
    run_mutations(&compiled, &ty, Some(object()), &input, &NO_HOOKS)
}

fn ac(e: &str) -> Json {
    json!({"patchType": "ApplyConfiguration", "applyConfiguration": {"expression": e}})
}

fn jp(e: &str) -> Json {
    json!({"patchType": "JSONPatch", "jsonPatch": {"expression": e}})
}

fn with_spec(spec: Json) -> Json {
    let mut o = object();
    o["spec"] = spec;
    o
}

#[test]
fn mutations_run_in_order_each_on_the_previous_result() {
    let got = run(json!([
        ac("Object{spec: Object.spec{replicas: object.spec.replicas + 1}}"),
        jp(
            r#"[JSONPatch{op: "replace", path: "/spec/replicas", value: object.spec.replicas * 10}]"#
        ),
        jp(r#"[JSONPatch{op: "add", path: "/spec/args/-", value: string(object.spec.replicas)}]"#),
    ]));
    assert_eq!(
        got,
        Outcome {
            object: Some(with_spec(json!({"replicas": 20, "args": ["a", "20"]}))),
            errors: vec![],
        }
    );
}

#[test]
fn mutation_failures_reported_with_kube_texts_others_still_applied() {
    let got = run(json!([
        ac("Object{spec: Object.spec{replicas: object.spec.nope}}"),
        ac("Object{spec: Object.spec{args: ['b']}}"),
        jp("[JSONPatch{op: 'remove', path: '/spec/none'}]"),
        ac("Object{spec: "),
        jp(r#"[JSONPatch{op: "replace", path: "/spec/replicas", value: 7}]"#),
    ]));
    assert_eq!(
        got.object,
        Some(with_spec(json!({"replicas": 7, "args": ["a"]})))
    );
    assert_eq!(got.errors.len(), 4, "{:?}", got.errors);
    assert_eq!(
        got.errors[0],
        "expression 'Object{spec: Object.spec{replicas: object.spec.nope}}' resulted in error: no such key: nope"
    );
    assert_eq!(
        got.errors[1],
        "error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.args"
    );
    assert_eq!(
        got.errors[2],
        "JSON Patch: error in remove for path: '/spec/none': Unable to remove nonexistent key: none: missing value"
    );
    assert!(
        got.errors[3].starts_with("compilation failed: ERROR: <input>:1:14: Syntax error"),
        "{}",
        got.errors[3]
    );
}

#[test]
fn mutation_without_object_not_run() {
    let compiled = compile_mutations(&policy(json!([ac("Object{}")]), None));
    let request = json!({});
    let input = InvocationInput {
        old_object: None,
        request: &request,
        match_request: &request,
        params: None,
        namespace_object: None,
        authorizer: None,
    };
    let ty = resource_type(&Schema::parse(&json!({"type": "object"})));
    assert_eq!(
        run_mutations(&compiled, &ty, None, &input, &NO_HOOKS),
        Outcome::default()
    );
}

#[test]
fn compile_mutations_reinvocation_and_missing_bodies_as_kube() {
    let compiled = compile_mutations(&policy(
        json!([ac("Object{}"), {"patchType": "JSONPatch"}]),
        Some("IfNeeded"),
    ));
    assert_eq!(compiled.reinvocation, ReinvocationPolicy::IfNeeded);
    assert_eq!(compiled.patchers.len(), 1);
    assert_eq!(
        patcher_count_error("p", &compiled).as_deref(),
        Some("expected 2 compiled evaluators for policy p, got 1")
    );
    let never = compile_mutations(&policy(json!([ac("Object{}")]), None));
    assert_eq!(never.reinvocation, ReinvocationPolicy::Never);
    assert_eq!(patcher_count_error("p", &never), None);
    let wrong = compile_mutations(&policy(json!([ac("object")]), None));
    assert_eq!(
        wrong.patchers[0]
            .expression
            .program
            .as_ref()
            .err()
            .map(String::as_str),
        Some("must evaluate to Object but got dyn")
    );
}
