//! kube's `typeresolver_test.go` tables (TestTypeResolver, TestCELOptional) and the
//! result conversions of the patchers, with kube's texts.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::{Value as Json, json};

use super::*;
use crate::cel::check;
use crate::cel::env::{Env, stored, with_patch_types};
use crate::cel::eval::{CostTracker, Plan};

fn eval_in(env: &Env, source: &str) -> Result<Result<Json, String>, String> {
    let ast = crate::cel::parse::parse(source).map_err(|e| e.to_string())?;
    let checked = check::check(ast, env, &[])?;
    let plan = Plan::new(&checked, env, &[])?;
    let mut tracker = CostTracker::default();
    Ok(plan
        .evaluate(&[], &mut tracker)
        .map_err(|e| e.to_string())
        .and_then(|v| match json_patch_ops(&v) {
            Ok(ops) if !ops.is_empty() => {
                Ok(Json::Array(ops.iter().map(JsonPatchOp::to_json).collect()))
            }
            _ => match &v {
                crate::cel::value::Value::Opaque(o) if o.as_any().is::<JsonPatchVal>() => {
                    json_patch_ops(&crate::cel::value::Value::list(vec![v.clone()]))
                        .map(|ops| ops[0].to_json())
                }
                _ => to_json(&v),
            },
        }))
}

fn eval(source: &str) -> Result<Result<Json, String>, String> {
    eval_in(&with_patch_types(), source)
}

#[test]
fn mutation_types_constructed_evaluate_as_kube() {
    let cases: &[(&str, Json)] = &[
        ("string(114514)", json!("114514")),
        ("Object{}", json!({})),
        (
            "Object{spec: Object.spec{replicas: 3}}",
            json!({"spec": {"replicas": 3}}),
        ),
        (
            r#"Object{spec: Object.spec{template: Object.spec.template{containers: [
                Object.spec.template.containers.item{name: "nginx", image: "nginx", args: ["-g"]}]}}}"#,
            json!({"spec": {"template": {"containers": [{"name": "nginx", "image": "nginx", "args": ["-g"]}]}}}),
        ),
        ("Object{intList: [1, 2, 3]}", json!({"intList": [1, 2, 3]})),
        (
            r#"Object{annotations: {"foo": "bar"}}"#,
            json!({"annotations": {"foo": "bar"}}),
        ),
        ("Object{intList: [1, 2, 3]}.intList.sum()", json!(6)),
        (
            "Object{spec: Object.spec{replicas: 3}} == Object{spec: Object.spec{replicas: 1 + 2}}",
            json!(true),
        ),
        (
            "Object{spec: Object.spec{replicas: 3}} == Object{spec: Object.spec{replicas: 4}}",
            json!(false),
        ),
        ("dyn(Object.spec{}) == Object{}", json!(false)),
        (
            r#"true ? JSONPatch{op: "add", path: "/spec/replicas", value: 3} : JSONPatch{op: "remove", path: "/spec/replicas"}"#,
            json!({"op": "add", "path": "/spec/replicas", "value": 3}),
        ),
        (
            r#"JSONPatch{op: "remove", path: "/spec/replicas"}"#,
            json!({"op": "remove", "path": "/spec/replicas"}),
        ),
        (
            r#"JSONPatch{op: "move", from: "/spec/a", path: "/spec/b"}"#,
            json!({"op": "move", "path": "/spec/b", "from": "/spec/a"}),
        ),
        (
            r#"JSONPatch{op: "invalid", path: "/x", value: 3}"#,
            json!({"op": "invalid", "path": "/x", "value": 3}),
        ),
        (
            r#"JSONPatch{op: "add", value: 3}"#,
            json!({"op": "add", "path": "", "value": 3}),
        ),
        (r#"JSONPatch{op: "add", path: "/a"}.op"#, json!("add")),
        (
            r#"[JSONPatch{op: "add", path: "/a", value: Object.a{b: [1]}}]"#,
            json!([{"op": "add", "path": "/a", "value": {"b": [1]}}]),
        ),
        // TestCELOptional
        ("Object{?existing: optional.none()}", json!({})),
        (
            "Object{?spec: optional.ofNonZeroValue(Object.spec{?replicas: Object{}.?replicas})}",
            json!({}),
        ),
        ("Object{?spec: optional.of(2)}", json!({"spec": 2})),
        ("Object{}.?existing.hasValue()", json!(false)),
        ("has(Object{a: 1}.a) && !has(Object{}.a)", json!(true)),
        ("Object{}.missing", json!(null)),
        (
            r#""/metadata/labels/" + jsonpatch.escapeKey("k8s.io/my~label")"#,
            json!("/metadata/labels/k8s.io~1my~0label"),
        ),
    ];
    for (source, want) in cases {
        let got = eval(source).unwrap_or_else(|e| panic!("{source}: {e}"));
        assert_eq!(got.as_ref(), Ok(want), "{source}");
    }
}

#[test]
fn mutation_types_misused_refused_with_cel_go_texts() {
    let cases: &[(&str, &str)] = &[
        (
            "Invalid{}",
            "undeclared reference to 'Invalid' (in container '')",
        ),
        (
            r#"JSONPatch{op: "add", path: "/spec/replicas", value: Invalid{}}"#,
            "undeclared reference to 'Invalid'",
        ),
        (
            r#"JSONPatch{op: 1, path: "/spec/replicas", value: 3}"#,
            "expected type of field 'op' is 'string' but provided type is 'int'",
        ),
        (
            r#"JSONPatch{op: "add", path: 1, value: 3}"#,
            "expected type of field 'path' is 'string' but provided type is 'int'",
        ),
        (
            r#"JSONPatch{op: "move", from: 1, path: "/a"}"#,
            "expected type of field 'from' is 'string' but provided type is 'int'",
        ),
        ("Objects{}", "undeclared reference to 'Objects'"),
        (
            "Object.spec{} == Object{}",
            "found no matching overload for '_==_' applied to '(Object.spec, Object)'",
        ),
        (
            "Object{?a: 1}",
            "expected type 'optional_type(int)' but found 'int'",
        ),
    ];
    for (source, want) in cases {
        let err = eval(source).expect_err(source);
        assert!(err.contains(want), "{source}: {err}");
    }
    // Without the option no type is declared: the stored CRD rules' environment.
    let err = eval_in(&stored(), "Object{}").expect_err("stored env");
    assert!(
        err.contains("undeclared reference to 'Object' (in container '')"),
        "{err}"
    );
    let err = eval_in(&stored(), "jsonpatch.escapeKey('a')").expect_err("stored env");
    assert!(err.contains("undeclared reference to 'jsonpatch'"), "{err}");
}

#[test]
fn mutation_output_checked_exact_type_with_kube_texts() {
    let env = with_patch_types();
    let cases: &[(&str, Output, Option<&str>)] = &[
        ("Object{}", Output::ApplyConfiguration, None),
        (
            "Object.spec{}",
            Output::ApplyConfiguration,
            Some("must evaluate to Object but got Object.spec"),
        ),
        (
            "object",
            Output::ApplyConfiguration,
            Some("must evaluate to Object but got dyn"),
        ),
        (
            r#"[JSONPatch{op: "add", path: "/a", value: 1}]"#,
            Output::JsonPatch,
            None,
        ),
        (
            "[]",
            Output::JsonPatch,
            Some("must evaluate to list(JSONPatch) but got list(dyn)"),
        ),
        (
            r#"JSONPatch{op: "add"}"#,
            Output::JsonPatch,
            Some("must evaluate to list(JSONPatch) but got JSONPatch"),
        ),
        (
            "Object{",
            Output::ApplyConfiguration,
            Some("compilation failed: ERROR: <input>:1:8"),
        ),
    ];
    for (source, output, want) in cases {
        let got = MutationProgram::compile(&env, source, *output);
        match want {
            None => assert!(got.is_ok(), "{source}: {:?}", got.err()),
            Some(w) => {
                let err = got.expect_err(source);
                assert!(err.starts_with(w), "{source}: {err}");
            }
        }
    }
}

#[test]
fn mutation_result_converted_with_kube_refusals() {
    let env = with_patch_types();
    let object = json!({"spec": {"replicas": 1, "name": "x"}});
    let request = json!({});
    let run = |source: &str, output: Output| {
        let p = MutationProgram::compile(&env, source, output).unwrap();
        let input = MutationInput {
            object: Some(&object),
            old_object: None,
            request: &request,
            params: None,
        };
        let v = p.evaluate(&input, &mut CostTracker::default()).unwrap();
        match output {
            Output::ApplyConfiguration => object_json(&v).map(Json::Object),
            Output::JsonPatch => json_patch_ops(&v)
                .map(|ops| Json::Array(ops.iter().map(JsonPatchOp::to_json).collect())),
        }
    };
    let ac = Output::ApplyConfiguration;
    let jp = Output::JsonPatch;
    let cases: &[(&str, Output, Result<Json, &str>)] = &[
        (
            "Object{spec: Object.spec{replicas: object.spec.replicas + 1, name: object.spec.name}}",
            ac,
            Ok(json!({"spec": {"replicas": 2, "name": "x"}})),
        ),
        (
            "Object{spec: Object.spec{selector: Object.spec.wrong{}}}",
            ac,
            Err(
                r#"type mismatch: unexpected type name "Object.spec.wrong", expected "Object.spec.selector", which matches field name path from root Object type"#,
            ),
        ),
        (
            "Object{spec: Object.spec{items: [Object.spec.other{}]}}",
            ac,
            Err(
                r#"type mismatch: unexpected type name "Object.spec.other", expected "Object.spec.items""#,
            ),
        ),
        (
            "Object{d: duration('1s')}",
            ac,
            Err(r#"fail to convert field "d": invalid type: time.Duration"#),
        ),
        (
            "Object{m: {1: 2}}",
            ac,
            Err(r#"fail to convert field "m": map key 1 is of type int64, not string"#),
        ),
        (
            r#"[JSONPatch{op: "replace", path: "/spec/replicas", value: object.spec.replicas * 3}]"#,
            jp,
            Ok(json!([{"op": "replace", "path": "/spec/replicas", "value": 3}])),
        ),
        (
            r#"[JSONPatch{op: "add", path: "/spec/x", value: Object.spec{y: Object.z{}}}]"#,
            jp,
            Err(r#"type mismatch: unexpected type name "Object.z", expected "Object.spec.y""#),
        ),
        (
            r#"[JSONPatch{op: "add", path: "/spec/x", value: timestamp('2020-01-01T00:00:00Z')}]"#,
            jp,
            Err(
                "JSONPath valueExpression evaluated to a type that could not marshal to JSON: invalid type: time.Time",
            ),
        ),
    ];
    for (source, output, want) in cases {
        let got = run(source, *output);
        match want {
            Ok(w) => assert_eq!(got.as_ref(), Ok(w), "{source}"),
            Err(w) => {
                let err = got.expect_err(source);
                assert!(err.starts_with(w), "{source}: {err}");
            }
        }
    }
}

#[test]
fn mutation_struct_runtime_errors_with_kube_texts() {
    let cases: &[(&str, &str)] = &[
        (
            "Object{?a: dyn(1)}",
            "cannot initialize optional entry 'a' from non-optional value 1",
        ),
        (
            r#"JSONPatch{op: dyn(1)}"#,
            "unexpected type int64 for JSONPatchType 'op' field",
        ),
        (
            r#"JSONPatch{op: "add", extra: 1}"#,
            "unexpected JSONPatchType field: extra",
        ),
    ];
    for (source, want) in cases {
        let got = eval(source).unwrap_or_else(|e| panic!("{source}: {e}"));
        assert_eq!(got.map_err(|e| e == *want), Err(true), "{source}");
    }
}
