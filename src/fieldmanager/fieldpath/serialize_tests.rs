//! Upstream's serialize_test.go tables, as data.

use super::*;
use crate::fieldmanager::fieldpath::{Path, PathElement, testutil};
use serde_json::json;

use super::data::{GOLDEN, NON_NORMALIZED, READ_ERRORS, READ_OK};

#[test]
fn to_json_string_upstream_golden_data_round_trips_bytes() {
    for (i, text) in GOLDEN.iter().enumerate() {
        let s = Set::from_json_str(text).unwrap_or_else(|e| panic!("{i}: {e}"));
        assert_eq!(s.to_json_string(), *text, "golden {i}");
        // The object form reads back to the same set.
        assert_eq!(Set::from_fields_v1(&s.to_fields_v1()), Ok(s), "golden {i}");
    }
}

#[test]
fn from_json_str_upstream_non_normalized_normalizes() {
    for (i, (raw, normalized)) in NON_NORMALIZED.iter().enumerate() {
        let a = Set::from_json_str(raw).unwrap_or_else(|e| panic!("{i}: {e}"));
        let b = Set::from_json_str(normalized).unwrap_or_else(|e| panic!("{i}: {e}"));
        assert_eq!(a, b, "case {i}");
        assert_eq!(a.to_json_string(), *normalized, "case {i}");
    }
}

#[test]
fn from_json_str_upstream_token_errors_error() {
    for (name, input) in READ_ERRORS {
        assert!(Set::from_json_str(input).is_err(), "{name}: {input:?}");
    }
}

#[test]
fn from_json_str_upstream_accepted_inputs_parse() {
    for (name, input) in READ_OK {
        assert!(Set::from_json_str(input).is_ok(), "{name}: {input:?}");
    }
}

#[test]
fn from_json_str_unknown_element_kind_dropped() {
    let s = Set::from_json_str(r#"{"f:aaa":{},"r:aab":{}}"#).expect("parses");
    assert_eq!(s.to_json_string(), r#"{"f:aaa":{}}"#);
}

#[test]
fn from_fields_v1_member_rules_match_read_iter_v1() {
    let cases = [
        ("null child is a member", json!({"f:a": null}), vec!["f:a"]),
        (
            "dot and children",
            json!({"f:a": {".": {}, "f:b": {}}}),
            vec!["f:a", "f:a f:b"],
        ),
        (
            "children only",
            json!({"f:a": {"f:b": {}}}),
            vec!["f:a f:b"],
        ),
        (
            "only unknown inside is a member",
            json!({"f:a": {"r:x": {}}}),
            vec!["f:a"],
        ),
        ("top-level dot ignored", json!({".": {}}), vec![]),
    ];
    for (name, input, want) in cases {
        let got = Set::from_fields_v1(&input).expect(name);
        assert_eq!(got, testutil::set(&want), "{name}");
    }
}

/// TestSerializeV1: sets of random paths over upstream's alphabet round-trip.
#[test]
fn to_json_string_random_sets_round_trip() {
    let alphabet: Vec<PathElement> = [
        "f:aaa",
        "f:aab",
        "f:aac",
        "f:aad",
        "f:aae",
        "f:aaf",
        "f:abcdefghijklmnopqrstuvwxyz",
        "f:ABCDEFGHIJKLMNOPQRSTUVWXYZ",
        r#"k:{"name":"привет"}"#,
        r#"k:{"name":"你好"}"#,
        r#"k:{"name":"こんにちは"}"#,
        r#"k:{"name":"안녕하세요"}"#,
        r#"k:{"name":"مرحبا"}"#,
        r#"k:{"name":"first"}"#,
        r#"k:{"name":"second"}"#,
        r#"k:{"port":443,"protocol":"tcp"}"#,
        r#"k:{"port":443,"protocol":"udp"}"#,
        r#"k:{"key":" value with spaces "}"#,
        r#"k:{"lang":"en-US"}"#,
        r#"k:{"unicode-key":"unicode-value-🔥"}"#,
        "v:1",
        "v:2",
        "v:3",
        r#"v:"aa""#,
        r#"v:"ab""#,
        "v:true",
        "v:0",
        "v:-1",
        "v:3.14159",
        r#"v:"string with spaces""#,
        r#"v:"string with \"quotes\"""#,
        r#"v:"unicode-string-你好""#,
        "v:false",
        "i:1",
        "i:2",
        "i:3",
        "i:4",
        "i:0",
        "i:5",
        "i:100",
        "i:9223372036854775807",
    ]
    .iter()
    .map(|s| super::deserialize_path_element(s).expect(s))
    .collect();
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = |n: usize| {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((seed >> 33) as usize) % n
    };
    for round in 0..200 {
        let mut s = Set::new();
        for _ in 0..50 {
            let len = 2 + next(3);
            let path = Path(
                (0..len)
                    .map(|_| alphabet[next(alphabet.len())].clone())
                    .collect(),
            );
            s.insert(path.elements());
        }
        let text = s.to_json_string();
        let back = Set::from_json_str(&text).unwrap_or_else(|e| panic!("{round}: {e}"));
        assert_eq!(back, s, "round {round}: {text}");
        assert_eq!(back.to_json_string(), text, "round {round}");
    }
}
