//! Number, string and enum keywords: accepted and rejected values with kube's messages.

use super::tests_keywords::{Case, run};

const NUMBER_KEYWORD_TABLE: &[Case] = &[
    (
        "maximum",
        r#"{"type": "integer", "maximum": 10}"#,
        r#"11"#,
        &["spec.x: Invalid value: 11: spec.x in body should be less than or equal to 10"],
    ),
    (
        "maximum boundary ok",
        r#"{"type": "integer", "maximum": 10}"#,
        r#"10"#,
        &[],
    ),
    (
        "exclusive maximum",
        r#"{"type": "integer", "maximum": 10, "exclusiveMaximum": true}"#,
        r#"10"#,
        &["spec.x: Invalid value: 10: spec.x in body should be less than 10"],
    ),
    (
        "minimum",
        r#"{"type": "integer", "minimum": 1}"#,
        r#"0"#,
        &["spec.x: Invalid value: 0: spec.x in body should be greater than or equal to 1"],
    ),
    (
        "exclusive minimum",
        r#"{"type": "integer", "minimum": 1, "exclusiveMinimum": true}"#,
        r#"1"#,
        &["spec.x: Invalid value: 1: spec.x in body should be greater than 1"],
    ),
    (
        "float maximum",
        r#"{"type": "number", "maximum": 1.5}"#,
        r#"2.5"#,
        &["spec.x: Invalid value: 2.5: spec.x in body should be less than or equal to 1.5"],
    ),
    (
        "float printed like go",
        r#"{"type": "number", "maximum": 1000000}"#,
        r#"2000000.5"#,
        &[
            "spec.x: Invalid value: 2.0000005e+06: spec.x in body should be less than or equal to 1e+06",
        ],
    ),
    (
        "integer value truncates number bound",
        r#"{"type": "number", "maximum": 10.5}"#,
        r#"11"#,
        &["spec.x: Invalid value: 11: spec.x in body should be less than or equal to 10"],
    ),
    (
        "fractional bound of integer type",
        r#"{"type": "integer", "maximum": 10.5}"#,
        r#"11"#,
        &[
            r#"<nil>: Invalid value: "": Maximum boundary value must be of type integer (default format) in spec.x"#,
            "spec.x: Invalid value: 11: spec.x in body should be less than or equal to 10.5",
        ],
    ),
    (
        "minimum before maximum",
        r#"{"minimum": 5, "maximum": 1}"#,
        r#"3"#,
        &[
            "spec.x: Invalid value: 3: spec.x in body should be greater than or equal to 5",
            "spec.x: Invalid value: 3: spec.x in body should be less than or equal to 1",
        ],
    ),
    (
        "multipleOf integer",
        r#"{"type": "integer", "multipleOf": 3}"#,
        r#"10"#,
        &["spec.x: Invalid value: 10: spec.x in body should be a multiple of 3"],
    ),
    (
        "multipleOf integer ok",
        r#"{"type": "integer", "multipleOf": 3}"#,
        r#"9"#,
        &[],
    ),
    (
        "multipleOf float",
        r#"{"type": "number", "multipleOf": 0.1}"#,
        r#"0.35"#,
        &["spec.x: Invalid value: 0.35: spec.x in body should be a multiple of 0.1"],
    ),
    (
        "multipleOf float tolerance",
        r#"{"type": "number", "multipleOf": 0.1}"#,
        r#"0.3"#,
        &[],
    ),
    (
        "multipleOf truncated to zero",
        r#"{"type": "number", "multipleOf": 0.5}"#,
        r#"3"#,
        &["spec.x: Invalid value: 0: factor MultipleOf declared for spec.x must be positive: 0"],
    ),
];

#[test]
fn number_keyword_table() {
    run(NUMBER_KEYWORD_TABLE);
}

const STRING_KEYWORD_TABLE: &[Case] = &[
    (
        "maxLength",
        r#"{"type": "string", "maxLength": 3}"#,
        r#""abcd""#,
        &["spec.x: Too long: may not be more than 3 bytes"],
    ),
    (
        "maxLength one",
        r#"{"type": "string", "maxLength": 1}"#,
        r#""ab""#,
        &["spec.x: Too long: may not be more than 1 byte"],
    ),
    (
        "maxLength counts characters",
        r#"{"type": "string", "maxLength": 3}"#,
        r#""äöü""#,
        &[],
    ),
    (
        "minLength",
        r#"{"type": "string", "minLength": 2}"#,
        r#""a""#,
        &[r#"spec.x: Invalid value: "a": spec.x in body should be at least 2 chars long"#],
    ),
    (
        "first failure only",
        r#"{"type": "string", "maxLength": 1, "pattern": "^a$"}"#,
        r#""bb""#,
        &["spec.x: Too long: may not be more than 1 byte"],
    ),
    (
        "pattern unanchored",
        r#"{"type": "string", "pattern": "b"}"#,
        r#""abc""#,
        &[],
    ),
    (
        "pattern",
        r#"{"type": "string", "pattern": "^a"}"#,
        r#""x""#,
        &[r#"spec.x: Invalid value: "x": spec.x in body should match '^a'"#],
    ),
    (
        "quoted like go",
        r#"{"type": "string", "enum": ["a"]}"#,
        r#""a\"b\n""#,
        &[r#"spec.x: Unsupported value: "a\"b\n": supported values: "a""#],
    ),
];

#[test]
fn string_keyword_table() {
    run(STRING_KEYWORD_TABLE);
}

const ENUM_KEYWORD_TABLE: &[Case] = &[
    (
        "integers",
        r#"{"type": "integer", "enum": [1, 2]}"#,
        r#"3"#,
        &[r#"spec.x: Unsupported value: 3: supported values: "1", "2""#],
    ),
    (
        "integer matches float",
        r#"{"type": "number", "enum": [1.0]}"#,
        r#"1"#,
        &[],
    ),
    (
        "fraction truncates like go",
        r#"{"type": "number", "enum": [1]}"#,
        r#"1.5"#,
        &[],
    ),
    (
        "huge float",
        r#"{"enum": [1]}"#,
        r#"1e21"#,
        &[r#"spec.x: Unsupported value: 1e+21: supported values: "1""#],
    ),
    (
        "null never matches",
        r#"{"type": "string", "nullable": true, "enum": ["a"]}"#,
        r#"null"#,
        &[r#"spec.x: Unsupported value: null: supported values: "a""#],
    ),
    (
        "object",
        r#"{"type": "object", "enum": [{"a": 1}]}"#,
        r#"{"a": 2}"#,
        &[r#"spec.x: Unsupported value: {"a":2}: supported values: "{\"a\":1}""#],
    ),
    (
        "object matches",
        r#"{"type": "object", "enum": [{"a": 1}]}"#,
        r#"{"a": 1}"#,
        &[],
    ),
];

#[test]
fn enum_keyword_table() {
    run(ENUM_KEYWORD_TABLE);
}
