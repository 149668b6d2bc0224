//! Validation ratcheting: which unchanged values keep their errors quiet on update.

use serde_json::{Value, json};

use super::tests::messages;
use super::*;

fn spec_schema(spec: Value) -> Schema {
    Schema::parse(&json!({
        "type": "object",
        "properties": {"kind": {"type": "string", "enum": ["CronTab"]}, "spec": spec}
    }))
}

fn replicas_schema() -> Schema {
    spec_schema(json!({
        "type": "object",
        "required": ["image"],
        "properties": {
            "image": {"type": "string"},
            "note": {"type": "string"},
            "replicas": {"type": "number", "maximum": 10},
            "items": {"type": "array", "items": {"type": "string", "maxLength": 1}},
            "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string", "maxLength": 1}},
            "ports": {
                "type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                "items": {"type": "object", "properties": {"name": {"type": "string"}, "port": {"type": "integer", "maximum": 100}}}
            },
            "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": true, "required": ["id"]}
        },
        "allOf": [{"properties": {"note": {"maxLength": 1}}}]
    }))
}

fn update(new_spec: Value, old_spec: Value) -> Vec<String> {
    let new = json!({"kind": "CronTab", "metadata": {"name": "a"}, "spec": new_spec});
    let old = json!({"kind": "CronTab", "metadata": {"name": "a"}, "spec": old_spec});
    messages(&validate_update(&replicas_schema(), &new, &old))
}

const TOO_MANY: &str =
    "spec.replicas: Invalid value: 15: spec.replicas in body should be less than or equal to 10";

/// (case, new spec, old spec, expected `field: detail` lines), JSON as text.
type Case = (
    &'static str,
    &'static str,
    &'static str,
    &'static [&'static str],
);

const RATCHET_CASES: &[Case] = &[
    (
        "unchanged invalid field ratcheted",
        r#"{"image": "b", "replicas": 15}"#,
        r#"{"image": "a", "replicas": 15}"#,
        &[],
    ),
    (
        "changed invalid field reported",
        r#"{"image": "a", "replicas": 15}"#,
        r#"{"image": "a", "replicas": 16}"#,
        &[TOO_MANY],
    ),
    (
        "newly set invalid field reported",
        r#"{"image": "a", "replicas": 15}"#,
        r#"{"image": "a"}"#,
        &[TOO_MANY],
    ),
    (
        "int to float is a change",
        r#"{"image": "a", "replicas": 15.0}"#,
        r#"{"image": "a", "replicas": 15}"#,
        &[
            "spec.replicas: Invalid value: 15: spec.replicas in body should be less than or equal to 10",
        ],
    ),
    (
        "required on changed parent reported",
        r#"{"replicas": 2}"#,
        r#"{"replicas": 1}"#,
        &["spec.image: Required value"],
    ),
    (
        "atomic list items not correlated",
        r#"{"image": "a", "items": ["aa", "c"]}"#,
        r#"{"image": "a", "items": ["aa", "b"]}"#,
        &["spec.items[0]: Too long: may not be more than 1 byte"],
    ),
    (
        "unchanged atomic list ratcheted",
        r#"{"image": "b", "items": ["aa"]}"#,
        r#"{"image": "a", "items": ["aa"]}"#,
        &[],
    ),
    (
        "set items not correlated",
        r#"{"image": "a", "tags": ["aa", "c"]}"#,
        r#"{"image": "a", "tags": ["aa", "b"]}"#,
        &["spec.tags[0]: Too long: may not be more than 1 byte"],
    ),
    (
        "list-map item correlated by key",
        r#"{"image": "a", "ports": [{"name": "b", "port": 1}, {"name": "a", "port": 500}]}"#,
        r#"{"image": "a", "ports": [{"name": "a", "port": 500}]}"#,
        &[],
    ),
    (
        "list-map item changed",
        r#"{"image": "a", "ports": [{"name": "a", "port": 501}]}"#,
        r#"{"image": "a", "ports": [{"name": "a", "port": 500}]}"#,
        &[
            "spec.ports[0].port: Invalid value: 501: spec.ports[0].port in body should be less than or equal to 100",
        ],
    ),
    (
        "unknown fields are never unchanged",
        r#"{"image": "b", "extra": {"foo": 1}}"#,
        r#"{"image": "a", "extra": {"foo": 1}}"#,
        &["spec.extra.id: Required value"],
    ),
    (
        "allOf branches not ratcheted inside changed parent",
        r#"{"image": "b", "note": "ab"}"#,
        r#"{"image": "a", "note": "ab"}"#,
        &[
            "spec.note: Too long: may not be more than 1 byte",
            r#"<nil>: Invalid value: "": "spec" must validate all the schemas (allOf). None validated"#,
        ],
    ),
];

#[test]
fn ratcheting_table() {
    for (name, new, old, want) in RATCHET_CASES {
        let parse = |text: &str| -> Value { serde_json::from_str(text).expect(name) };
        assert_eq!(update(parse(new), parse(old)), want.to_vec(), "{name}");
    }
}

#[test]
fn ratcheting_unchanged_parent_drops_required_and_allof_errors() {
    let schema = replicas_schema();
    let spec = json!({"note": "ab"});
    let new =
        json!({"kind": "CronTab", "metadata": {"name": "a", "labels": {"x": "1"}}, "spec": spec});
    let old = json!({"kind": "CronTab", "metadata": {"name": "a"}, "spec": spec});
    assert_eq!(validate_update(&schema, &new, &old), vec![]);
    assert_eq!(validate(&schema, &new).len(), 3);
}

#[test]
fn ratcheting_never_applies_to_root_kind() {
    let schema = replicas_schema();
    let new = json!({"kind": "Other", "spec": {"image": "b"}});
    let old = json!({"kind": "Other", "spec": {"image": "a"}});
    assert_eq!(
        messages(&validate_update(&schema, &new, &old)),
        vec![r#"kind: Unsupported value: "Other": supported values: "CronTab""#]
    );
}

#[test]
fn status_update_validates_status_under_its_path() {
    let schema = Schema::parse(&json!({
        "type": "object",
        "properties": {
            "spec": {"type": "object", "properties": {"n": {"type": "integer", "maximum": 1}}},
            "status": {"type": "object", "properties": {"count": {"type": "integer", "minimum": 0}}}
        }
    }));
    let obj = |count: i64| json!({"spec": {"n": 5}, "status": {"count": count}});
    assert_eq!(
        messages(&validate_status_update(&schema, &obj(-1), &obj(0), None)),
        vec!["status.count: Invalid value: -1: count in body should be greater than or equal to 0"]
    );
    assert_eq!(
        validate_status_update(&schema, &obj(-1), &obj(-1), None),
        vec![]
    );
    let no_status = json!({"spec": {"n": 5}});
    assert_eq!(
        messages(&validate_status_update(&schema, &obj(-2), &no_status, None)),
        vec!["status.count: Invalid value: -2: count in body should be greater than or equal to 0"]
    );
    let bad = json!({"status": "x"});
    assert_eq!(
        messages(&validate_status_update(&schema, &bad, &no_status, None)),
        vec![r#"status: Invalid value: "string":  in body must be of type object: "string""#]
    );
}
