//! kube's `mutating/patch`: an ApplyConfiguration's `Object{...}` merged onto the object
//! with structured-merge-diff over the resource's type (`smd.go`: typed patch, refusal of
//! atomic lists, maps and structs, merge; ownership is not tracked), and a JSONPatch's
//! operations applied as evanphx/json-patch v4 does (`json_patch.go`: a failed `test`
//! leaves the object unchanged). Pure: plain JSON in, JSON or kube's error text out.

use serde_json::{Map as JsonMap, Value as Json};

use crate::cel::mutation::JsonPatchOp;
use crate::fieldmanager::fieldpath::PathElement;
use crate::fieldmanager::typed::{self, Form, TypeRef};
use crate::request::gojson::jsonpatch::{self, PatchFailure};

/// kube's `ApplyConfigurationPatcher` after evaluation: `patch` (the `Object{...}` as
/// JSON) typed by `ty` and merged onto `live`; the patch takes the live object's
/// `apiVersion` and `kind`. The error is kube's (`error applying patch: ...`).
pub fn apply_configuration(
    ty: &TypeRef,
    live: &Json,
    mut patch: JsonMap<String, Json>,
) -> Result<Json, String> {
    for key in ["apiVersion", "kind"] {
        match live.get(key) {
            Some(v) => patch.insert(key.to_string(), v.clone()),
            None => patch.remove(key),
        };
    }
    let patch = Json::Object(patch);
    structured_merge(ty, live, &patch).map_err(|e| format!("error applying patch: {e}"))
}

/// kube's `ApplyStructuredMergeDiff`.
fn structured_merge(ty: &TypeRef, live: &Json, patch: &Json) -> Result<Json, String> {
    typed::validate(ty, patch, false)
        .map_err(|e| format!("failed to convert patch object to typed object: {e}"))?;
    let atomics = find_atomics(ty, patch);
    if !atomics.is_empty() {
        return Err(format!(
            "invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: {}",
            atomics.join(", ")
        ));
    }
    typed::validate(ty, live, true)
        .map_err(|e| format!("failed to convert original object to typed object: {e}"))?;
    typed::merge(ty, live, patch).map_err(|e| format!("failed to merge patch: {e}"))
}

/// kube's `findAtomics`: the paths of atomic lists, maps and structs the patch sets
/// (a map's declared fields are descended into, its other keys are not).
pub fn find_atomics(ty: &TypeRef, value: &Json) -> Vec<String> {
    let mut out = Vec::new();
    let mut path = Vec::new();
    walk_atomics(ty, value, &mut path, &mut out);
    out
}

fn walk_atomics(ty: &TypeRef, value: &Json, path: &mut Vec<PathElement>, out: &mut Vec<String>) {
    let atom = ty.resolve();
    match (value, atom.form_for(Some(value))) {
        (Json::Object(entries), Form::Map(map)) => {
            if map.atomic {
                out.push(path_string(path));
            }
            for (key, v) in entries {
                if let Some(field) = map.fields.get(key) {
                    path.push(PathElement::FieldName(key.clone()));
                    walk_atomics(&field.ty, v, path, out);
                    path.pop();
                }
            }
        }
        (Json::Array(items), Form::List(list)) => {
            if list.atomic {
                out.push(path_string(path));
            }
            for (i, item) in items.iter().enumerate() {
                path.push(PathElement::Index(i as i64));
                walk_atomics(&list.element, item, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

fn path_string(path: &[PathElement]) -> String {
    path.iter().map(ToString::to_string).collect()
}

/// kube's `jsonPatcher` after evaluation: the operations applied to `object`; a failed
/// `test` operation leaves it unchanged; any other failure is `JSON Patch: <text>`.
pub fn apply_json_patch(object: &Json, ops: &[JsonPatchOp]) -> Result<Json, String> {
    let patch = Json::Array(ops.iter().map(JsonPatchOp::to_json).collect());
    match jsonpatch::apply(object, &patch, None) {
        Ok(patched) if patched.is_object() => Ok(patched),
        Ok(patched) => Err(format!("Object 'Kind' is missing in '{patched}'")),
        Err(PatchFailure::Operation(text)) if text.ends_with(": test failed") => Ok(object.clone()),
        Err(e) => Err(format!("JSON Patch: {e}")),
    }
}

#[cfg(test)]
mod tests;
