//! How a write derives the new object from the stored one: a replacement, or a JSON
//! patch / merge patch applied with kube's limits (operation count, accumulated copy
//! size), in time linear in the patch plus the object, within the request's deadline.

use std::time::Instant;

use serde_json::{Value, json};

use crate::error::{ApiError, FieldError};
use crate::handlers::context::Target;
use crate::request::body::{check_nesting, parse_json, parse_json_reporting};
use crate::request::gojson::jsonpatch::{self, PatchFailure};
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
                jsonpatch::apply(current, patch, deadline).map_err(PatchFailure::into_api_error)
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
