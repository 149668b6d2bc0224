//! Shared test helpers and the seed's CronTab validation example.

use serde_json::{Value, json};

use super::*;
use crate::error::FieldError;

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
    assert!(errors.iter().all(|e| e.reason == "FieldValueInvalid"));
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
    assert_eq!(errors[0].reason, "FieldValueRequired");
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
        assert_eq!(errors[0].reason, reason, "{name}");
    }
}
