//! kube's `smd_test.go` / `json_patch_test.go` behaviours over a CRD's type: merges,
//! refusals with kube's texts, and JSON patch outcomes.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::{Value as Json, json};

use super::*;
use crate::schema::Schema;
use crate::schema::typed::resource_type;

fn crd() -> TypeRef {
    resource_type(&Schema::parse(&json!({
        "type": "object",
        "properties": {
            "spec": {
                "type": "object",
                "properties": {
                    "replicas": {"type": "integer"},
                    "name": {"type": "string"},
                    "ports": {"type": "array", "x-kubernetes-list-type": "map",
                              "x-kubernetes-list-map-keys": ["containerPort"],
                              "items": {"type": "object", "properties": {
                                  "containerPort": {"type": "integer"},
                                  "name": {"type": "string"}}}},
                    "selector": {"type": "object", "x-kubernetes-map-type": "atomic",
                                 "additionalProperties": {"type": "string"}},
                    "args": {"type": "array", "items": {"type": "string"}},
                    "tags": {"type": "object", "additionalProperties": {
                        "type": "object", "x-kubernetes-map-type": "atomic",
                        "additionalProperties": {"type": "string"}}}
                }
            }
        }
    })))
}

fn live() -> Json {
    json!({
        "apiVersion": "example.com/v1", "kind": "Widget",
        "metadata": {"name": "w", "labels": {"a": "1"}},
        "spec": {"replicas": 1, "name": "x",
                 "ports": [{"containerPort": 80, "name": "http"}, {"containerPort": 443}],
                 "selector": {"app": "w"}, "args": ["-v"]}
    })
}

fn map(v: Json) -> JsonMap<String, Json> {
    match v {
        Json::Object(m) => m,
        _ => panic!("not an object"),
    }
}

#[test]
fn apply_configuration_merged_with_ssa_rules() {
    let ty = crd();
    let cases: &[(Json, Json)] = &[
        // Scalars replaced, others kept; labels merge per key.
        (
            json!({"spec": {"replicas": 3}, "metadata": {"labels": {"b": "2"}}}),
            json!({"apiVersion": "example.com/v1", "kind": "Widget",
                   "metadata": {"name": "w", "labels": {"a": "1", "b": "2"}},
                   "spec": {"replicas": 3, "name": "x",
                            "ports": [{"containerPort": 80, "name": "http"}, {"containerPort": 443}],
                            "selector": {"app": "w"}, "args": ["-v"]}}),
        ),
        // A list-map item merged by key, a new one appended.
        (
            json!({"spec": {"ports": [{"containerPort": 443, "name": "https"}, {"containerPort": 8080}]}}),
            json!({"apiVersion": "example.com/v1", "kind": "Widget",
                   "metadata": {"name": "w", "labels": {"a": "1"}},
                   "spec": {"replicas": 1, "name": "x",
                            "ports": [{"containerPort": 80, "name": "http"},
                                      {"containerPort": 443, "name": "https"},
                                      {"containerPort": 8080}],
                            "selector": {"app": "w"}, "args": ["-v"]}}),
        ),
        // The patch's own apiVersion/kind are replaced by the object's.
        (json!({"kind": "Other"}), live()),
    ];
    for (patch, want) in cases {
        let got = apply_configuration(&ty, &live(), map(patch.clone()));
        assert_eq!(got.as_ref(), Ok(want), "{patch}");
    }
}

#[test]
fn apply_configuration_refused_with_kube_texts() {
    let ty = crd();
    let cases: &[(Json, &str)] = &[
        (
            json!({"spec": {"args": ["-q"]}}),
            "error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.args",
        ),
        (
            json!({"spec": {"selector": {"app": "v"}, "args": []}}),
            "error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.args, .spec.selector",
        ),
        (
            json!({"spec": {"replicas": "three"}}),
            "error applying patch: failed to convert patch object to typed object: .spec.replicas: expected numeric (int or float), got string",
        ),
        (
            json!({"spec": {"ports": [{"name": "nokey"}]}}),
            "error applying patch: failed to convert patch object to typed object: .spec.ports: element 0: associative list with keys has an element that omits all key fields [\"containerPort\"] (and doesn't have default values for any key fields)",
        ),
        (
            json!({"spec": {"ports": [{"containerPort": 1}, {"containerPort": 1}]}}),
            "error applying patch: failed to convert patch object to typed object: .spec.ports: duplicate entries for key [containerPort=1]",
        ),
    ];
    for (patch, want) in cases {
        let got = apply_configuration(&ty, &live(), map(patch.clone()));
        assert_eq!(
            got.as_ref().err().map(String::as_str),
            Some(*want),
            "{patch}"
        );
    }
}

#[test]
fn find_atomics_map_elements_not_descended() {
    // kube descends only into a map's declared fields: an atomic map under
    // additionalProperties is not found.
    let ty = crd();
    let patch = json!({"spec": {"tags": {"t": {"k": "v"}}}});
    assert_eq!(find_atomics(&ty, &patch), Vec::<String>::new());
}

fn op(op: &str, path: &str, value: Option<Json>) -> JsonPatchOp {
    JsonPatchOp {
        op: op.into(),
        path: path.into(),
        from: String::new(),
        value,
    }
}

#[test]
fn json_patch_applied_with_kube_outcomes() {
    let object = live();
    let mut replaced = live();
    replaced["spec"]["replicas"] = json!(5);
    let cases: Vec<(Vec<JsonPatchOp>, Result<Json, &str>)> = vec![
        (
            vec![op("replace", "/spec/replicas", Some(json!(5)))],
            Ok(replaced.clone()),
        ),
        // A failed test leaves the object as it was, without error.
        (
            vec![
                op("replace", "/spec/replicas", Some(json!(5))),
                op("test", "/spec/name", Some(json!("y"))),
            ],
            Ok(object.clone()),
        ),
        (
            vec![
                op("test", "/spec/name", Some(json!("x"))),
                op("replace", "/spec/replicas", Some(json!(5))),
            ],
            Ok(replaced),
        ),
        (
            vec![op("add", "/spec/missing/x", Some(json!(1)))],
            Err(
                "JSON Patch: add operation does not apply: doc is missing path: \"/spec/missing/x\": missing value",
            ),
        ),
        (
            vec![op("remove", "/spec/nothing", None)],
            Err(
                "JSON Patch: error in remove for path: '/spec/nothing': Unable to remove nonexistent key: nothing: missing value",
            ),
        ),
    ];
    for (ops, want) in cases {
        let got = apply_json_patch(&object, &ops);
        match want {
            Ok(w) => assert_eq!(got, Ok(w), "{ops:?}"),
            Err(w) => assert_eq!(got.as_ref().err().map(String::as_str), Some(w), "{ops:?}"),
        }
    }
}
