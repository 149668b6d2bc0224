//! JSON patch operations as evanphx/json-patch (v5, as kube builds it) decodes and checks
//! them: `invalid operation <op>: <reason>` with the operation re-encoded as Go does
//! (members sorted, raw values compacted, HTML-safe), and its reading of paths.

use std::collections::BTreeMap;

use serde_json::Value;

use super::types::kind;
use crate::gofmt::{json_string, quote};

/// DecodePatch's check of each operation; `body` is the patch text, `ops` its decoding.
pub fn validate(body: &[u8], ops: &[Value]) -> Result<(), String> {
    let raw = array_elements(body);
    for (i, op) in ops.iter().enumerate() {
        if let Some(reason) = problem(op) {
            let data = raw.get(i).map_or_else(|| "null".into(), |r| op_data(r));
            return Err(format!("invalid operation {data}: {reason}"));
        }
    }
    Ok(())
}

/// DecodePatch's own type errors (kube reports them when fieldValidation is Ignore).
pub fn decode_error(patch: &Value) -> Option<String> {
    match patch {
        Value::Null => None,
        Value::Array(ops) => ops.iter().enumerate().find_map(|(i, op)| match op {
            Value::Null | Value::Object(_) => None,
            other => Some(format!(
                "json: cannot unmarshal {} into Patch.{i} of type jsonpatch.Operation",
                kind(other)
            )),
        }),
        other => Some(format!(
            "json: cannot unmarshal {} into Go value of type jsonpatch.Patch",
            kind(other)
        )),
    }
}

/// sigs.k8s.io/json's strict findings for `[]jsonPatchOp`: members an operation's type
/// does not have (`unknown field "[0].foo"`; names match case-sensitively).
pub fn unknown_members(patch: &Value) -> Vec<String> {
    const KNOWN: [&str; 4] = ["op", "path", "from", "value"];
    let ops = patch.as_array().into_iter().flatten().enumerate();
    ops.flat_map(|(i, op)| {
        let names = op.as_object().into_iter().flat_map(|m| m.keys());
        names
            .filter(|name| !KNOWN.contains(&name.as_str()))
            .map(move |name| format!("unknown field {}", quote(&format!("[{i}].{name}"))))
    })
    .collect()
}

/// `validateOperation`.
fn problem(op: &Value) -> Option<String> {
    let name = match op.get("op") {
        Some(Value::String(s)) => s.as_str(),
        _ => "unknown",
    };
    let member = match name {
        "add" | "replace" if op.get("value").is_none() => {
            return Some(
                "failed to decode 'value': operation, missing value field: missing value".into(),
            );
        }
        "move" | "copy" => string_member(op, "from", "operation, missing from field")
            .map(|e| format!("failed to decode 'from': {e}")),
        "add" | "replace" | "remove" | "test" => None,
        _ => return Some("unsupported operation".into()),
    };
    member.or_else(|| {
        string_member(op, "path", "operation missing path field")
            .map(|e| format!("failed to decode 'path': {e}"))
    })
}

fn string_member(op: &Value, name: &str, missing: &str) -> Option<String> {
    match op.get(name) {
        None | Some(Value::Null) => Some(format!("{missing}: missing value")),
        Some(Value::String(_)) => None,
        Some(other) => Some(format!(
            "json: cannot unmarshal {} into Go value of type string",
            kind(other)
        )),
    }
}

/// How evanphx/json-patch reads a path: the part before the first `/` is dropped (so
/// `spec/replicas` is `/replicas`); a path without `/` reaches nothing.
pub fn go_path(path: &str) -> Option<&str> {
    path.find('/').map(|i| &path[i..])
}

/// `json.Marshal` of an operation (`map[string]*json.RawMessage`).
fn op_data(raw: &[u8]) -> String {
    if raw == b"null" {
        return "null".into();
    }
    let members: BTreeMap<String, &[u8]> = object_members(raw)
        .into_iter()
        .map(|(k, v)| (decode_key(k), v))
        .collect();
    let body: Vec<String> = members
        .iter()
        .map(|(k, v)| format!("{}:{}", json_string(k), compact(v)))
        .collect();
    format!("{{{}}}", body.join(","))
}

fn decode_key(raw: &[u8]) -> String {
    serde_json::from_str(&super::lossy(raw)).unwrap_or_default()
}

/// Go's compaction of raw JSON with HTML-safe escapes.
fn compact(raw: &[u8]) -> String {
    let text = super::lossy(raw);
    let mut out = String::with_capacity(text.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in text.chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' if in_string => escaped = true,
            '"' => in_string = !in_string,
            ' ' | '\t' | '\r' | '\n' if !in_string => continue,
            _ => {}
        }
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

fn skip_space(b: &[u8], mut i: usize) -> usize {
    while b
        .get(i)
        .is_some_and(|c| matches!(c, b' ' | b'\t' | b'\r' | b'\n'))
    {
        i += 1;
    }
    i
}

/// The end of the (valid) JSON value starting at `i`.
fn value_end(b: &[u8], i: usize) -> usize {
    let (mut depth, mut j, mut in_string, mut escaped) = (0usize, i, false, false);
    while let Some(&c) = b.get(j) {
        j += 1;
        match c {
            _ if escaped => escaped = false,
            b'\\' if in_string => escaped = true,
            b'"' => {
                in_string = !in_string;
                if !in_string && depth == 0 {
                    return j;
                }
            }
            _ if in_string => {}
            b'{' | b'[' => depth += 1,
            b'}' | b']' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    return j;
                }
            }
            b',' | b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n' if depth == 0 => return j - 1,
            _ => {}
        }
    }
    j
}

/// The raw members of a container: `(key, value)` of an object, `(value, value)` of an array.
fn members(b: &[u8], keyed: bool) -> Vec<(&[u8], &[u8])> {
    let mut out = Vec::new();
    let mut i = skip_space(b, 0) + 1;
    loop {
        i = skip_space(b, i);
        if matches!(b.get(i), None | Some(b'}') | Some(b']')) {
            return out;
        }
        let key = match keyed {
            true => {
                let end = value_end(b, i);
                let key = &b[i..end];
                i = skip_space(b, end) + 1;
                i = skip_space(b, i);
                Some(key)
            }
            false => None,
        };
        let end = value_end(b, i);
        let value = &b[i..end];
        out.push((key.unwrap_or(value), value));
        i = skip_space(b, end);
        if b.get(i) == Some(&b',') {
            i += 1;
        }
    }
}

fn array_elements(b: &[u8]) -> Vec<&[u8]> {
    members(b, false).into_iter().map(|(_, v)| v).collect()
}

fn object_members(b: &[u8]) -> Vec<(&[u8], &[u8])> {
    members(b, true)
}
