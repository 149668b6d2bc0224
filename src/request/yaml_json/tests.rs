//! The gate is checked against the YAML decoder itself: whatever it lets through must
//! decode to the value `decode_yaml` gives, on a table of edge cases and on generated
//! JSON. `PROPTEST_CASES` sets the number of generated bodies (256 by default).

use proptest::prelude::*;
use serde_json::{Value, json};

use super::*;
use crate::request::body::decode_yaml;

/// The body as kubectl sends an apply patch: compact JSON and a newline.
fn kubectl_body() -> String {
    let object = json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
        "metadata": {"name": "c1", "namespace": "default",
            "labels": {"app.kubernetes.io/name": "c1"},
            "annotations": {"note": "<b>&\"quoted\"\n\ttabbed é 😀"}},
        "spec": {"cronSpec": "* * * * */5", "replicas": -3, "ports": [80, 443],
            "enabled": true, "missing": null, "nested": {"list": [{"a": []}, {}]}}});
    format!("{object}\n")
}

/// Asserts the gate's verdict on `body` and, when it takes the body, that YAML agrees.
fn check(name: &str, body: &str, taken: bool) {
    let got = decode(body.as_bytes());
    assert_eq!(got.is_some(), taken, "{name}: taken");
    if let Some(value) = got {
        assert_eq!(
            decode_yaml(body.as_bytes()),
            Ok(value),
            "{name}: YAML's value"
        );
    }
}

#[test]
fn decode_kubectl_apply_body_taken_as_yaml_reads_it() {
    check("kubectl", &kubectl_body(), true);
}

#[test]
fn decode_subset_table() {
    let key = |len: usize| format!(r#"{{"{}":1}}"#, "k".repeat(len - 2));
    let nested = |depth: usize| format!("{}1{}", r#"{"a":"#.repeat(depth), "}".repeat(depth));
    let cases: Vec<(&str, String, bool)> = vec![
        ("empty_object_taken", "{}".into(), true),
        (
            "spaces_after_separators_taken",
            r#"{"a": 1, "b": [1, 2]}"#.into(),
            true,
        ),
        (
            "spaces_before_colon_taken",
            r#"{"a" : {"b"  :2}}"#.into(),
            true,
        ),
        (
            "escapes_taken",
            r#"{"a":"\u003c\n\"\/\\\b\f\u00e9\ud83d\ude00"}"#.into(),
            true,
        ),
        (
            "merge_key_quoted_taken",
            r#"{"<<":{"a":1},"b":2}"#.into(),
            true,
        ),
        (
            "literals_taken",
            r#"{"a":true,"b":false,"c":null}"#.into(),
            true,
        ),
        (
            "ints_18_digits_taken",
            r#"{"a":999999999999999999,"b":-999999999999999999}"#.into(),
            true,
        ),
        ("key_1000_bytes_to_colon_taken", key(1000), true),
        ("depth_60_taken", nested(60), true),
        ("array_top_level_refused", "[1]".into(), false),
        ("scalar_top_level_refused", "1".into(), false),
        ("null_top_level_refused", "null".into(), false),
        ("leading_space_refused", r#" {"a":1}"#.into(), false),
        (
            "int_19_digits_refused",
            r#"{"a":1000000000000000000}"#.into(),
            false,
        ),
        ("negative_zero_refused", r#"{"a":-0}"#.into(), false),
        ("fraction_refused", r#"{"a":1.5}"#.into(), false),
        ("exponent_refused", r#"{"a":1e3}"#.into(), false),
        ("exponent_upper_refused", r#"{"a":1E3}"#.into(), false),
        ("tab_refused", "{\"a\":\t1}".into(), false),
        ("inner_newline_refused", "{\"a\":\n1}".into(), false),
        ("crlf_refused", "{\"a\":1}\r\n".into(), false),
        ("two_newlines_refused", "{\"a\":1}\n\n".into(), false),
        ("key_1001_bytes_to_colon_refused", key(1001), false),
        ("depth_61_refused", nested(61), false),
        ("nel_refused", "{\"a\":\"x\u{85}y\"}".into(), false),
        (
            "line_separator_refused",
            "{\"a\":\"x\u{2028}y\"}".into(),
            false,
        ),
        ("bom_refused", "{\"a\":\"\u{FEFF}\"}".into(), false),
        ("delete_char_refused", "{\"a\":\"\u{7F}\"}".into(), false),
        ("c1_control_refused", "{\"a\":\"\u{9B}\"}".into(), false),
        ("raw_control_refused", "{\"a\":\"\u{1}\"}".into(), false),
        ("duplicate_key_refused", r#"{"a":1,"a":2}"#.into(), false),
        (
            "nested_duplicate_key_refused",
            r#"{"s":[{"x":1,"x":2}]}"#.into(),
            false,
        ),
        ("lone_surrogate_refused", r#"{"a":"\ud83d"}"#.into(), false),
        ("not_json_refused", r#"{"a":1"#.into(), false),
        ("trailing_garbage_refused", r#"{"a":1}x"#.into(), false),
        ("bare_word_refused", r#"{"a":yes}"#.into(), false),
    ];
    for (name, body, taken) in &cases {
        check(name, body, *taken);
    }
}

#[test]
fn decode_key_over_yaml_limit_yaml_refuses_it() {
    // What the key limit guards against: YAML ends an implicit key within 1024
    // characters, where JSON has no limit.
    let body = format!(r#"{{"{}":1}}"#, "k".repeat(1100));
    assert!(decode(body.as_bytes()).is_none());
    assert!(decode_yaml(body.as_bytes()).is_err());
}

#[test]
fn decode_negative_zero_yaml_reads_it_otherwise() {
    // What the `-0` rule guards against: serde_json reads `-0` as the float -0.0.
    let (json, _) = json::decode(r#"{"a":-0}"#, false).unwrap();
    assert_ne!(decode_yaml(br#"{"a":-0}"#), Ok(json));
}

/// JSON values: every leaf kind, any string, floats included (the gate must refuse
/// those it cannot vouch for, not the generator avoid them).
fn value() -> impl Strategy<Value = Value> {
    let string = prop_oneof![any::<String>(), "[a-z0-9 .:/<>&\"\\\\#{}\\[\\],-]{0,12}"];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (-1000i64..1000).prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(|f| json!(f)),
        string.clone().prop_map(Value::String),
    ];
    let tree = leaf.prop_recursive(6, 48, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            object(inner),
        ]
    });
    object(tree)
}

fn object(inner: impl Strategy<Value = Value>) -> impl Strategy<Value = Value> {
    let key = prop_oneof![any::<String>(), "[a-z<.:# -]{0,8}"];
    prop::collection::vec((key, inner), 0..5)
        .prop_map(|members| Value::Object(members.into_iter().collect()))
}

/// serde_json's compact text, with spaces after `:` and `,` when `spaced`.
fn render(value: &Value, spaced: bool) -> String {
    let compact = value.to_string();
    if !spaced {
        return compact;
    }
    let mut out = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut out, Spaced);
    serde::Serialize::serialize(value, &mut ser).unwrap();
    String::from_utf8(out).unwrap()
}

struct Spaced;

impl serde_json::ser::Formatter for Spaced {
    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        w.write_all(b": ")
    }

    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        w.write_all(if first { b"" } else { b", " })
    }

    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        w.write_all(if first { b"" } else { b", " })
    }
}

proptest! {
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn decode_any_json_taken_only_as_yaml_reads_it(
        value in value(), spaced in any::<bool>(), newline in any::<bool>()
    ) {
        let mut body = render(&value, spaced);
        if newline {
            body.push('\n');
        }
        if let Some(got) = decode(body.as_bytes()) {
            prop_assert_eq!(decode_yaml(body.as_bytes()), Ok(got.clone()));
            // Without duplicates (a generated map has none) the value is the input's.
            prop_assert_eq!(got, value);
        }
    }
}
