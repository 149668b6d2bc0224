//! Object names (kube's generateName suffix) and the ObjectMeta types a body must have to
//! be decoded at all.

use rand::Rng;

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
    use serde_json::json;

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
}
