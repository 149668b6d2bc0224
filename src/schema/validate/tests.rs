//! Shared test helpers, the seed's CronTab validation example and Go value printing.

use serde_json::{Value, json};

use super::gofmt::{go_float, go_json, go_quote};
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

#[test]
fn go_float_matches_go_percent_v() {
    let cases = [
        (10.0, "10"),
        (1.5, "1.5"),
        (0.1, "0.1"),
        (123456.0, "123456"),
        (1e6, "1e+06"),
        (1234567.0, "1.234567e+06"),
        (0.0001, "0.0001"),
        (0.00001, "1e-05"),
        (-2.5e-7, "-2.5e-07"),
        (1e21, "1e+21"),
        (1e100, "1e+100"),
        (0.0, "0"),
    ];
    for (f, want) in cases {
        assert_eq!(go_float(f), want, "{f}");
    }
}

#[test]
fn go_quote_matches_strconv_quote() {
    let cases = [
        ("plain", "abc", r#""abc""#),
        ("quote and backslash", r#"a"b\c"#, r#""a\"b\\c""#),
        ("control", "a\nb\t\u{0}\u{7f}", r#""a\nb\t\x00\x7f""#),
        ("unicode printable", "äö€", "\"äö€\""),
        ("non-breaking space", "a\u{a0}b", r#""a\u00a0b""#),
        ("zero width space", "\u{200b}", r#""\u200b""#),
    ];
    for (name, input, want) in cases {
        assert_eq!(go_quote(input), want, "{name}");
    }
}

#[test]
fn go_json_matches_encoding_json() {
    let cases = [
        (
            "sorted keys",
            json!({"b": 1, "a": [true, null]}),
            r#"{"a":[true,null],"b":1}"#,
        ),
        ("integral float", json!(1.0), "1"),
        ("small float", json!(1.5e-7), "1.5e-7"),
        ("big float", json!(1e21), "1e+21"),
        ("html escaped", json!("<a&b>"), r#""\u003ca\u0026b\u003e""#),
        ("control", json!("a\u{1}\n"), r#""a\u0001\n""#),
    ];
    for (name, value, want) in cases {
        assert_eq!(go_json(&value), want, "{name}");
    }
}
