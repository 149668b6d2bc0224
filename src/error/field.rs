//! Field errors: the causes of a 422 Invalid answer, as apimachinery's `field.Error` with
//! its `field.ErrorType`, and their aggregate message.

use serde_json::Value;

use crate::gofmt::field_value;

/// kube's `field.ErrorType`: what is wrong with a field, sent as a cause's `reason`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorType {
    NotFound,
    Required,
    Duplicate,
    Invalid,
    NotSupported,
    Forbidden,
    TooLong,
    TooMany,
    Internal,
    TypeInvalid,
}

impl ErrorType {
    /// The cause reason on the wire (`FieldValueInvalid`, ...).
    pub fn reason(self) -> &'static str {
        match self {
            ErrorType::NotFound => "FieldValueNotFound",
            ErrorType::Required => "FieldValueRequired",
            ErrorType::Duplicate => "FieldValueDuplicate",
            ErrorType::Invalid => "FieldValueInvalid",
            ErrorType::NotSupported => "FieldValueNotSupported",
            ErrorType::Forbidden => "FieldValueForbidden",
            ErrorType::TooLong => "FieldValueTooLong",
            ErrorType::TooMany => "FieldValueTooMany",
            ErrorType::Internal => "InternalError",
            ErrorType::TypeInvalid => "FieldValueTypeInvalid",
        }
    }

    /// The type a validation rule's `reason` names; kube allows only these four there.
    pub fn from_rule_reason(reason: &str) -> Option<ErrorType> {
        match reason {
            "FieldValueDuplicate" => Some(ErrorType::Duplicate),
            "FieldValueForbidden" => Some(ErrorType::Forbidden),
            "FieldValueInvalid" => Some(ErrorType::Invalid),
            "FieldValueRequired" => Some(ErrorType::Required),
            _ => None,
        }
    }
}

/// One field problem inside a 422 Invalid answer (`details.causes[]`).
#[derive(Clone, Debug, PartialEq)]
pub struct FieldError {
    /// What is wrong; its [`ErrorType::reason`] is the cause's `reason`.
    pub reason: ErrorType,
    /// Path as kube prints it: `metadata.name`, `spec.replicas`.
    pub field: String,
    /// The full error text, e.g. `Invalid value: "X": a lowercase RFC 1123 subdomain ...`.
    pub detail: String,
}

impl FieldError {
    /// `field: Invalid value: <value>: <detail>` as apimachinery's field.Invalid, the value
    /// printed by [`field_value`].
    pub fn invalid(field: &str, value: &Value, detail: &str) -> Self {
        FieldError {
            reason: ErrorType::Invalid,
            field: field.to_string(),
            detail: format!("Invalid value: {}: {detail}", field_value(value)),
        }
    }

    /// `field: Required value` (optionally with a detail).
    pub fn required(field: &str, detail: &str) -> Self {
        let text = if detail.is_empty() {
            "Required value".to_string()
        } else {
            format!("Required value: {detail}")
        };
        FieldError {
            reason: ErrorType::Required,
            field: field.to_string(),
            detail: text,
        }
    }

    /// `field: Forbidden: <detail>`.
    pub fn forbidden(field: &str, detail: &str) -> Self {
        FieldError {
            reason: ErrorType::Forbidden,
            field: field.to_string(),
            detail: format!("Forbidden: {detail}"),
        }
    }

    /// The single-line form used in aggregated messages.
    pub fn message(&self) -> String {
        format!("{}: {}", self.field, self.detail)
    }
}

/// apimachinery's aggregate of field errors (`ErrorList.ToAggregate`): repeated texts
/// once, in first-seen order; one message alone, several as `[a, b]`.
pub(crate) fn aggregate(causes: &[FieldError]) -> String {
    aggregate_messages(causes.iter().map(FieldError::message))
}

/// apimachinery's `utilerrors.NewAggregate(errs).Error()` over error texts: repeated
/// texts once, in first-seen order; one message alone, several as `[a, b]`.
pub(crate) fn aggregate_messages(messages: impl IntoIterator<Item = String>) -> String {
    let mut seen = std::collections::HashSet::new();
    let messages: Vec<String> = messages
        .into_iter()
        .filter(|m| seen.insert(m.clone()))
        .collect();
    match messages.as_slice() {
        [one] => one.clone(),
        many => format!("[{}]", many.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aggregate_repeated_texts_once_in_first_seen_order() {
        let a = FieldError::required("spec.a", "");
        let b = FieldError::forbidden("spec.b", "no");
        assert_eq!(
            aggregate(std::slice::from_ref(&a)),
            "spec.a: Required value"
        );
        assert_eq!(aggregate(&[a.clone(), a.clone()]), "spec.a: Required value");
        assert_eq!(
            aggregate(&[b.clone(), a.clone(), b]),
            "[spec.b: Forbidden: no, spec.a: Required value]"
        );
    }
}
