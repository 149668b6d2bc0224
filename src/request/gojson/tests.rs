//! Go's JSON error texts against a table recorded from Go (`oracle.jsonl`: bodies, mostly
//! mutations of valid documents, and what kube's Go decoders answered; recorded by a small
//! Go program built in GOPATH mode against the reference's sources, as hack/cel-oracle says).

use super::*;

#[test]
fn summarize_matches_apiserver() {
    assert_eq!(summarize(b""), "<empty>");
    assert_eq!(summarize(b"{\"a\":"), "{\"a\":");
    assert_eq!(summarize(b"[]"), "5b5d");
    assert_eq!(
        summarize(br#"{"apiVersion":"stable.example.com/v1"}"#),
        r#"{"apiVersion":"stable.example. ..."#
    );
}

/// One row of `oracle.jsonl`: a body (hex) and what kube's Go decoders say about it,
/// recorded by a Go program built against the reference's sources (Go 1.27,
/// sigs.k8s.io/json, evanphx/json-patch v5, metav1.ObjectMeta); empty when Go accepts.
#[derive(serde::Deserialize)]
struct Row {
    hex: String,
    #[serde(default)]
    v1_any: String,
    #[serde(default)]
    std_any: String,
    #[serde(default)]
    interpret: String,
    #[serde(default)]
    merge: String,
    #[serde(default)]
    ops: String,
    #[serde(default)]
    decode_patch: String,
    #[serde(default)]
    meta: String,
}

fn rows() -> Vec<(Vec<u8>, Row)> {
    include_str!("oracle.jsonl")
        .lines()
        .map(|line| {
            let row: Row = serde_json::from_str(line).unwrap();
            let body = (0..row.hex.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&row.hex[i..i + 2], 16).unwrap())
                .collect();
            (body, row)
        })
        .collect()
}

/// Go's answer without a number beyond float64 (serde's refusal, not a syntax error).
fn syntax_only(text: &str) -> Option<&str> {
    (!text.starts_with("json: cannot unmarshal number")).then_some(text)
}

fn ours_interpret(body: &[u8]) -> String {
    if let Err(e) = check(body, Flavor::V2) {
        return format!("couldn't get version/kind; json parse error: {e}");
    }
    sniff(members(body)).err().unwrap_or_default()
}

fn ours_typed(body: &[u8], ty: &GoType) -> String {
    match parse(body, Flavor::V1) {
        Err(ParseError::Syntax(e) | ParseError::Other(e)) => e,
        Err(ParseError::TooDeep) => "too deep".into(),
        Ok(value) => unmarshal_error(&value, ty).unwrap_or_default(),
    }
}

fn ours_decode_patch(body: &[u8]) -> String {
    let value = match parse(body, Flavor::V2) {
        Err(ParseError::Syntax(e) | ParseError::Other(e)) => return e,
        Err(ParseError::TooDeep) => return "too deep".into(),
        Ok(value) => value,
    };
    if let Some(e) = patchops::decode_error(&value) {
        return e;
    }
    let ops = value.as_array().cloned().unwrap_or_default();
    patchops::validate(body, &ops).err().unwrap_or_default()
}

#[test]
fn go_decoders_errors_match_oracle() {
    let mut diffs = Vec::new();
    for (body, row) in rows() {
        let shown = String::from_utf8_lossy(&body).into_owned();
        let mut compare = |what: &str, ours: String, theirs: &str| {
            if ours != theirs {
                diffs.push(format!("{what} {shown:?}: ours {ours:?}, Go {theirs:?}"));
            }
        };
        if let Some(want) = syntax_only(&row.v1_any) {
            compare(
                "v1",
                check(&body, Flavor::V1).err().unwrap_or_default(),
                want,
            );
        }
        if let Some(want) = syntax_only(&row.std_any) {
            compare(
                "v2",
                check(&body, Flavor::V2).err().unwrap_or_default(),
                want,
            );
            let interpret = row.interpret.replace("<findKind>", FIND_KIND);
            compare("interpret", ours_interpret(&body), &interpret);
        }
        if syntax_only(&row.v1_any).is_some() {
            compare("merge", ours_typed(&body, &MERGE_PATCH), &row.merge);
            compare("ops", ours_typed(&body, &JSON_PATCH), &row.ops);
            if body.first() == Some(&b'{') || row.meta.contains("v1.ObjectMeta") {
                compare("meta", ours_typed(&body, &OBJECT_META), &row.meta);
            }
        }
        if syntax_only(&row.std_any).is_some() {
            compare("decode_patch", ours_decode_patch(&body), &row.decode_patch);
        }
    }
    assert!(
        diffs.is_empty(),
        "{} differences:\n{}",
        diffs.len(),
        diffs.join("\n")
    );
}

const FIND_KIND: &str = r#"struct { APIVersion string "json:\"apiVersion,omitempty\""; Kind string "json:\"kind,omitempty\"" }"#;

#[test]
fn marshal_patched_keeps_stored_order_then_added_members() {
    let old = serde_json::json!({"kind": "K", "metadata": {"name": "a", "uid": "u"}});
    let new = serde_json::json!({"kind": "K", "metadata": {"labels": {"x": "<"}, "name": "a", "uid": "u"}});
    assert_eq!(
        marshal_patched(&new, &old),
        r#"{"kind":"K","metadata":{"name":"a","uid":"u","labels":{"x":"\u003c"}}}"#
    );
}
