//! The texts of rule failures as kube words them: the cause for a failed rule
//! (`fieldErrorForReason`), for a run-time problem (`field.Invalid(path, sts.Type, ...)`),
//! and which messageExpression results replace the rule's message.

use serde_json::Value;

use super::compile::CompiledRule;
use crate::cel::value::{EvalError, Value as CelValue};
use crate::error::{ErrorType, FieldError};
use crate::gofmt::field_value;

/// kube's `celconfig.MaxEvaluatedMessageExpressionSizeBytes`.
const MAX_MESSAGE_BYTES: usize = 5 * 1024;

/// The evaluated message, or `None` when kube falls back to `message`.
pub(super) fn message_text(result: Result<CelValue<'_>, EvalError>) -> Option<String> {
    let Ok(CelValue::String(s)) = result else {
        return None;
    };
    let trimmed = s.as_str().trim();
    if trimmed.is_empty() || trimmed.len() > MAX_MESSAGE_BYTES || trimmed.contains('\n') {
        return None;
    }
    Some(trimmed.to_string())
}

pub(super) fn error_string(rule: &CompiledRule) -> &str {
    if rule.message.is_empty() {
        &rule.rule
    } else {
        &rule.message
    }
}

/// `field.Invalid(path, sts.Type, detail)`: the schema type printed as a Go string.
pub(super) fn invalid_error(field: &str, schema_type: &str, detail: &str) -> FieldError {
    FieldError::invalid(field, &Value::String(schema_type.to_string()), detail)
}

/// kube's `fieldErrorForReason`; objects and lists omit their value.
pub(super) fn reason_error(
    field: &str,
    value: Option<&Value>,
    detail: &str,
    reason: Option<ErrorType>,
) -> FieldError {
    match reason {
        Some(ErrorType::Forbidden) => FieldError::forbidden(field, detail),
        Some(ErrorType::Required) => FieldError::required(field, detail),
        Some(ErrorType::Duplicate) => FieldError {
            reason: ErrorType::Duplicate,
            field: field.to_string(),
            detail: match value {
                Some(v) => format!("Duplicate value: {}", field_value(v)),
                None => "Duplicate value".to_string(),
            },
        },
        _ => FieldError {
            reason: ErrorType::Invalid,
            field: field.to_string(),
            detail: match value {
                Some(v) => format!("Invalid value: {}: {detail}", field_value(v)),
                None => format!("Invalid value: {detail}"),
            },
        },
    }
}
