//! Why a field-managed write fails, with kube's status codes and texts, and the
//! `GroupVersionKind` / `objectGVKNN` texts its messages embed.

use std::fmt;

use serde_json::Value;

use crate::fieldmanager::managed::ConflictCause;

/// A failed update or apply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// 409 `Conflict` (`NewApplyConflict`): `Apply failed with 1 conflict: ...`, one
    /// `FieldManagerConflict` cause per conflicting field.
    Conflict {
        message: String,
        causes: Vec<ConflictCause>,
    },
    /// 400 `BadRequest` with this message.
    BadRequest(String),
    /// 422 `Invalid` of the object: the field errors' texts.
    Invalid(Vec<String>),
    /// A plain Go error: kube answers 500 (no reason) with the text as message.
    Internal(String),
}

impl Error {
    /// The HTTP code kube answers with.
    pub fn code(&self) -> u16 {
        match self {
            Error::Conflict { .. } => 409,
            Error::BadRequest(_) => 400,
            Error::Invalid(_) => 422,
            Error::Internal(_) => 500,
        }
    }

    /// The Status `reason` (`""` for plain errors).
    pub fn reason(&self) -> &'static str {
        match self {
            Error::Conflict { .. } => "Conflict",
            Error::BadRequest(_) => "BadRequest",
            Error::Invalid(_) => "Invalid",
            Error::Internal(_) => "",
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Conflict { message, .. } => f.write_str(message),
            Error::BadRequest(text) | Error::Internal(text) => f.write_str(text),
            Error::Invalid(errs) => f.write_str(&errs.join(", ")),
        }
    }
}

impl std::error::Error for Error {}

/// `schema.FromAPIVersionAndKind(apiVersion, kind).String()`: `group/version, Kind=K`
/// (`/v1, Kind=K` for the core group; an unparsable apiVersion keeps only the kind).
pub fn gvk_string(api_version: &str, kind: &str) -> String {
    let (group, version) = match api_version.split('/').collect::<Vec<_>>().as_slice() {
        [] | [""] => ("", ""),
        [version] => ("", *version),
        [group, version] => (*group, *version),
        _ => ("", ""),
    };
    format!("{group}/{version}, Kind={kind}")
}

/// An object's `apiVersion` and `kind` (empty when missing or not strings).
pub fn type_meta(object: &Value) -> (&str, &str) {
    let text = |k: &str| object.get(k).and_then(Value::as_str).unwrap_or("");
    (text("apiVersion"), text("kind"))
}

/// `objectGVKNN`: `namespace/name; group/version, Kind=K`.
pub fn object_gvknn(object: &Value) -> String {
    let meta = |k: &str| {
        object
            .get("metadata")
            .and_then(|m| m.get(k))
            .and_then(Value::as_str)
            .unwrap_or("")
    };
    let (api_version, kind) = type_meta(object);
    format!(
        "{}/{}; {}",
        meta("namespace"),
        meta("name"),
        gvk_string(api_version, kind)
    )
}
