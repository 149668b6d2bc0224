//! How a write derives the new object from the stored one: a replacement, or a JSON
//! patch / merge patch applied with kube's limits (operation count, accumulated copy
//! size) and a nesting bound checked before each operation.

use serde_json::Value;

use crate::error::ApiError;
use crate::request::body::{MAX_NESTING, check_nesting, check_nesting_at};
use crate::request::negotiate::BodyFormat;

/// How a write derives the new object from the stored one.
pub enum Change {
    /// PUT: the body replaces the object (or only its status on /status).
    Replace(Value),
    /// PATCH: a JSON patch or merge patch applied to the stored object.
    Patch(BodyFormat, Value),
}

impl Change {
    /// The new document: the replacement, or the patch applied to `current`.
    pub fn apply(&self, current: &Value) -> Result<Value, ApiError> {
        let doc = self.apply_unchecked(current)?;
        if matches!(self, Change::Patch(..)) {
            check_nesting(&doc)?;
        }
        Ok(doc)
    }

    fn apply_unchecked(&self, current: &Value) -> Result<Value, ApiError> {
        match self {
            Change::Replace(v) => Ok(v.clone()),
            Change::Patch(BodyFormat::JsonPatch, patch) => {
                let ops: json_patch::Patch = serde_json::from_value(patch.clone())
                    .map_err(|e| ApiError::BadRequest(format!("error decoding patch: {e}")))?;
                apply_json_patch(current, &ops.0)
            }
            Change::Patch(_, patch) => {
                let mut doc = current.clone();
                json_patch::merge(&mut doc, patch);
                Ok(doc)
            }
        }
    }
}

/// kube's limit on the operations of one JSON patch.
const MAX_JSON_PATCH_OPERATIONS: usize = 10_000;

/// Applies a JSON patch one operation at a time, bounding the nesting each operation
/// creates before it is applied: several operations could otherwise build a document
/// deep enough to overflow the stack of any recursive walk (or of dropping it).
fn apply_json_patch(
    current: &Value,
    ops: &[json_patch::PatchOperation],
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
        check_nesting_at(op_nesting(&doc, op))?;
        if let json_patch::PatchOperation::Copy(c) = op {
            // kube's AccumulatedCopySizeLimit: copies could otherwise double the
            // document with every operation.
            let size = doc
                .pointer(c.from.as_str())
                .map_or(0, |v| encoded_size(v, MAX_COPY_BYTES - copied));
            copied += size;
            if copied > MAX_COPY_BYTES {
                return Err(unprocessable(format!(
                    "Unable to complete the copy, the accumulated size increase of copy is {copied}, exceeding the limit {MAX_COPY_BYTES}"
                )));
            }
        }
        json_patch::patch(&mut doc, std::slice::from_ref(op))
            .map_err(|e| unprocessable(e.to_string()))?;
    }
    Ok(doc)
}

/// kube's limit on the bytes all `copy` operations of one JSON patch may add (3 MiB).
const MAX_COPY_BYTES: usize = 3 * 1024 * 1024;

/// The JSON-encoded size of a value, counted only until it passes `limit`.
fn encoded_size(value: &Value, limit: usize) -> usize {
    fn walk(value: &Value, total: &mut usize, limit: usize) {
        if *total > limit {
            return;
        }
        match value {
            Value::Array(items) => {
                *total += 2 + items.len().saturating_sub(1);
                items.iter().for_each(|v| walk(v, total, limit));
            }
            Value::Object(map) => {
                *total += 2 + map.len().saturating_sub(1);
                for (k, v) in map {
                    *total += k.len() + 3;
                    walk(v, total, limit);
                }
            }
            Value::String(s) => *total += s.len() + 2,
            other => *total += other.to_string().len(),
        }
    }
    let mut total = 0;
    walk(value, &mut total, limit);
    total
}

/// How deep the value an operation writes reaches: its path plus the written value.
fn op_nesting(doc: &Value, op: &json_patch::PatchOperation) -> usize {
    use json_patch::PatchOperation as Op;
    match op {
        Op::Add(o) => o.path.count() + nesting(&o.value),
        Op::Replace(o) => o.path.count() + nesting(&o.value),
        Op::Copy(o) => o.path.count() + doc.pointer(o.from.as_str()).map_or(0, nesting),
        Op::Move(o) => o.path.count() + doc.pointer(o.from.as_str()).map_or(0, nesting),
        Op::Remove(_) | Op::Test(_) => 0,
    }
}

/// Nesting depth of a value, counted only up to just past the limit.
fn nesting(value: &Value) -> usize {
    fn walk(value: &Value, depth: usize) -> usize {
        if depth > MAX_NESTING {
            return depth;
        }
        let children: Box<dyn Iterator<Item = &Value>> = match value {
            Value::Array(items) => Box::new(items.iter()),
            Value::Object(map) => Box::new(map.values()),
            _ => return depth,
        };
        children.map(|v| walk(v, depth + 1)).max().unwrap_or(depth)
    }
    walk(value, 0)
}

/// kube drops the patch library's error text and answers this fixed 422.
fn unprocessable(message: String) -> ApiError {
    tracing::debug!(error = %message, "patch could not be applied");
    ApiError::Unprocessable("the server rejected our request due to an error in our request".into())
}

/// A patch body: JSON, with kube's "error decoding patch" wording on failure.
pub fn decode_patch(body: &[u8]) -> Result<Value, ApiError> {
    serde_json::from_slice(body)
        .map_err(|e| ApiError::BadRequest(format!("error decoding patch: {e}")))
}
