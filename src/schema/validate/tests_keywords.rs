//! Type, format, array, object and composition keywords: accepted and rejected values
//! with kube's exact messages.

use serde_json::{Value, json};

use super::tests::{check_x, messages};
use super::*;

/// (case, schema of spec.x, value, expected `field: detail` lines), JSON as text.
pub(super) type Case = (
    &'static str,
    &'static str,
    &'static str,
    &'static [&'static str],
);

pub(super) fn run(cases: &[Case]) {
    for (name, prop, value, want) in cases {
        let parse = |text: &str| -> Value { serde_json::from_str(text).expect(name) };
        assert_eq!(check_x(parse(prop), parse(value)), want.to_vec(), "{name}");
    }
}

const TYPE_KEYWORD_TABLE: &[Case] = &[
    (
        "string given integer",
        r#"{"type": "string"}"#,
        r#"5"#,
        &[r#"spec.x: Invalid value: "integer": spec.x in body must be of type string: "integer""#],
    ),
    (
        "boolean given string",
        r#"{"type": "boolean"}"#,
        r#""true""#,
        &[r#"spec.x: Invalid value: "string": spec.x in body must be of type boolean: "string""#],
    ),
    (
        "object given array",
        r#"{"type": "object"}"#,
        r#"[]"#,
        &[r#"spec.x: Invalid value: "array": spec.x in body must be of type object: "array""#],
    ),
    (
        "array given object",
        r#"{"type": "array"}"#,
        r#"{}"#,
        &[r#"spec.x: Invalid value: "object": spec.x in body must be of type array: "object""#],
    ),
    (
        "integer given fraction",
        r#"{"type": "integer"}"#,
        r#"1.5"#,
        &[
            r#"spec.x: Invalid value: "number": spec.x in body must be of type integer: "number""#,
            r#"<nil>: Invalid value: "": Checked value must be of type integer (default format) in spec.x"#,
        ],
    ),
    (
        "integer given integral float",
        r#"{"type": "integer"}"#,
        r#"2.0"#,
        &[],
    ),
    ("number given integer", r#"{"type": "number"}"#, r#"3"#, &[]),
    (
        "null not nullable",
        r#"{"type": "string"}"#,
        r#"null"#,
        &[r#"spec.x: Invalid value: "null": spec.x in body must be of type string: "null""#],
    ),
    (
        "null nullable",
        r#"{"type": "string", "nullable": true}"#,
        r#"null"#,
        &[],
    ),
    (
        "null untyped",
        r#"{"x-kubernetes-preserve-unknown-fields": true}"#,
        r#"null"#,
        &[],
    ),
    (
        "int-or-string given bool",
        r#"{"x-kubernetes-int-or-string": true}"#,
        r#"true"#,
        &[
            r#"spec.x: Invalid value: "boolean": spec.x in body must be of type integer,string: "boolean""#,
        ],
    ),
    (
        "int-or-string given int",
        r#"{"x-kubernetes-int-or-string": true}"#,
        r#"8080"#,
        &[],
    ),
    (
        "int-or-string given string",
        r#"{"x-kubernetes-int-or-string": true}"#,
        r#""50%""#,
        &[],
    ),
    (
        "int-or-string anyOf given bool",
        r#"{"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}]}"#,
        r#"true"#,
        &[
            r#"spec.x: Invalid value: "boolean": spec.x in body must be of type integer,string: "boolean""#,
            r#"<nil>: Invalid value: "": "spec.x" must validate at least one schema (anyOf)"#,
            r#"spec.x: Invalid value: "boolean": spec.x in body must be of type integer: "boolean""#,
        ],
    ),
];

#[test]
fn type_keyword_table() {
    run(TYPE_KEYWORD_TABLE);
}

const FORMAT_KEYWORD_TABLE: &[Case] = &[
    (
        "invalid date",
        r#"{"type": "string", "format": "date"}"#,
        r#""2020-13-45""#,
        &[
            r#"spec.x: Invalid value: "2020-13-45": spec.x in body must be of type date: "2020-13-45""#,
        ],
    ),
    (
        "valid uuid",
        r#"{"type": "string", "format": "uuid"}"#,
        r#""123e4567-e89b-12d3-a456-426614174000""#,
        &[],
    ),
    (
        "unknown format unchecked",
        r#"{"type": "string", "format": "foo"}"#,
        r#""x""#,
        &[],
    ),
    (
        "unknown format is stripped",
        r#"{"type": "string", "format": "foo"}"#,
        r#"5"#,
        &[r#"spec.x: Invalid value: "integer": spec.x in body must be of type string: "integer""#],
    ),
    (
        "string format given number",
        r#"{"type": "string", "format": "date"}"#,
        r#"5"#,
        &[r#"spec.x: Invalid value: "int64": spec.x in body must be of type date: "int64""#],
    ),
    (
        "string format given array passes like kube",
        r#"{"type": "string", "format": "date"}"#,
        r#"["a"]"#,
        &[],
    ),
    (
        "int32 given fraction",
        r#"{"type": "integer", "format": "int32"}"#,
        r#"1.5"#,
        &[
            r#"spec.x: Invalid value: "float64": spec.x in body must be of type int32: "float64""#,
            r#"<nil>: Invalid value: "": Checked value must be of type integer with format int32 in spec.x"#,
        ],
    ),
    (
        "int32 overflow",
        r#"{"type": "integer", "format": "int32"}"#,
        r#"3000000000"#,
        &[
            r#"<nil>: Invalid value: "": Checked value must be of type integer with format int32 in spec.x"#,
        ],
    ),
    (
        "float overflow",
        r#"{"type": "number", "format": "float"}"#,
        r#"1e39"#,
        &[
            r#"<nil>: Invalid value: "": Checked value must be of type number with format float in spec.x"#,
        ],
    ),
];

#[test]
fn format_keyword_table() {
    run(FORMAT_KEYWORD_TABLE);
}

const ARRAY_AND_OBJECT_KEYWORD_TABLE: &[Case] = &[
    (
        "maxItems one",
        r#"{"type": "array", "maxItems": 1}"#,
        r#"[1, 2]"#,
        &["spec.x: Too many: 2: must have at most 1 item"],
    ),
    (
        "maxItems",
        r#"{"type": "array", "maxItems": 2}"#,
        r#"[1, 2, 3]"#,
        &["spec.x: Too many: 3: must have at most 2 items"],
    ),
    (
        "minItems",
        r#"{"type": "array", "minItems": 2}"#,
        r#"[1]"#,
        &["spec.x: Invalid value: 1: spec.x in body should have at least 2 items"],
    ),
    (
        "uniqueItems",
        r#"{"type": "array", "uniqueItems": true}"#,
        r#"[1, 1]"#,
        &[r#"spec.x: Invalid value: "": spec.x in body shouldn't contain duplicates"#],
    ),
    (
        "items",
        r#"{"type": "array", "items": {"type": "string"}}"#,
        r#"["a", 1]"#,
        &[
            r#"spec.x[1]: Invalid value: "integer": spec.x[1] in body must be of type string: "integer""#,
        ],
    ),
    (
        "maxProperties",
        r#"{"type": "object", "maxProperties": 1}"#,
        r#"{"a": 1, "b": 2}"#,
        &["spec.x: Too many: 2: must have at most 1 item"],
    ),
    (
        "minProperties",
        r#"{"type": "object", "minProperties": 2}"#,
        r#"{"a": 1}"#,
        &["spec.x: Invalid value: 1: spec.x in body should have at least 2 properties"],
    ),
    (
        "additionalProperties schema",
        r#"{"type": "object", "additionalProperties": {"type": "string"}}"#,
        r#"{"a": 1}"#,
        &[
            r#"spec.x.a: Invalid value: "integer": spec.x.a in body must be of type string: "integer""#,
        ],
    ),
    (
        "additionalProperties false",
        r#"{"type": "object", "properties": {"a": {}}, "additionalProperties": false}"#,
        r#"{"b": 1}"#,
        &[r#"spec.x: Invalid value: "b": spec.x.b in body is a forbidden property"#],
    ),
    (
        "required",
        r#"{"type": "object", "required": ["a", "b"], "properties": {"b": {"type": "string"}}}"#,
        r#"{"b": 1}"#,
        &[
            r#"spec.x.b: Invalid value: "integer": spec.x.b in body must be of type string: "integer""#,
            "spec.x.a: Required value",
        ],
    ),
];

#[test]
fn array_and_object_keyword_table() {
    run(ARRAY_AND_OBJECT_KEYWORD_TABLE);
}

const COMPOSITION_KEYWORD_TABLE: &[Case] = &[
    (
        "allOf none",
        r#"{"allOf": [{"minimum": 5}, {"maximum": 3}]}"#,
        r#"4"#,
        &[
            "spec.x: Invalid value: 4: spec.x in body should be greater than or equal to 5",
            "spec.x: Invalid value: 4: spec.x in body should be less than or equal to 3",
            r#"<nil>: Invalid value: "": "spec.x" must validate all the schemas (allOf). None validated"#,
        ],
    ),
    (
        "allOf some",
        r#"{"allOf": [{"minimum": 5}, {"maximum": 3}]}"#,
        r#"6"#,
        &[
            "spec.x: Invalid value: 6: spec.x in body should be less than or equal to 3",
            r#"<nil>: Invalid value: "": "spec.x" must validate all the schemas (allOf)"#,
        ],
    ),
    (
        "allOf dedup",
        r#"{"allOf": [{"maximum": 3}, {"maximum": 3}]}"#,
        r#"5"#,
        &[
            "spec.x: Invalid value: 5: spec.x in body should be less than or equal to 3",
            r#"<nil>: Invalid value: "": "spec.x" must validate all the schemas (allOf). None validated"#,
        ],
    ),
    (
        "oneOf none",
        r#"{"oneOf": [{"minimum": 5}, {"maximum": 1}]}"#,
        r#"3"#,
        &[
            r#"<nil>: Invalid value: "": "spec.x" must validate one and only one schema (oneOf). Found none valid"#,
            "spec.x: Invalid value: 3: spec.x in body should be greater than or equal to 5",
        ],
    ),
    (
        "oneOf two",
        r#"{"oneOf": [{"minimum": 1}, {"maximum": 10}]}"#,
        r#"5"#,
        &[
            r#"<nil>: Invalid value: "": "spec.x" must validate one and only one schema (oneOf). Found 2 valid alternatives"#,
        ],
    ),
    (
        "oneOf one",
        r#"{"oneOf": [{"minimum": 1}, {"maximum": 0}]}"#,
        r#"5"#,
        &[],
    ),
    (
        "anyOf best branch",
        r#"{"anyOf": [{"maxLength": 1}, {"type": "string", "pattern": "^a"}]}"#,
        r#""bb""#,
        &[
            r#"<nil>: Invalid value: "": "spec.x" must validate at least one schema (anyOf)"#,
            r#"spec.x: Invalid value: "bb": spec.x in body should match '^a'"#,
        ],
    ),
    (
        "not",
        r#"{"not": {"maximum": 3}}"#,
        r#"2"#,
        &[r#"<nil>: Invalid value: "": "spec.x" must not validate the schema (not)"#],
    ),
    ("not ok", r#"{"not": {"maximum": 3}}"#, r#"4"#, &[]),
];

#[test]
fn composition_keyword_table() {
    run(COMPOSITION_KEYWORD_TABLE);
}

#[test]
fn root_paths_follow_kube_openapi() {
    let cases = [
        (
            "required at root",
            json!({"type": "object", "required": ["spec"]}),
            json!({}),
            vec!["spec: Required value"],
        ),
        (
            "additionalProperties at root",
            json!({"type": "object", "additionalProperties": {"type": "string"}}),
            json!({"a": 1}),
            vec![r#"a: Invalid value: "integer": .a in body must be of type string: "integer""#],
        ),
        (
            "schema limits on metadata.name",
            json!({"type": "object", "properties": {"metadata": {"type": "object", "properties": {"name": {"type": "string", "maxLength": 5}}}}}),
            json!({"metadata": {"name": "toolong"}}),
            vec!["metadata.name: Too long: may not be more than 5 bytes"],
        ),
    ];
    for (name, schema, object, want) in cases {
        assert_eq!(
            messages(&validate(&Schema::parse(&schema), &object)),
            want,
            "{name}"
        );
    }
}
