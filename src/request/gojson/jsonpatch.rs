//! JSON patch (RFC 6902) applied as kube applies it (evanphx/json-patch with kube's
//! limits: operation count, accumulated copy size, nesting), in time linear in the patch
//! plus the object, stopping at a deadline. A request's patch and an admission
//! webhook's patch both apply through [`apply`].

use std::time::Instant;

use serde_json::Value;

use crate::error::ApiError;
use crate::request::body::{MAX_NESTING, check_nesting, check_nesting_at};
use crate::request::gojson::{patchops, patchtext};

/// Why a patch did not apply.
#[derive(Debug)]
pub enum PatchFailure {
    /// An operation failed (evanphx/json-patch's text, which kube's patch handler does
    /// not show and its webhook dispatcher does).
    Operation(String),
    /// One of kube's limits, or the deadline, with kube's answer.
    Refused(ApiError),
}

impl PatchFailure {
    /// A request's patch: kube drops the library's text and answers a fixed 422.
    pub fn into_api_error(self) -> ApiError {
        match self {
            PatchFailure::Operation(message) => unprocessable(message),
            PatchFailure::Refused(e) => e,
        }
    }
}

impl std::fmt::Display for PatchFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PatchFailure::Operation(message) => f.write_str(message),
            PatchFailure::Refused(e) => write!(f, "{e}"),
        }
    }
}

/// Applies the JSON patch `patch` (the operations as JSON, paths as evanphx reads them)
/// to a copy of `current`.
pub fn apply(
    current: &Value,
    patch: &Value,
    deadline: Option<Instant>,
) -> Result<Value, PatchFailure> {
    let ops: json_patch::Patch = serde_json::from_value(go_paths(patch)?)
        .map_err(|e| PatchFailure::Operation(e.to_string()))?;
    apply_json_patch(current, &ops.0, deadline)
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
) -> Result<Value, PatchFailure> {
    if ops.len() > MAX_JSON_PATCH_OPERATIONS {
        return Err(PatchFailure::Refused(ApiError::RequestEntityTooLarge(
            format!(
                "The allowed maximum operations in a JSON patch is {MAX_JSON_PATCH_OPERATIONS}, got {}",
                ops.len()
            ),
        )));
    }
    let mut doc = current.clone();
    let mut copied = 0;
    for op in ops {
        let applied = past(deadline)
            .and_then(|()| check_copy(&doc, op, &mut copied))
            .map_err(PatchFailure::Refused)
            .and_then(|()| {
                json_patch::patch_unsafe(&mut doc, std::slice::from_ref(op)).map_err(|e| {
                    PatchFailure::Operation(patchtext::failure(&doc, op, e.to_string()))
                })
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
            Err(PatchFailure::Refused(e))
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
fn go_paths(patch: &Value) -> Result<Value, PatchFailure> {
    let mut patch = patch.clone();
    for op in patch.as_array_mut().into_iter().flatten() {
        for member in ["path", "from"] {
            if let Some(Value::String(path)) = op.get_mut(member) {
                let go = patchops::go_path(path).ok_or_else(|| {
                    PatchFailure::Operation(format!("path {path:?} reaches nothing"))
                })?;
                *path = go.to_string();
            }
        }
    }
    Ok(patch)
}
