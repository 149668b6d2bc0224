//! Object names: kube's generateName suffix and the checks custom resource names get
//! (`NameIsDNSSubdomain` plus the path-segment rules).

use rand::Rng;
use serde_json::json;

use super::object as obj;
use crate::error::{ErrorType, FieldError};
use crate::selector::label::{label_key_errors, label_value_errors};
use crate::validation::is_dns1123_subdomain;

/// apiserver's SimpleNameGenerator alphabet: no vowels, no confusable characters.
const ALPHANUMS: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
const RANDOM_LENGTH: usize = 5;
/// 63 - 5: the base is cut so the generated name stays a valid label length.
const MAX_GENERATED_BASE: usize = 58;

/// `base` (cut to 58 characters) followed by 5 random characters.
pub fn generate_name(base: &str) -> String {
    let base: String = base.chars().take(MAX_GENERATED_BASE).collect();
    let mut rng = rand::rng();
    let suffix: String = (0..RANDOM_LENGTH)
        .map(|_| ALPHANUMS[rng.random_range(0..ALPHANUMS.len())] as char)
        .collect();
    format!("{base}{suffix}")
}

/// Path-segment rules every object name obeys (`IsValidPathSegmentName`).
fn path_segment_errors(name: &str) -> Vec<String> {
    if name == "." || name == ".." {
        return vec![format!("may not be '{name}'")];
    }
    let mut errors = Vec::new();
    for illegal in ["/", "%"] {
        if name.contains(illegal) {
            errors.push(format!("may not contain '{illegal}'"));
        }
    }
    errors
}

/// kube's limit on the total size of an object's annotations.
const TOTAL_ANNOTATION_SIZE_LIMIT: usize = 256 * 1024;

/// Checks `metadata` as kube checks custom resources' ObjectMeta: the name
/// (`NameIsDNSSubdomain` + path segment), label keys and values, annotation keys and size.
pub fn validate_object_meta(object: &serde_json::Value) -> Result<(), Vec<FieldError>> {
    let name = obj::name(object);
    let mut errors: Vec<FieldError> = Vec::new();
    for message in path_segment_errors(name)
        .into_iter()
        .chain(is_dns1123_subdomain(name))
    {
        errors.push(FieldError::invalid("metadata.name", &json!(name), &message));
    }
    for (key, value) in obj::labels(object) {
        for message in label_key_errors(&key) {
            errors.push(FieldError::invalid(
                "metadata.labels",
                &json!(key),
                &message,
            ));
        }
        let value = value.as_str().unwrap_or_default();
        for message in label_value_errors(value) {
            errors.push(FieldError::invalid(
                "metadata.labels",
                &json!(value),
                &message,
            ));
        }
    }
    let annotations = obj::metadata(object)
        .and_then(|m| m.get("annotations"))
        .and_then(serde_json::Value::as_object);
    let mut total = 0;
    for (key, value) in annotations.into_iter().flatten() {
        for message in label_key_errors(&key.to_lowercase()) {
            errors.push(FieldError::invalid(
                "metadata.annotations",
                &json!(key),
                &message,
            ));
        }
        total += key.len() + value.as_str().map_or(0, str::len);
    }
    if total > TOTAL_ANNOTATION_SIZE_LIMIT {
        errors.push(FieldError {
            reason: ErrorType::TooLong,
            field: "metadata.annotations".into(),
            detail: format!("Too long: may not be more than {TOTAL_ANNOTATION_SIZE_LIMIT} bytes"),
        });
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// A metadata field whose JSON type is not its ObjectMeta type; such a body cannot be decoded
/// (a 400). `field` is the JSON path (`metadata.labels.app`), `got` the JSON type found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MetadataTypeError {
    /// `metadata`, `metadata.labels` or `metadata.annotations` is not an object.
    #[error("{field}: expected an object, got {got}")]
    NotObject { field: String, got: &'static str },
    /// A string field, or a label or annotation value, is not a string.
    #[error("{field}: expected a string, got {got}")]
    NotString { field: String, got: &'static str },
    /// `metadata.finalizers` is not an array of strings.
    #[error("metadata.finalizers: expected a list of strings")]
    Finalizers,
}

/// Metadata fields must have their ObjectMeta types; anything else cannot be decoded.
pub fn check_metadata_types(object: &serde_json::Value) -> Result<(), MetadataTypeError> {
    use serde_json::Value;
    let Some(meta) = object.get("metadata") else {
        return Ok(());
    };
    let Some(meta) = meta.as_object() else {
        return Err(MetadataTypeError::NotObject {
            field: "metadata".into(),
            got: type_name(meta),
        });
    };
    let strings = [
        "name",
        "generateName",
        "namespace",
        "uid",
        "resourceVersion",
        "creationTimestamp",
        "deletionTimestamp",
    ];
    for field in strings {
        match meta.get(field) {
            None | Some(Value::Null) | Some(Value::String(_)) => {}
            Some(other) => {
                return Err(MetadataTypeError::NotString {
                    field: format!("metadata.{field}"),
                    got: type_name(other),
                });
            }
        }
    }
    for field in ["labels", "annotations"] {
        match meta.get(field) {
            None | Some(Value::Null) => {}
            Some(Value::Object(map)) => {
                if let Some((k, v)) = map.iter().find(|(_, v)| !v.is_string()) {
                    return Err(MetadataTypeError::NotString {
                        field: format!("metadata.{field}.{k}"),
                        got: type_name(v),
                    });
                }
            }
            Some(other) => {
                return Err(MetadataTypeError::NotObject {
                    field: format!("metadata.{field}"),
                    got: type_name(other),
                });
            }
        }
    }
    match meta.get("finalizers") {
        None | Some(Value::Null) => Ok(()),
        Some(Value::Array(items)) if items.iter().all(Value::is_string) => Ok(()),
        Some(_) => Err(MetadataTypeError::Finalizers),
    }
}

fn type_name(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "bool",
        serde_json::Value::Number(_) => "number",
        serde_json::Value::String(_) => "string",
        serde_json::Value::Array(_) => "array",
        serde_json::Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_metadata_types_wrong_type_names_field_and_type() {
        let cases = [
            ("no metadata", json!({}), None),
            (
                "typed",
                json!({"metadata": {"name": "a", "labels": {"k": "v"}}}),
                None,
            ),
            (
                "metadata array",
                json!({"metadata": []}),
                Some("metadata: expected an object, got array"),
            ),
            (
                "name bool",
                json!({"metadata": {"name": true}}),
                Some("metadata.name: expected a string, got bool"),
            ),
            (
                "label value number",
                json!({"metadata": {"labels": {"app": 1}}}),
                Some("metadata.labels.app: expected a string, got number"),
            ),
            (
                "annotations string",
                json!({"metadata": {"annotations": "x"}}),
                Some("metadata.annotations: expected an object, got string"),
            ),
            (
                "finalizers object",
                json!({"metadata": {"finalizers": {}}}),
                Some("metadata.finalizers: expected a list of strings"),
            ),
        ];
        for (name, object, want) in cases {
            let got = check_metadata_types(&object).err().map(|e| e.to_string());
            assert_eq!(got.as_deref(), want, "{name}");
        }
    }

    #[test]
    fn generate_name_suffix_uses_kube_alphabet_and_cuts_base() {
        let name = generate_name(&"a".repeat(70));
        assert_eq!(name.len(), 63);
        assert!(name[58..].bytes().all(|b| ALPHANUMS.contains(&b)));
    }

    #[test]
    fn validate_object_meta_names() {
        let cases = [
            ("ok", "my-new-cron-object", true),
            ("dots", "a.b.c", true),
            ("upper", "Foo", false),
            ("slash", "a/b", false),
            ("dotdot", "..", false),
            ("percent", "a%b", false),
        ];
        for (case, labels, ok) in [
            (
                "good labels",
                json!({"app": "web", "example.com/tier": ""}),
                true,
            ),
            ("bad key", json!({"bad key": "x"}), false),
            ("bad value", json!({"app": "not ok"}), false),
        ] {
            let o = json!({"metadata": {"name": "a", "labels": labels}});
            assert_eq!(validate_object_meta(&o).is_ok(), ok, "{case}");
        }
        for (case, name, ok) in cases {
            let o = json!({"metadata": {"name": name}});
            assert_eq!(validate_object_meta(&o).is_ok(), ok, "{case}");
        }
    }
}
