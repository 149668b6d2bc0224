//! How a write derives the new object from the stored one: a replacement, or a JSON
//! patch / merge patch applied with kube's limits (operation count, accumulated copy
//! size), in time linear in the patch plus the object, within the request's deadline.

use std::time::Instant;

use serde_json::{Value, json};

use crate::error::{ApiError, FieldError};
use crate::handlers::context::Target;
use crate::request::body::{
    MAX_NESTING, check_nesting, check_nesting_at, parse_json, parse_json_reporting,
};
use crate::request::gojson::{self, Flavor, patchops};
use crate::request::negotiate::BodyFormat;
use crate::request::options::FieldValidation;

/// How a write derives the new object from the stored one.
pub enum Change {
    /// PUT: the body replaces the object (or only its status on /status).
    Replace(Value),
    /// PATCH: a JSON patch or merge patch applied to the stored object.
    Patch(BodyFormat, Value),
}

impl Change {
    /// The new document: the replacement, or the patch applied to `current`. A JSON
    /// patch stops between operations once `deadline` has passed (kube's request
    /// deadline), so a request that outlives it stops using CPU.
    pub fn apply(&self, current: &Value, deadline: Option<Instant>) -> Result<Value, ApiError> {
        match self {
            Change::Replace(v) => Ok(v.clone()),
            Change::Patch(BodyFormat::JsonPatch, patch) => {
                // Checked when decoded; what still fails here is a path the Go library
                // cannot follow, which kube answers like any failed operation.
                let ops: json_patch::Patch = serde_json::from_value(go_paths(patch)?)
                    .map_err(|e| unprocessable(e.to_string()))?;
                apply_json_patch(current, &ops.0, deadline)
            }
            Change::Patch(_, patch) => {
                let mut doc = current.clone();
                json_patch::merge(&mut doc, patch);
                // A merge patch nests no deeper than the patch and the object.
                check_nesting(&doc)?;
                Ok(doc)
            }
        }
    }
}

/// kube's limit on the operations of one JSON patch.
const MAX_JSON_PATCH_OPERATIONS: usize = 10_000;

/// Applies a JSON patch one operation at a time, in time linear in the patch plus the
/// object: no operation walks the document, but for `copy`, whose walk of the copied
/// value is paid for by kube's accumulated copy limit. A value written by `add` or
/// `replace` nests no deeper than the body parser allowed, and `copy` refuses a value
/// that would nest too deep where it lands (it clones recursively); only `move` can
/// deepen the document without a walk, so the nesting limit is checked once, on the
/// result, by a walk that stops at the limit. Whatever fails is dropped without
/// recursion, however deep moves made it.
fn apply_json_patch(
    current: &Value,
    ops: &[json_patch::PatchOperation],
    deadline: Option<Instant>,
) -> Result<Value, ApiError> {
    if ops.len() > MAX_JSON_PATCH_OPERATIONS {
        return Err(ApiError::RequestEntityTooLarge(format!(
            "The allowed maximum operations in a JSON patch is {MAX_JSON_PATCH_OPERATIONS}, got {}",
            ops.len()
        )));
    }
    let mut doc = current.clone();
    let mut copied = 0;
    for op in ops {
        let applied = past(deadline)
            .and_then(|()| check_copy(&doc, op, &mut copied))
            .and_then(|()| {
                json_patch::patch_unsafe(&mut doc, std::slice::from_ref(op))
                    .map_err(|e| unprocessable(e.to_string()))
            });
        if let Err(e) = applied {
            dispose(doc);
            return Err(e);
        }
    }
    match check_nesting(&doc) {
        Ok(()) => Ok(doc),
        Err(e) => {
            dispose(doc);
            Err(e)
        }
    }
}

/// kube's timeout answer once the request's deadline has passed.
fn past(deadline: Option<Instant>) -> Result<(), ApiError> {
    match deadline {
        Some(d) if Instant::now() >= d => Err(ApiError::request_timeout()),
        _ => Ok(()),
    }
}

/// kube's AccumulatedCopySizeLimit (copies could otherwise double the document with
/// every operation) and the nesting of the copied value where it lands, both measured in
/// one walk of the copied value bounded by what the limit still allows.
fn check_copy(
    doc: &Value,
    op: &json_patch::PatchOperation,
    copied: &mut usize,
) -> Result<(), ApiError> {
    let json_patch::PatchOperation::Copy(c) = op else {
        return Ok(());
    };
    let Some(source) = doc.pointer(c.from.as_str()) else {
        // The operation fails as kube's does.
        return Ok(());
    };
    let (size, depth) = measure(source, MAX_COPY_BYTES - *copied, MAX_NESTING);
    *copied += size;
    if *copied > MAX_COPY_BYTES {
        return Err(unprocessable(format!(
            "Unable to complete the copy, the accumulated size increase of copy is {copied}, exceeding the limit {MAX_COPY_BYTES}"
        )));
    }
    check_nesting_at(c.path.count() + depth)
}

/// kube's limit on the bytes all `copy` operations of one JSON patch may add (3 MiB).
const MAX_COPY_BYTES: usize = 3 * 1024 * 1024;

/// The JSON-encoded size of a value and its nesting depth, counted only until the size
/// passes `size_limit` or the depth `depth_limit` (the walk stops there).
fn measure(value: &Value, size_limit: usize, depth_limit: usize) -> (usize, usize) {
    fn walk(value: &Value, depth: usize, m: &mut (usize, usize), limits: (usize, usize)) {
        m.1 = m.1.max(depth);
        if m.0 > limits.0 || depth > limits.1 {
            return;
        }
        match value {
            Value::Array(items) => {
                m.0 += 2 + items.len().saturating_sub(1);
                items.iter().for_each(|v| walk(v, depth + 1, m, limits));
            }
            Value::Object(map) => {
                m.0 += 2 + map.len().saturating_sub(1);
                for (k, v) in map {
                    m.0 += k.len() + 3;
                    walk(v, depth + 1, m, limits);
                }
            }
            Value::String(s) => m.0 += s.len() + 2,
            other => m.0 += other.to_string().len(),
        }
    }
    let mut m = (0, 0);
    walk(value, 0, &mut m, (size_limit, depth_limit));
    m
}

/// Drops a value of any depth without recursion (serde_json's drop recurses, and moves
/// can nest a refused document far past the limit).
fn dispose(value: Value) {
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.into_iter().map(|(_, v)| v)),
            _ => {}
        }
    }
}

/// kube drops the patch library's error text and answers this fixed 422.
fn unprocessable(message: String) -> ApiError {
    tracing::debug!(error = %message, "patch could not be applied");
    ApiError::Unprocessable("the server rejected our request due to an error in our request".into())
}

/// The operations with their paths as evanphx/json-patch reads them (`spec/replicas`
/// is `/replicas`); a path it cannot follow fails as an operation that does not apply.
fn go_paths(patch: &Value) -> Result<Value, ApiError> {
    let mut patch = patch.clone();
    for op in patch.as_array_mut().into_iter().flatten() {
        for member in ["path", "from"] {
            if let Some(Value::String(path)) = op.get_mut(member) {
                let go = patchops::go_path(path)
                    .ok_or_else(|| unprocessable(format!("path {path:?} reaches nothing")))?;
                *path = go.to_string();
            }
        }
    }
    Ok(patch)
}

/// A JSON patch or merge patch body, checked as kube's patch handler checks it: with
/// fieldValidation Strict or Warn, sigs.k8s.io/json decodes it into the patch's Go type
/// first (`error decoding patch: …`), finding its duplicate fields in the same pass;
/// then evanphx/json-patch reads it (JSON patch: `invalid operation …`, merge patch:
/// `Invalid JSON Patch`). Returns the patch and its duplicate fields.
pub fn decode_patch(
    body: &[u8],
    format: BodyFormat,
    directive: FieldValidation,
) -> Result<(Value, Vec<String>), ApiError> {
    let typed = directive.reports();
    match format {
        BodyFormat::JsonPatch if typed => {
            let (patch, duplicates) = decode_typed(body, &gojson::JSON_PATCH)?;
            Ok((check_operations(body, patch)?, duplicates))
        }
        BodyFormat::JsonPatch => {
            let patch = parse_json(body, Flavor::V2, ApiError::BadRequest)?;
            match patchops::decode_error(&patch) {
                Some(e) => Err(ApiError::BadRequest(e)),
                None => Ok((check_operations(body, patch)?, Vec::new())),
            }
        }
        _ if typed => match decode_typed(body, &gojson::MERGE_PATCH)? {
            (Value::Null, _) => Err(invalid_merge_patch()),
            decoded => Ok(decoded),
        },
        _ => match parse_json(body, Flavor::V2, |_| invalid_merge_patch())? {
            patch @ (Value::Object(_) | Value::Array(_)) => Ok((patch, Vec::new())),
            _ => Err(invalid_merge_patch()),
        },
    }
}

fn decode_typed(body: &[u8], ty: &gojson::GoType) -> Result<(Value, Vec<String>), ApiError> {
    let failed = |e: String| ApiError::BadRequest(format!("error decoding patch: {e}"));
    let (patch, duplicates) = parse_json_reporting(body, Flavor::V1, true, failed)?;
    match gojson::unmarshal_error(&patch, ty) {
        Some(e) => Err(failed(e)),
        None => Ok((patch, duplicates)),
    }
}

fn check_operations(body: &[u8], patch: Value) -> Result<Value, ApiError> {
    let ops = patch.as_array().map(Vec::as_slice).unwrap_or_default();
    patchops::validate(body, ops).map_err(ApiError::BadRequest)?;
    Ok(patch)
}

fn invalid_merge_patch() -> ApiError {
    ApiError::BadRequest("Invalid JSON Patch".into())
}

/// The patched document decoded as kube decodes it before any other check: what does not
/// decode is a 422 quoting the document (` "" is invalid: patch: Invalid value: …`), a
/// missing apiVersion an internal error; then, but for `/status` (whose writes keep the
/// stored type meta), kube's validator on apiVersion and kind. A version the resource
/// does not have prunes every field but the type meta and metadata, with warnings.
pub fn check_patched(
    ctx: &Target,
    new: &Value,
    current: &Value,
    status: bool,
    warnings: &mut Vec<String>,
) -> Result<(), ApiError> {
    let undecodable = |e: String| ApiError::Invalid {
        group: String::new(),
        kind: String::new(),
        name: String::new(),
        causes: vec![FieldError::invalid(
            "patch",
            &Value::String(gojson::marshal_patched(new, current)),
            &e,
        )],
    };
    let api_version = gojson::sniff(gojson::values_members(new)).map_err(undecodable)?;
    let kind = new.get("kind").and_then(Value::as_str).unwrap_or_default();
    if kind.is_empty() {
        let text = gojson::marshal_patched(new, current);
        return Err(undecodable(format!("Object 'Kind' is missing in '{text}'")));
    }
    let meta_error = new
        .get("metadata")
        .and_then(|m| gojson::unmarshal_error(m, &gojson::OBJECT_META));
    if let Some(e) = meta_error {
        return Err(undecodable(e));
    }
    if api_version.is_empty() {
        return Err(ApiError::Internal(
            "Object 'apiVersion' is missing in 'object has no apiVersion field'".into(),
        ));
    }
    if status {
        return Ok(());
    }
    let (group, version) = gojson::parse_group_version(&api_version).unwrap_or_default();
    let mut causes = Vec::new();
    if kind != ctx.resource.kind {
        let detail = format!("must be {}", ctx.resource.kind);
        causes.push(FieldError::invalid("kind", &json!(kind), &detail));
    }
    if api_version != ctx.api_version() {
        let detail = format!("must be {}", ctx.api_version());
        causes.push(FieldError::invalid(
            "apiVersion",
            &json!(api_version),
            &detail,
        ));
    }
    if causes.is_empty() {
        return Ok(());
    }
    let ours = group == ctx.resource.group && kind == ctx.resource.kind;
    if ours && !ctx.resource.versions.iter().any(|v| *v.name == *version) {
        let pruned = new.as_object().into_iter().flatten().map(|(k, _)| k);
        let pruned = pruned.filter(|k| !["apiVersion", "kind", "metadata"].contains(&k.as_str()));
        warnings.extend(pruned.map(|k| format!("unknown field {k:?}")));
    }
    Err(ApiError::Invalid {
        group: group.to_string(),
        kind: kind.to_string(),
        name: crate::meta::object::name(new).to_string(),
        causes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Texts recorded from the reference apiextensions-apiserver.
    #[test]
    fn decode_patch_errors_are_kubes() {
        use BodyFormat::{JsonPatch, MergePatch};
        use FieldValidation::{Ignore, Warn};
        let cases: &[(&str, BodyFormat, FieldValidation, &str)] = &[
            (
                r#"{"op":"add"}"#,
                JsonPatch,
                Warn,
                "error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp",
            ),
            (
                "[5]",
                JsonPatch,
                Warn,
                "error decoding patch: json: cannot unmarshal number into Go value of type handlers.jsonPatchOp",
            ),
            (
                "[{",
                JsonPatch,
                Warn,
                "error decoding patch: unexpected end of JSON input",
            ),
            (
                r#"[{"op":"frob","path":"/spec/replicas","value":2}]"#,
                JsonPatch,
                Warn,
                r#"invalid operation {"op":"frob","path":"/spec/replicas","value":2}: unsupported operation"#,
            ),
            (
                r#"[{"op":"add","path":"/spec/replicas"}]"#,
                JsonPatch,
                Warn,
                r#"invalid operation {"op":"add","path":"/spec/replicas"}: failed to decode 'value': operation, missing value field: missing value"#,
            ),
            (
                r#"{"op":"add"}"#,
                JsonPatch,
                Ignore,
                "json: cannot unmarshal object into Go value of type jsonpatch.Patch",
            ),
            (
                "[5]",
                JsonPatch,
                Ignore,
                "json: cannot unmarshal number into Patch.0 of type jsonpatch.Operation",
            ),
            (
                "{bad",
                JsonPatch,
                Ignore,
                "invalid character 'b' looking for beginning of object key string",
            ),
            (
                "[1]",
                MergePatch,
                Warn,
                "error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}",
            ),
            ("null", MergePatch, Warn, "Invalid JSON Patch"),
            (
                "{bad",
                MergePatch,
                Warn,
                "error decoding patch: invalid character 'b' looking for beginning of object key string",
            ),
            ("{bad", MergePatch, Ignore, "Invalid JSON Patch"),
            ("5", MergePatch, Ignore, "Invalid JSON Patch"),
        ];
        for (body, format, directive, want) in cases {
            let got = decode_patch(body.as_bytes(), *format, *directive).unwrap_err();
            assert_eq!(got.to_string(), *want, "{body:?} {format:?} {directive:?}");
            assert_eq!(got.code(), 400);
        }
    }

    #[test]
    fn json_patch_path_without_slash_drops_first_segment() {
        let current = json!({"spec": {"replicas": 1}});
        let patch = json!([{"op": "add", "path": "spec/replicas", "value": 2}]);
        let change = Change::Patch(BodyFormat::JsonPatch, patch);
        assert_eq!(change.apply(&current, None).unwrap()["replicas"], 2);
        let nowhere = json!([{"op": "add", "path": "replicas", "value": 2}]);
        let change = Change::Patch(BodyFormat::JsonPatch, nowhere);
        assert_eq!(change.apply(&current, None).unwrap_err().code(), 422);
    }
}
