//! The scale subresource's checks on the custom object itself (kube's
//! `ValidateScaleSpec` / `ValidateScaleStatus`): replicas at the CRD's replicas paths must
//! be int32 integers ≥ 0, and the label selector path must hold a string.

use serde_json::{Value, json};

use crate::error::FieldError;
use crate::gofmt;

const MAX_INT32: i64 = i32::MAX as i64;

/// The scale subresource's paths into the custom object (`.spec.replicas`, ...).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScalePaths {
    pub spec_replicas: String,
    pub status_replicas: String,
    pub label_selector: Option<String>,
}

/// `ValidateScaleSpec`: the spec replicas.
pub fn spec_errors(paths: &ScalePaths, object: &Value) -> Vec<FieldError> {
    replicas_errors(&paths.spec_replicas, object)
}

/// `ValidateScaleStatus`: the status replicas, then the label selector.
pub fn status_errors(paths: &ScalePaths, object: &Value) -> Vec<FieldError> {
    let mut errors = replicas_errors(&paths.status_replicas, object);
    if let Some(selector) = &paths.label_selector {
        errors.extend(selector_errors(selector, object));
    }
    errors
}

/// A value at, or on the way to, a scale path has the wrong JSON type (unstructured's
/// accessor error; Go's `%v` of the value and its `%T`).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error(
    "{path} accessor error: {} is of the type {}, expected {want}",
    gofmt::value_v(.value),
    gofmt::type_name(.value)
)]
struct AccessorError {
    /// The path up to the offending value (`.spec` when `spec` is not a map).
    path: String,
    value: Value,
    /// The Go type the accessor wanted (`int64`, `string`, `map[string]interface{}`).
    want: &'static str,
}

impl AccessorError {
    fn new(path: &str, value: &Value, want: &'static str) -> Self {
        AccessorError {
            path: path.to_owned(),
            value: value.clone(),
            want,
        }
    }
}

/// Replicas at a scale path (e.g. `.spec.replicas`).
fn replicas_errors(path: &str, object: &Value) -> Vec<FieldError> {
    let (replicas, problem) = match nested(object, path) {
        Ok(None) => (0, None),
        Ok(Some(Value::Number(n))) if n.is_i64() => {
            let r = n.as_i64().unwrap_or_default();
            let problem = if r < 0 {
                Some("should be a non-negative integer".to_string())
            } else if r > MAX_INT32 {
                Some(format!("should be less than or equal to {MAX_INT32}"))
            } else {
                None
            };
            (r, problem)
        }
        Ok(Some(other)) => (
            0,
            Some(AccessorError::new(path, other, "int64").to_string()),
        ),
        Err(e) => (0, Some(e.to_string())),
    };
    problem
        .map(|p| vec![FieldError::invalid(path, &json!(replicas), &p)])
        .unwrap_or_default()
}

/// The label selector path: a string when present.
fn selector_errors(path: &str, object: &Value) -> Vec<FieldError> {
    let problem = match nested(object, path) {
        Ok(None | Some(Value::String(_))) => None,
        Ok(Some(other)) => Some(AccessorError::new(path, other, "string").to_string()),
        Err(e) => Some(e.to_string()),
    };
    problem
        .map(|p| vec![FieldError::invalid(path, &json!(""), &p)])
        .unwrap_or_default()
}

/// unstructured.NestedFieldNoCopy: `None` when a step is absent or null on the way.
fn nested<'a>(object: &'a Value, path: &str) -> Result<Option<&'a Value>, AccessorError> {
    let fields: Vec<&str> = path.trim_start_matches('.').split('.').collect();
    let mut value = object;
    for (i, field) in fields.iter().enumerate() {
        match value {
            Value::Null => return Ok(None),
            Value::Object(map) => match map.get(*field) {
                Some(v) => value = v,
                None => return Ok(None),
            },
            other => {
                let at = format!(".{}", fields[..=i].join("."));
                return Err(AccessorError::new(&at, other, "map[string]interface{}"));
            }
        }
    }
    Ok(Some(value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replicas_errors_match_kube_validator() {
        let cases = [
            ("absent is zero", json!({"spec": {}}), vec![]),
            ("valid", json!({"spec": {"replicas": 3}}), vec![]),
            (
                "negative",
                json!({"spec": {"replicas": -1}}),
                vec![".spec.replicas: Invalid value: -1: should be a non-negative integer"],
            ),
            (
                "above int32",
                json!({"spec": {"replicas": 2147483648_i64}}),
                vec![
                    ".spec.replicas: Invalid value: 2147483648: should be less than or equal to 2147483647",
                ],
            ),
            (
                "string",
                json!({"spec": {"replicas": "3"}}),
                vec![
                    ".spec.replicas: Invalid value: 0: .spec.replicas accessor error: 3 is of the type string, expected int64",
                ],
            ),
            (
                "parent not a map",
                json!({"spec": 5}),
                vec![
                    ".spec.replicas: Invalid value: 0: .spec.replicas accessor error: 5 is of the type int64, expected map[string]interface{}",
                ],
            ),
        ];
        for (name, object, want) in cases {
            let got: Vec<String> = replicas_errors(".spec.replicas", &object)
                .iter()
                .map(FieldError::message)
                .collect();
            assert_eq!(got, want, "case {name}");
        }
    }

    #[test]
    fn selector_errors_non_string_reported() {
        let ok = selector_errors(".status.selector", &json!({"status": {"selector": "a=b"}}));
        assert!(ok.is_empty());
        let bad = selector_errors(".status.selector", &json!({"status": {"selector": 1}}));
        assert_eq!(
            bad[0].message(),
            ".status.selector: Invalid value: \"\": .status.selector accessor error: 1 is of the type int64, expected string"
        );
    }
}
