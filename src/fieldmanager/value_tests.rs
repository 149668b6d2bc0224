//! Upstream's value/less_test.go table (the cases expressible as JSON), as data.

use std::cmp::Ordering;

use serde_json::Value;

use super::*;

fn json(s: &str) -> Value {
    serde_json::from_str(s).expect("test JSON")
}

/// (name, a, b, a equals b); when not equal, a < b.
const LESS_CASES: &[(&str, &str, &str, bool)] = &[
    ("Float-1", "1.14", "3.14", false),
    ("Float-2", "1.0", "1.0", true),
    ("Float-3", "1.0", "1", true),
    ("Float-4", "1.0", "2", false),
    ("Float-5", "1.0", r#""aoeu""#, false),
    ("Float-6", "1.0", "true", false),
    ("Float-7", "1.0", "[]", false),
    ("Float-8", "1.0", "{}", false),
    ("Float-9", "1.0", "null", false),
    ("Int-1", "1", "2", false),
    ("Int-2", "1", "1", true),
    ("Int-3", "1", "1.0", true),
    ("Int-4", "1", "2.0", false),
    ("Int-5", "1", r#""aoeu""#, false),
    ("Int-6", "1", "true", false),
    ("Int-7", "1", "[]", false),
    ("Int-8", "1", "{}", false),
    ("Int-9", "1", "null", false),
    ("String-1", r#""b-12""#, r#""b-9""#, false),
    ("String-2", r#""folate""#, r#""folate""#, true),
    ("String-3", r#""folate""#, "true", false),
    ("String-4", r#""folate""#, "[]", false),
    ("String-5", r#""folate""#, "{}", false),
    ("String-6", r#""folate""#, "null", false),
    ("Bool-1", "false", "true", false),
    ("Bool-2", "false", "false", true),
    ("Bool-3", "true", "true", true),
    ("Bool-4", "false", "[]", false),
    ("Bool-5", "false", "{}", false),
    ("Bool-6", "false", "null", false),
    ("List-1", "[]", "[]", true),
    ("List-2", "[1]", "[1]", true),
    ("List-3", "[1]", "[2]", false),
    ("List-4", "[1]", "[1,1]", false),
    ("List-5", "[1,1]", "[2]", false),
    ("List-6", "[]", "{}", false),
    ("List-7", "[]", "null", false),
    ("Map-1", r#"{"carotine":1}"#, r#"{"carotine":1}"#, true),
    ("Map-2", r#"{"carotine":1}"#, r#"{"carotine":2}"#, false),
    ("Map-3", r#"{"carotine":1}"#, r#"{"ethanol":1}"#, false),
    (
        "Map-4",
        r#"{"carotine":1}"#,
        r#"{"ethanol":1,"carotine":2}"#,
        false,
    ),
    (
        "Map-5",
        r#"{"carotine":1}"#,
        r#"{"carotine":1,"ethanol":1}"#,
        false,
    ),
    (
        "Map-6",
        r#"{"carotine":1,"ethanol":1}"#,
        r#"{"carotine":2}"#,
        false,
    ),
    ("Map-7", "{}", "null", false),
];

#[test]
fn compare_upstream_less_table_orders_and_equates() {
    for (name, a, b, eq) in LESS_CASES {
        let (a, b) = (json(a), json(b));
        assert_eq!(equals(&a, &b), *eq, "{name}: equals(a, b)");
        assert_eq!(equals(&b, &a), *eq, "{name}: equals(b, a)");
        let (want_ab, want_ba) = if *eq {
            (Ordering::Equal, Ordering::Equal)
        } else {
            (Ordering::Less, Ordering::Greater)
        };
        assert_eq!(compare(&a, &b), want_ab, "{name}: compare(a, b)");
        assert_eq!(compare(&b, &a), want_ba, "{name}: compare(b, a)");
    }
}

#[test]
fn to_string_go_forms() {
    let cases = [
        ("null", "null"),
        ("1", "1"),
        ("1.5", "1.5"),
        (r#""a""#, r#""a""#),
        ("true", "true"),
        (r#"[1,"x"]"#, r#"[1,"x"]"#),
        (r#"{"b":2,"a":1}"#, "a=1b=2"),
    ];
    for (input, want) in cases {
        assert_eq!(to_string(&json(input)), want, "{input}");
    }
}

#[test]
fn to_float64_numbers_makes_every_number_float() {
    let v = to_float64_numbers(json(r#"{"a":[1,2.5],"b":3}"#));
    assert!(v["a"][0].is_f64() && v["a"][1].is_f64() && v["b"].is_f64());
    assert!(equals(&v, &json(r#"{"a":[1,2.5],"b":3}"#)));
}
