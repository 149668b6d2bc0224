//! Property tests over every parser a client's bytes reach: request info and query
//! options, label and field selectors, JSONPath templates, JSON and YAML bodies (with the
//! strict duplicate-field scan) and JSON / merge patches. Generated inputs are bounded in
//! size, so each case is quick; the properties are "no panic, no hang", and every
//! rejection is an `ApiError` whose Status is a 4xx.
//!
//! CI runs [`DEFAULT_CASES`] cases per property; `PROPTEST_CASES=100000 cargo test --release
//! --test fuzz_parsers` runs a long session.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use std::collections::BTreeMap;

use crd_apiserver::authz::sar;
use crd_apiserver::error::ApiError;
use crd_apiserver::handlers::strategy::change::Change;
use crd_apiserver::request::body::decode_object;
use crd_apiserver::request::gojson::{self, Flavor, lossy};
use crd_apiserver::request::info;
use crd_apiserver::request::negotiate::BodyFormat;
use crd_apiserver::request::options::{DeleteOptions, ListOptions, WriteOptions};
use crd_apiserver::request::query::Query;
use crd_apiserver::request::strict;
use crd_apiserver::request::user::UserInfo;
use crd_apiserver::request::yaml_json;
use crd_apiserver::selector::field::FieldSelector;
use crd_apiserver::selector::label::LabelSelector;
use crd_apiserver::table::jsonpath::JsonPath;
use proptest::prelude::*;
use proptest::test_runner::Config;
use serde_json::{Value, json};

/// Cases per property unless `PROPTEST_CASES` says otherwise.
const DEFAULT_CASES: u32 = 5000;

fn config() -> Config {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(DEFAULT_CASES);
    Config {
        cases,
        // a failing input is printed (shrunk); no regression files in the tree
        failure_persistence: None,
        ..Config::default()
    }
}

/// A rejection must be a client error rendered as a Status.
fn assert_client_error(err: &ApiError, input: &dyn std::fmt::Debug) {
    let code = err.code();
    assert!((400..500).contains(&code), "{code} for {input:?}: {err}");
    let status = err.to_status();
    assert_eq!(status["kind"], "Status", "{input:?}");
    assert_eq!(status["code"], json!(code), "{input:?}");
    assert!(status["message"].is_string(), "{input:?}");
}

/// One of `pieces` or an arbitrary short string, so generated text hits the grammar.
fn token(pieces: &'static [&'static str]) -> BoxedStrategy<String> {
    prop_oneof![
        4 => proptest::sample::select(pieces).prop_map(str::to_owned),
        1 => "\\PC{0,8}",
    ]
    .boxed()
}

fn joined(pieces: &'static [&'static str], max: usize) -> BoxedStrategy<String> {
    proptest::collection::vec(token(pieces), 0..max)
        .prop_map(|parts| parts.concat())
        .boxed()
}

const SELECTOR_PIECES: &[&str] = &[
    "a",
    "app",
    "x.io/k",
    "metadata.name",
    "spec.color",
    "=",
    "==",
    "!=",
    "!",
    ",",
    " ",
    "in",
    "notin",
    "(",
    ")",
    ">",
    "<",
    "1",
    "-",
    "_",
    ".",
    "\\",
    "\\,",
    "\\=",
    "v",
    "",
    "\t",
];

const PATH_PIECES: &[&str] = &[
    "api",
    "apis",
    "v1",
    "g.io",
    "namespaces",
    "ns",
    "watch",
    "proxy",
    "crontabs",
    "x",
    "status",
    "scale",
    "finalize",
    "",
    "%2F",
    "%zz",
    "..",
    ".",
    "%",
    "healthz",
    "openapi",
];

const QUERY_KEYS: &[&str] = &[
    "watch",
    "fieldSelector",
    "labelSelector",
    "limit",
    "timeoutSeconds",
    "continue",
    "resourceVersion",
    "resourceVersionMatch",
    "allowWatchBookmarks",
    "sendInitialEvents",
    "dryRun",
    "fieldValidation",
    "propagationPolicy",
    "orphanDependents",
    "includeObject",
];

const QUERY_VALUES: &[&str] = &[
    "",
    "1",
    "0",
    "true",
    "false",
    "All",
    "Strict",
    "Warn",
    "Ignore",
    "Exact",
    "NotOlderThan",
    "Orphan",
    "Foreground",
    "-5",
    "99999999999999999999",
    "metadata.name%3Dx",
    "metadata.name=x,metadata.name!=y",
    "a+in+(b,c)",
    "%zz",
    "Object",
    "None",
    "1.5",
];

fn query() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        (token(QUERY_KEYS), token(QUERY_VALUES), any::<bool>()),
        0..6,
    )
    .prop_map(|pairs| {
        let parts: Vec<String> = pairs
            .into_iter()
            .map(|(k, v, bare)| if bare { k } else { format!("{k}={v}") })
            .collect();
        parts.join("&")
    })
}

fn path() -> impl Strategy<Value = String> {
    proptest::collection::vec(token(PATH_PIECES), 0..9)
        .prop_map(|parts| format!("/{}", parts.join("/")))
}

fn method() -> impl Strategy<Value = &'static str> {
    proptest::sample::select(
        &[
            "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "BREW",
        ][..],
    )
}

/// JSON values up to a few levels deep, with keys that JSON pointers and paths use.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        (-1e6f64..1e6).prop_map(|f| json!(f)),
        token(&["", "a", "b", "0", "~", "/", "x"]).prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            proptest::collection::btree_map(
                token(&["a", "b", "spec", "metadata", "0", "~1", "x/y", ""]),
                inner,
                0..6
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn pointer() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        token(&["a", "b", "spec", "0", "1", "-", "~0", "~1", "", "99"]),
        0..5,
    )
    .prop_map(|parts| parts.iter().map(|p| format!("/{p}")).collect())
}

fn patch_operation() -> impl Strategy<Value = Value> {
    let op = token(&["add", "remove", "replace", "move", "copy", "test", "bogus"]);
    (op, pointer(), pointer(), json_value(), any::<u8>()).prop_map(
        |(op, path, from, value, shape)| {
            let mut o = json!({"op": op, "path": path});
            if shape & 1 == 0 {
                o["value"] = value;
            }
            if shape & 2 == 0 {
                o["from"] = json!(from);
            }
            if shape % 16 == 0 {
                o["path"] = json!(shape);
            }
            o
        },
    )
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn request_info_any_request_parses_and_authorizes_consistently(
        method in method(), path in path(), raw in query()
    ) {
        let query = Query::parse(&raw);
        let parsed = info::parse(method, &path, &query);
        if let Ok(resolved) = info::resolve(method, &path, &query) {
            prop_assert_eq!(&resolved, &parsed);
        }
        // the review for it serializes, and list options decode or are a 4xx
        let bob = UserInfo::authenticated("bob".into(), vec![]);
        let _ = serde_json::to_string(&sar::spec(&bob, &parsed)).unwrap();
        for result in [
            ListOptions::for_request(&parsed, &query, &["metadata.name"]).map(drop),
            WriteOptions::from_query(&query, "CreateOptions").map(drop),
            DeleteOptions::parse(&query, None).map(drop),
        ] {
            if let Err(e) = result {
                assert_client_error(&e, &raw);
            }
        }
    }

    #[test]
    fn label_selector_any_text_parses_or_is_bad_request(
        text in joined(SELECTOR_PIECES, 12),
        labels in proptest::collection::btree_map("[a-z.]{1,3}", "[a-z0-9]{0,3}", 0..4),
    ) {
        match LabelSelector::parse(&text) {
            Ok(selector) => {
                let _ = selector.matches_btree(&labels);
            }
            Err(e) => assert_client_error(&ApiError::BadRequest(e.to_string()), &text),
        }
        let raw = format!("labelSelector={}", text.replace('%', "%25").replace('&', "%26"));
        if let Err(e) = ListOptions::from_query(&Query::parse(&raw)) {
            assert_client_error(&e, &text);
        }
    }

    #[test]
    fn field_selector_any_text_parses_or_is_bad_request(
        text in joined(SELECTOR_PIECES, 12),
        fields in proptest::collection::btree_map("[a-z.]{1,14}", "[a-z0-9]{0,3}", 0..4),
    ) {
        match FieldSelector::parse(&text) {
            Ok(selector) => {
                let fields: BTreeMap<String, String> = fields;
                let _ = selector.matches(|f| fields.get(f).cloned());
                let _ = selector.to_string();
            }
            Err(e) => assert_client_error(&ApiError::BadRequest(e.to_string()), &text),
        }
    }

    #[test]
    fn jsonpath_any_template_parses_and_evaluates_without_panic(
        template in joined(&["{", "}", ".", "..", "[", "]", "*", "?", "@", "(", ")", "==", "!=",
            "<", ">", "'", "\"", ",", ":", "-1", "0", "2", "spec", "items", "range", "end",
            "$", "\\", " ", "a", "b", "len", "true"], 14),
        data in json_value(),
    ) {
        if let Ok(path) = JsonPath::parse(&template) {
            let _ = path.find_results(&data);
            let _ = path.first(&data).map(|item| item.print());
        }
    }

    #[test]
    fn json_body_any_bytes_decode_or_are_client_errors(
        body in prop_oneof![
            proptest::collection::vec(any::<u8>(), 0..256),
            json_value().prop_map(|v| v.to_string().into_bytes()),
            joined(&["{", "}", "[", "]", "\"a\"", ":", ",", "1", "null", "\"a\":1", " ", "\\u0000", "1e999"], 24)
                .prop_map(String::into_bytes),
        ],
    ) {
        check_body(&body, BodyFormat::Json, false);
    }

    /// The decoders read a JSON body first and run Go's syntax scan only on a rejection,
    /// which words the same errors as scanning first only if serde's grammar accepts
    /// nothing Go's scanner refuses.
    #[test]
    fn json_body_serde_accepted_passes_go_syntax_check(
        body in prop_oneof![
            json_value().prop_map(|v| v.to_string().into_bytes()),
            joined(&["{", "}", "[", "]", "\"a\"", ":", ",", "1", "-", "0", "01", "1.", ".5", "1e",
                "1e+2", "-0.0E-1", "+1", "null", "nul", "true", "tru", "false", "\"\\u12\"",
                "\"\\ud800\"", "\"\\x\"", "\"\\/\"", "\"\u{7f}\u{0}\t\"", " ", "\t", "\r\n", "\u{feff}",
                "\u{a0}", "1e999"], 24)
                .prop_map(String::into_bytes),
            proptest::collection::vec(any::<u8>(), 0..64),
        ],
    ) {
        if gojson::read(&body, false).is_ok() {
            for flavor in [Flavor::V1, Flavor::V2] {
                prop_assert_eq!(gojson::check(&body, flavor), Ok(()), "{:?}", lossy(&body));
            }
        }
    }

    #[test]
    fn yaml_body_any_text_decodes_or_is_client_error(
        body in prop_oneof![
            proptest::collection::vec(any::<u8>(), 0..256),
            joined(&["a: 1\n", "a:\n", "  b: 2\n", "- x\n", "? k\n", ": v\n", "&a ", "*a", "!!str ",
                "{a: [1, 2]}", "---\n", "...\n", "'q'", "\"q\"", "|\n  t\n", "a: 1\na: 2\n", "<<: *a\n",
                "\t", "#c\n", "~", "0x1F", "1e3", ".inf"], 16)
                .prop_map(String::into_bytes),
        ],
    ) {
        check_body(&body, BodyFormat::Yaml, true);
    }

    #[test]
    fn json_patch_any_operations_apply_or_are_client_errors(
        doc in json_value(),
        ops in proptest::collection::vec(patch_operation(), 0..8),
        raw in json_value(),
    ) {
        let current = json!({"apiVersion": "g.io/v1", "kind": "K", "metadata": {"name": "x"}, "spec": doc});
        for patch in [Value::Array(ops), raw.clone()] {
            if let Err(e) = Change::Patch(BodyFormat::JsonPatch, patch.clone()).apply(&current, None) {
                assert_client_error(&e, &patch);
            }
        }
        if let Err(e) = Change::Patch(BodyFormat::MergePatch, raw.clone()).apply(&current, None) {
            assert_client_error(&e, &raw);
        }
    }
}

/// Decoding either succeeds with an object or fails with a 4xx; the duplicate-field
/// passes over the same bytes (go-yaml's scan, the JSON decode, the compact-JSON gate)
/// never panic.
fn check_body(body: &[u8], format: BodyFormat, yaml: bool) {
    match decode_object(body, format) {
        Ok(value) => assert!(value.is_object()),
        Err(e) => assert_client_error(&e, &String::from_utf8_lossy(body)),
    }
    if yaml {
        let _ = strict::yaml::duplicates(body);
        let _ = yaml_json::decode(body);
    } else {
        let _ = strict::json::decode(&lossy(body), true);
    }
}

#[test]
fn json_body_deep_nesting_is_client_error() {
    for depth in [101, 127, 129, 10_000] {
        let body = format!("{}{}", "{\"a\":".repeat(depth), "}".repeat(depth));
        match decode_object(body.as_bytes(), BodyFormat::Json) {
            Ok(_) => panic!("{depth} levels accepted"),
            Err(e) => assert_client_error(&e, &depth),
        }
    }
}

/// The bad-input corpus of the second review: alias bombs (refused as go-yaml refuses
/// them, before any expansion), JSON patches of many moves or of moves that nest past
/// the limit, and copies past kube's accumulated copy limit. Each is a client error or
/// applies; none panics or overflows the stack.
#[test]
fn review_corpus_aliases_and_patch_moves_are_client_errors() {
    for levels in [3, 6, 9, 30] {
        let mut text = String::from(
            "apiVersion: g.io/v1\nkind: K\nmetadata: {name: x}\nspec:\n  a0: &a0 [lol]\n",
        );
        for level in 1..=levels {
            let alias = format!("*a{}", level - 1);
            let items = [alias.as_str(); 10].join(",");
            text.push_str(&format!("  a{level}: &a{level} [{items}]\n"));
        }
        check_body(text.as_bytes(), BodyFormat::Yaml, true);
        if levels >= 6 {
            let err = decode_object(text.as_bytes(), BodyFormat::Yaml).unwrap_err();
            assert!(
                err.to_string()
                    .contains("document contains excessive aliasing"),
                "{err}"
            );
        }
    }
    let current =
        json!({"apiVersion": "g.io/v1", "kind": "K", "metadata": {"name": "x"}, "spec": {}});
    let mut moves =
        vec![json!({"op": "add", "path": "/spec/junk", "value": vec![json!([]); 10_000]})];
    for i in 0..1_000 {
        let (from, to) = if i % 2 == 0 {
            ("/spec/junk", "/spec/j2")
        } else {
            ("/spec/j2", "/spec/junk")
        };
        moves.push(json!({"op": "move", "from": from, "path": to}));
    }
    let mut deep = vec![json!({"op": "add", "path": "/spec/c0", "value": {}})];
    for i in 1..5_000 {
        deep.push(json!({"op": "add", "path": format!("/spec/c{i}"), "value": {}}));
        deep.push(json!({"op": "move", "from": format!("/spec/c{}", i - 1), "path": format!("/spec/c{i}/x")}));
    }
    let big = "x".repeat(1 << 20);
    let copies = vec![
        json!({"op": "add", "path": "/spec/big", "value": big}),
        json!({"op": "copy", "from": "/spec/big", "path": "/spec/b1"}),
        json!({"op": "copy", "from": "/spec/big", "path": "/spec/b2"}),
        json!({"op": "copy", "from": "/spec/big", "path": "/spec/b3"}),
    ];
    for (what, ops, applies) in [
        ("moves", moves, true),
        ("deep moves", deep, false),
        ("copies", copies, false),
    ] {
        let patch = Value::Array(ops);
        match Change::Patch(BodyFormat::JsonPatch, patch).apply(&current, None) {
            Ok(_) => assert!(applies, "{what} applied"),
            Err(e) => {
                assert!(!applies, "{what}: {e}");
                assert_client_error(&e, &what);
            }
        }
    }
}
