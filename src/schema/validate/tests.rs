//! Shared test helpers and the seed's CronTab validation example.

use serde_json::{Value, json};

use super::*;
use crate::error::{ErrorType, FieldError};

/// `field: detail` of each error, as kubectl prints causes.
pub(super) fn messages(errors: &[FieldError]) -> Vec<String> {
    errors.iter().map(FieldError::message).collect()
}

/// A root schema whose `spec.x` has the schema `prop`.
pub(super) fn spec_x(prop: Value) -> Schema {
    Schema::parse(&json!({
        "type": "object",
        "properties": {"spec": {"type": "object", "properties": {"x": prop}}}
    }))
}

/// The errors of `{spec: {x: value}}` against a `spec.x` schema.
pub(super) fn check_x(prop: Value, value: Value) -> Vec<String> {
    messages(&validate(&spec_x(prop), &json!({"spec": {"x": value}})))
}

fn crontab_schema() -> Schema {
    Schema::parse(&json!({
        "type": "object",
        "properties": {
            "spec": {
                "type": "object",
                "properties": {
                    "cronSpec": {"type": "string", "pattern": r"^(\d+|\*)(/\d+)?(\s+(\d+|\*)(/\d+)?){4}$"},
                    "image": {"type": "string"},
                    "replicas": {"type": "integer", "minimum": 1, "maximum": 10}
                }
            }
        }
    }))
}

fn crontab(spec: Value) -> Value {
    json!({
        "apiVersion": "stable.example.com/v1",
        "kind": "CronTab",
        "metadata": {"name": "my-new-cron-object", "namespace": "default", "uid": "e14d79e7"},
        "spec": spec
    })
}

#[test]
fn validate_seed_crontab_invalid_reports_pattern_and_maximum() {
    let errors = validate(
        &crontab_schema(),
        &crontab(json!({"cronSpec": "* * * *", "image": "my-awesome-cron-image", "replicas": 15})),
    );
    assert_eq!(
        messages(&errors),
        vec![
            r#"spec.cronSpec: Invalid value: "* * * *": spec.cronSpec in body should match '^(\d+|\*)(/\d+)?(\s+(\d+|\*)(/\d+)?){4}$'"#,
            "spec.replicas: Invalid value: 15: spec.replicas in body should be less than or equal to 10",
        ]
    );
    assert!(errors.iter().all(|e| e.reason == ErrorType::Invalid));
}

#[test]
fn validate_seed_crontab_valid_accepted() {
    let object = crontab(
        json!({"cronSpec": "* * * * */5", "image": "my-awesome-cron-image", "replicas": 5}),
    );
    assert_eq!(validate(&crontab_schema(), &object), vec![]);
}

#[test]
fn validate_brief_examples_match_kube_text() {
    let cases = [
        (
            "maximum",
            json!({"type": "integer", "maximum": 10}),
            json!(11),
            "spec.x: Invalid value: 11: spec.x in body should be less than or equal to 10",
        ),
        (
            "type",
            json!({"type": "string"}),
            json!(5),
            r#"spec.x: Invalid value: "integer": spec.x in body must be of type string: "integer""#,
        ),
        (
            "enum",
            json!({"type": "string", "enum": ["a", "b"]}),
            json!("c"),
            r#"spec.x: Unsupported value: "c": supported values: "a", "b""#,
        ),
    ];
    for (name, prop, value, want) in cases {
        assert_eq!(check_x(prop, value), vec![want], "{name}");
    }
    let schema = Schema::parse(&json!({
        "type": "object",
        "properties": {"spec": {"type": "object", "required": ["image"], "properties": {"image": {"type": "string"}}}}
    }));
    let errors = validate(&schema, &json!({"spec": {}}));
    assert_eq!(messages(&errors), vec!["spec.image: Required value"]);
    assert_eq!(errors[0].reason, ErrorType::Required);
}

#[test]
fn validate_reasons_follow_kube_conversion() {
    let cases = [
        (
            "type",
            json!({"type": "string"}),
            json!(1),
            "FieldValueTypeInvalid",
        ),
        (
            "format",
            json!({"type": "string", "format": "uuid"}),
            json!("x"),
            "FieldValueTypeInvalid",
        ),
        (
            "enum",
            json!({"enum": ["a"]}),
            json!("b"),
            "FieldValueNotSupported",
        ),
        (
            "max length",
            json!({"maxLength": 1}),
            json!("ab"),
            "FieldValueTooLong",
        ),
        (
            "max items",
            json!({"maxItems": 0}),
            json!([1]),
            "FieldValueTooMany",
        ),
        (
            "max properties",
            json!({"maxProperties": 0}),
            json!({"a": 1}),
            "FieldValueTooMany",
        ),
        (
            "min length",
            json!({"minLength": 3}),
            json!("ab"),
            "FieldValueInvalid",
        ),
    ];
    for (name, prop, value, reason) in cases {
        let errors = validate(&spec_x(prop), &json!({"spec": {"x": value}}));
        assert_eq!(errors.len(), 1, "{name}");
        assert_eq!(errors[0].reason.reason(), reason, "{name}");
    }
}

#[test]
fn validate_many_failing_items_each_reported_once() {
    let items = vec![json!(1); 50_000];
    let errors = validate(
        &spec_x(json!({"type": "array", "items": {"type": "string"}})),
        &json!({"spec": {"x": items}}),
    );
    assert_eq!(errors.len(), 50_000);
    assert_eq!(
        errors[49_999].message(),
        r#"spec.x[49999]: Invalid value: "integer": spec.x[49999] in body must be of type string: "integer""#
    );
}

#[test]
fn validate_many_failing_map_values_each_reported() {
    let schema = Schema::parse(&json!({
        "type": "object",
        "properties": {"spec": {"type": "object", "properties": {"x": {
            "type": "object", "additionalProperties": {"type": "string"}}}}}
    }));
    let map: serde_json::Map<String, Value> =
        (0..50_000).map(|i| (format!("k{i}"), json!(1))).collect();
    let errors = validate(&schema, &json!({"spec": {"x": map}}));
    assert_eq!(errors.len(), 50_000);
    assert_eq!(errors[0].field, "spec.x.k0");
}

#[test]
fn validate_errors_under_long_key_muted_past_budget() {
    let key = "k".repeat(1_500_000);
    let schema = Schema::parse(&json!({
        "type": "object",
        "properties": {"spec": {"type": "object", "additionalProperties": {
            "type": "array", "items": {"type": "string"}}}}
    }));
    let object = json!({"spec": {key.clone(): vec![json!(1); 50_000]}});
    let errors = validate(&schema, &object);
    let reported = 1 + super::result::PATH_BUDGET / 1_500_000;
    assert_eq!(errors.len(), reported);
    assert_eq!(errors[0].field, format!("spec.{key}[0]"));
}

/// `spec.m` maps keys to `item` values.
fn map_of(item: Value) -> Schema {
    Schema::parse(&json!({
        "type": "object",
        "properties": {"spec": {"type": "object", "properties": {"m": {
            "type": "object", "additionalProperties": item}}}}
    }))
}

fn embedded_item() -> Value {
    json!({"type": "object", "x-kubernetes-embedded-resource": true,
        "x-kubernetes-preserve-unknown-fields": true})
}

#[test]
fn embedded_many_extra_controllers_list_rendered_within_budget() {
    let owner =
        json!({"apiVersion": "v1", "kind": "K", "name": "n", "uid": "u", "controller": true});
    let object = json!({"spec": {"m": {"a": {"apiVersion": "v1", "kind": "Pod",
        "metadata": {"ownerReferences": vec![owner; 50_000]}}}}});
    let errors = embedded_errors(&map_of(embedded_item()), &object);
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].field, "spec.m[a].metadata.ownerReferences");
    assert!(errors[0].detail.ends_with("in references for K/n and K/n"));
}

#[test]
fn embedded_errors_under_long_key_stop_past_budget() {
    let key = "k".repeat(1_500_000);
    let item = json!({"type": "array", "items": embedded_item()});
    let object = json!({"spec": {"m": {key.clone(): vec![json!({}); 50_000]}}});
    let errors = embedded_errors(&map_of(item), &object);
    assert!((1..=20).contains(&errors.len()), "{}", errors.len());
    assert_eq!(errors[0].field, format!("spec.m[{key}][0].apiVersion"));
}

#[test]
fn embedded_valid_items_under_long_key_render_no_path() {
    let key = "k".repeat(1_500_000);
    let item = json!({"type": "array", "items": embedded_item()});
    let valid = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a",
        "ownerReferences": [{"apiVersion": "v1", "kind": "K", "name": "n", "uid": "u"}]}});
    let object = json!({"spec": {"m": {key: vec![valid; 20_000]}}});
    assert_eq!(embedded_errors(&map_of(item), &object), vec![]);
}

#[test]
fn list_type_duplicates_under_long_key_stop_past_budget() {
    let key = "k".repeat(1_500_000);
    let item = json!({"type": "array", "x-kubernetes-list-type": "set",
        "items": {"type": "integer"}});
    let object = json!({"spec": {"m": {key.clone(): vec![json!(1); 50_000]}}});
    let errors = list_type_errors(&map_of(item), &object);
    assert!((1..=20).contains(&errors.len()), "{}", errors.len());
    assert_eq!(errors[0].field, format!("spec.m[{key}][1]"));
    assert_eq!(errors[0].detail, "Duplicate value: 1");
}
