//! Request bodies: formats, kube's decoding errors, duplicate fields and limits.

use super::*;

#[test]
fn decode_object_formats_and_errors() {
    let cases: &[(&str, &str, BodyFormat, bool)] = &[
        ("json object", r#"{"a":1}"#, BodyFormat::Json, true),
        ("yaml object", "a: 1\nb: [x]\n", BodyFormat::Yaml, true),
        ("json array", "[1]", BodyFormat::Json, false),
        ("broken json", "{", BodyFormat::Json, false),
        ("yaml scalar", "hello", BodyFormat::Yaml, false),
    ];
    for (name, body, format, ok) in cases {
        assert_eq!(
            decode_object(body.as_bytes(), *format).is_ok(),
            *ok,
            "{name}"
        );
    }
}

#[test]
fn decode_yaml_value_duplicates_in_go_yaml_words_whichever_decoder_reads_it() {
    let message = |line: u32| {
        vec![format!(
            "yaml: unmarshal errors:\n  line {line}: key \"image\" already set in map"
        )]
    };
    let cases: &[(&str, &str, bool, Vec<String>)] = &[
        (
            "compact_json_reported",
            r#"{"spec":{"image":"a","image":"b"}}"#,
            true,
            message(1),
        ),
        (
            "spaced_json_reported",
            r#"{"spec": {"image": "a", "image": "b"}}"#,
            true,
            message(1),
        ),
        (
            "yaml_reported",
            "spec:\n  image: a\n  image: b\n",
            true,
            message(3),
        ),
        (
            "compact_json_not_asked_none",
            r#"{"spec":{"image":"a","image":"b"}}"#,
            false,
            vec![],
        ),
        (
            "compact_json_without_duplicates_none",
            r#"{"spec":{"image":"b"}}"#,
            true,
            vec![],
        ),
    ];
    for (name, body, report, want) in cases {
        let (value, found) = decode_yaml_value(body.as_bytes(), *report).unwrap();
        assert_eq!(value, serde_json::json!({"spec": {"image": "b"}}), "{name}");
        assert_eq!(&found, want, "{name}");
    }
}

/// Texts recorded from the reference apiextensions-apiserver.
#[test]
fn decode_resource_errors_are_kubes() {
    const FIND_KIND: &str = r#"struct { APIVersion string "json:\"apiVersion,omitempty\""; Kind string "json:\"kind,omitempty\"" }"#;
    let unrecognized = "the object provided is unrecognized (must be of type CronTab): ";
    let cases: &[(&str, BodyFormat, String)] = &[
        (
            r#"{"a":"#,
            BodyFormat::Json,
            format!("{unrecognized}couldn't get version/kind; json parse error: unexpected end of JSON input ({{\"a\":)"),
        ),
        (
            "",
            BodyFormat::Json,
            format!("{unrecognized}couldn't get version/kind; json parse error: unexpected end of JSON input (<empty>)"),
        ),
        (
            "[]",
            BodyFormat::Json,
            format!("{unrecognized}couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type {FIND_KIND} (5b5d)"),
        ),
        (
            "null",
            BodyFormat::Json,
            format!("{unrecognized}Object 'Kind' is missing in 'null' (6e756c6c)"),
        ),
        (
            r#"{"apiVersion":5,"kind":"CronTab"}"#,
            BodyFormat::Json,
            format!("{unrecognized}couldn't get version/kind; json parse error: json: cannot unmarshal number into Go struct field .apiVersion of type string ({{\"apiVersion\":5,\"kind\":\"CronTa ...)"),
        ),
        (
            r#"{"apiVersion":"a/b/c","kind":"CronTab"}"#,
            BodyFormat::Json,
            format!("{unrecognized}unexpected GroupVersion string: a/b/c ({{\"apiVersion\":\"a/b/c\",\"kind\":\" ...)"),
        ),
        (
            r#"{"apiVersion":"stable.example.com/v9","kind":"Other","metadata":{"labels":"x"}}"#,
            BodyFormat::Json,
            "Other in version \"v9\" cannot be handled as a CronTab: json: cannot unmarshal string into Go struct field ObjectMeta.labels of type map[string]string".into(),
        ),
        (
            "a: b: c\n",
            BodyFormat::Yaml,
            format!("{unrecognized}yaml: mapping values are not allowed in this context (613a20623a20630a)"),
        ),
        (
            "",
            BodyFormat::Yaml,
            format!("{unrecognized}Object 'Kind' is missing in '' (<empty>)"),
        ),
        (
            "- a\n",
            BodyFormat::Yaml,
            format!("{unrecognized}couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type {FIND_KIND} (2d20610a)"),
        ),
    ];
    for (body, format, want) in cases {
        let got = decode_resource(body.as_bytes(), *format, "CronTab", false).unwrap_err();
        assert_eq!(got.to_string(), *want, "{body:?}");
        assert_eq!(got.code(), 400);
    }
    let ok =
        r#"{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"generation":1e3}}"#;
    assert!(decode_resource(ok.as_bytes(), BodyFormat::Json, "CronTab", false).is_ok());
}

#[test]
fn decode_object_deep_nesting_rejected() {
    let deep = format!("{}1{}", "[".repeat(5000), "]".repeat(5000));
    assert_eq!(
        decode_object(deep.as_bytes(), BodyFormat::Json)
            .unwrap_err()
            .code(),
        400
    );
    let yaml = format!("a: {}1{}", "[".repeat(500), "]".repeat(500));
    assert_eq!(
        decode_object(yaml.as_bytes(), BodyFormat::Yaml)
            .unwrap_err()
            .code(),
        400
    );
}

#[test]
fn decode_object_yaml_beyond_default_node_budget_accepted() {
    let body = format!("a:\n{}", "- 1\n".repeat(300_000));
    let value = decode_object(body.as_bytes(), BodyFormat::Yaml).unwrap();
    assert_eq!(value["a"].as_array().map(Vec::len), Some(300_000));
}

#[test]
fn decode_object_yaml_alias_bomb_rejected() {
    let mut body = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..9 {
        let prev = format!("*a{}", i - 1);
        body.push_str(&format!("a{i}: &a{i} [{}]\n", vec![prev; 10].join(", ")));
    }
    let err = decode_object(body.as_bytes(), BodyFormat::Yaml).unwrap_err();
    assert_eq!(err.code(), 400);
}
