//! Upstream's serialize-pe_test.go and element_test.go tables, as data.

use serde_json::{Value, json};

use super::*;
use crate::fieldmanager::value;

fn f(name: &str) -> PathElement {
    PathElement::field(name)
}

fn k(fields: Value) -> PathElement {
    let Value::Object(map) = fields else {
        panic!("key fields must be an object")
    };
    PathElement::key(map.into_iter().collect())
}

fn v(value: Value) -> PathElement {
    PathElement::Value(value)
}

fn i(index: i64) -> PathElement {
    PathElement::Index(index)
}

/// Deep equality that also tells an int from a float (upstream's reflect.DeepEqual): parsed
/// numbers must be float64.
fn same(a: &PathElement, b: &PathElement) -> bool {
    fn floats(v: &Value) -> Value {
        value::to_float64_numbers(v.clone())
    }
    match (a, b) {
        (PathElement::Value(x), PathElement::Value(y)) => x == &floats(y) && value::equals(x, y),
        (PathElement::Key(x), PathElement::Key(y)) => {
            x.len() == y.len()
                && x.fields()
                    .iter()
                    .zip(y.fields())
                    .all(|((xn, xv), (yn, yv))| xn == yn && xv == &floats(yv))
        }
        _ => a == b,
    }
}

fn round_trip_cases() -> Vec<(&'static str, PathElement)> {
    vec![
        ("i:0", i(0)),
        ("i:1234", i(1234)),
        ("f:", f("")),
        ("f:spec", f("spec")),
        ("f:more-complicated-string", f("more-complicated-string")),
        ("f: string-with-spaces   ", f(" string-with-spaces   ")),
        (
            "f:abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
            f("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"),
        ),
        (
            r#"k:{"name":"my-container"}"#,
            k(json!({"name": "my-container"})),
        ),
        (
            r#"k:{"name":"   name with spaces   "}"#,
            k(json!({"name": "   name with spaces   "})),
        ),
        (
            r#"k:{"port":"8080","protocol":"TCP"}"#,
            k(json!({"port": "8080", "protocol": "TCP"})),
        ),
        (
            r#"k:{"optionalField":null}"#,
            k(json!({"optionalField": null})),
        ),
        (
            r#"k:{"jsonField":{"A":1,"B":null,"C":"D","E":{"F":"G"}}}"#,
            k(json!({"jsonField": {"A": 1.0, "B": null, "C": "D", "E": {"F": "G"}}})),
        ),
        (
            r#"k:{"listField":["1","2","3"]}"#,
            k(json!({"listField": ["1", "2", "3"]})),
        ),
        ("v:null", v(json!(null))),
        (r#"v:"some-string""#, v(json!("some-string"))),
        ("v:1234", v(json!(1234.0))),
        (r#"v:{"some":"json"}"#, v(json!({"some": "json"}))),
        (
            r#"v:{"some":" some  with spaces  "}"#,
            v(json!({"some": " some  with spaces  "})),
        ),
        (r#"k:{"name":"app-🚀"}"#, k(json!({"name": "app-🚀"}))),
        (r#"k:{"name":"app-💻"}"#, k(json!({"name": "app-💻"}))),
        (
            r#"k:{"name":"app with-unicøde"}"#,
            k(json!({"name": "app with-unicøde"})),
        ),
        (r#"k:{"name":"你好世界"}"#, k(json!({"name": "你好世界"}))),
        (
            r#"k:{"name":"Привет, мир"}"#,
            k(json!({"name": "Привет, мир"})),
        ),
        (
            r#"k:{"name":"नमस्ते दुनिया"}"#,
            k(json!({"name": "नमस्ते दुनिया"})),
        ),
        (r#"k:{"name":"👋"}"#, k(json!({"name": "👋"}))),
        ("f:spec-🚀", f("spec-🚀")),
        (r"f:spec-\n", f(r"spec-\n")),
    ]
}

#[test]
fn deserialize_path_element_upstream_round_trip_table_round_trips() {
    for (text, want) in round_trip_cases() {
        let got = deserialize_path_element(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert!(same(&got, &want), "{text}: got {got:?}, want {want:?}");
        assert_eq!(serialize_path_element(&got), text, "{text}: serialize");
    }
}

#[test]
fn deserialize_path_element_unknown_type_is_unknown() {
    assert_eq!(
        deserialize_path_element("r:Hello"),
        Err(PathElementError::UnknownType)
    );
}

const ERROR_CASES: &[&str] = &[
    "",
    "no-colon",
    "i:index is not a number",
    "i:1.23",
    "i:",
    "v:invalid json",
    "v:",
    "k:invalid json",
    r#"k:{"name":invalid}"#,
    r#"v:{"some":" \x41"}"#,
    "v",
    "k",
    "f",
    "i",
    r#"v:{"a":"b""#,
    r#"k:{"a":"b""#,
    "i: 0",
    "i:0 ",
    r#"v:{"some":"json"} {"other":"json"}"#,
    r#"k:{"name":"my-container"} {"other":"my-container"}"#,
    r#"v:{"some":"json"} {"other":"json""#,
    r#"k:{"name":"my-container"} {"other":"my-container""#,
    r#"v:{"some":"json"} garbage"#,
    r#"k:{"name":"my-container"} garbage"#,
];

#[test]
fn deserialize_path_element_upstream_error_table_errors() {
    for text in ERROR_CASES {
        let got = deserialize_path_element(text);
        assert!(
            matches!(got, Err(PathElementError::Invalid(_))),
            "{text}: got {got:?}"
        );
    }
}

fn success_cases() -> Vec<(&'static str, PathElement)> {
    vec![
        (r#"v: {"some":"json"}"#, v(json!({"some": "json"}))),
        (
            r#"k: {"name":"my-container"}"#,
            k(json!({"name": "my-container"})),
        ),
        (r#"v:{"some":"json"} "#, v(json!({"some": "json"}))),
        (
            r#"k:{"name":"my-container"} "#,
            k(json!({"name": "my-container"})),
        ),
        (
            r#"k:{"name\u002dcontainer":"my-container"}"#,
            k(json!({"name-container": "my-container"})),
        ),
        (
            r#"k:{"name\nwith\nnewlines":"my-container"}"#,
            k(json!({"name\nwith\nnewlines": "my-container"})),
        ),
        (
            r#"k:{"name\"quoted\"":"my-container"}"#,
            k(json!({"name\"quoted\"": "my-container"})),
        ),
        (
            r#"k:{"name-\ud83d\ude80":"my-container"}"#,
            k(json!({"name-🚀": "my-container"})),
        ),
        (
            r#"k:{"\u4f60\u597d":"\u4e16\u754c"}"#,
            k(json!({"你好": "世界"})),
        ),
        (r#"v:"value\u002dcontainer""#, v(json!("value-container"))),
        (
            r#"v:"value\nwith\nnewlines""#,
            v(json!("value\nwith\nnewlines")),
        ),
        (r#"v:"value\"quoted\"""#, v(json!("value\"quoted\""))),
        (r#"v:"value-\ud83d\ude80""#, v(json!("value-🚀"))),
        (r#"v:"\u4f60\u597d""#, v(json!("你好"))),
        (
            r#"k:{"name-🚀":"my-container"}"#,
            k(json!({"name-🚀": "my-container"})),
        ),
        (r#"v:"value-🚀""#, v(json!("value-🚀"))),
    ]
}

#[test]
fn deserialize_path_element_upstream_success_table_parses() {
    for (text, want) in success_cases() {
        let got = deserialize_path_element(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert!(same(&got, &want), "{text}: got {got:?}, want {want:?}");
    }
}

#[test]
fn serialize_path_element_go_forms() {
    let cases = [
        (v(json!(1e-7)), "v:1e-07"),
        (v(json!(1e21)), "v:1e+21"),
        (v(json!(1.5)), "v:1.5"),
        (v(json!("<a&b>")), r#"v:"\u003ca\u0026b\u003e""#),
        (
            v(json!({"b": 1, "a": "\u{1}"})),
            r#"v:{"a":"\u0001","b":1}"#,
        ),
        (
            k(json!({"<n>": "<v>", "a": 1})),
            r#"k:{"<n>":"\u003cv\u003e","a":1}"#,
        ),
        (i(-1), "i:-1"),
    ];
    for (pe, want) in cases {
        assert_eq!(serialize_path_element(&pe), want);
    }
}

/// element_test.go TestPathElementLess: (name, a, b, equal); otherwise a < b.
fn less_cases() -> Vec<(&'static str, PathElement, PathElement, bool)> {
    vec![
        ("FieldName-1", f("anteater"), f("zebra"), false),
        ("FieldName-2", f("bee"), f("bee"), true),
        ("FieldName-3", f("capybara"), k(json!({"dog": 3})), false),
        ("FieldName-4", f("elephant"), v(json!(4)), false),
        ("FieldName-5", f("falcon"), i(5), false),
        ("Key-1", k(json!({"goat": 1})), k(json!({"goat": 1})), true),
        (
            "Key-2",
            k(json!({"horse": 1})),
            k(json!({"horse": 2})),
            false,
        ),
        ("Key-3", k(json!({"ibex": 1})), k(json!({"jay": 1})), false),
        (
            "Key-4",
            k(json!({"kite": 1})),
            k(json!({"kite": 1, "kite-2": 1})),
            false,
        ),
        ("Key-5", k(json!({"kite": 1})), v(json!(1)), false),
        ("Key-6", k(json!({"kite": 1})), i(5), false),
        ("Value-1", v(json!(1)), v(json!(2)), false),
        ("Value-2", v(json!(1)), v(json!(1)), true),
        ("Value-3", v(json!(1)), i(1), false),
        ("Index-1", i(1), i(2), false),
        ("Index-2", i(1), i(1), true),
    ]
}

#[test]
fn path_element_upstream_less_table_orders() {
    for (name, a, b, eq) in less_cases() {
        assert_eq!(a == b, eq, "{name}: a == b");
        assert_eq!(a < b, !eq, "{name}: a < b");
        assert!(b >= a, "{name}: b < a");
    }
}
