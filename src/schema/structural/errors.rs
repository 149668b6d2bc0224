//! Field-error constructors in apimachinery's wording that `crate::error` does not offer.

use serde_json::Value;

use crate::error::{ErrorType, FieldError};

pub(super) fn required(field: &str, detail: &str) -> FieldError {
    FieldError::required(field, detail)
}

pub(super) fn forbidden(field: &str, detail: &str) -> FieldError {
    FieldError::forbidden(field, detail)
}

pub(super) fn invalid(field: &str, value: &Value, detail: &str) -> FieldError {
    FieldError::invalid(field, value, detail)
}

pub(super) fn invalid_str(field: &str, value: &str, detail: &str) -> FieldError {
    FieldError::invalid(field, &Value::String(value.to_string()), detail)
}

/// `Invalid value: <rendered>: detail` where the value is already rendered as Go would.
pub(super) fn invalid_rendered(field: &str, rendered: &str, detail: &str) -> FieldError {
    FieldError {
        reason: ErrorType::Invalid,
        field: field.to_string(),
        detail: format!("Invalid value: {rendered}: {detail}"),
    }
}

/// `Unsupported value: "v": supported values: "a", "b"` (apimachinery's `field.NotSupported`).
pub(super) fn not_supported(field: &str, value: &str, supported: &[&str]) -> FieldError {
    let quoted: Vec<String> = supported.iter().map(|s| format!("{s:?}")).collect();
    FieldError {
        reason: ErrorType::NotSupported,
        field: field.to_string(),
        detail: format!(
            "Unsupported value: {value:?}: supported values: {}",
            quoted.join(", ")
        ),
    }
}
