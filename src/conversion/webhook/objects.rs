//! Each converted object checked and mended as kube's `webhookConverter.Convert` does:
//! decoded as unstructured (`getRawExtensionObject`), the desired group/version and the
//! original's kind, `validateConvertedObject` (kind, name, namespace, uid unchanged), and
//! `restoreObjectMeta` (the original's metadata back, only labels and annotations taken
//! from the answer, validated when changed). Texts verbatim, Go's `%T` and `%v`.

use serde_json::{Map, Value};

use crate::error::aggregate;
use crate::gofmt::type_name;
use crate::meta::validation::{validate_annotations, validate_labels};
use crate::request::gojson::parse_group_version;

/// How kube's texts name the object at fault: one object converted alone, or an item of
/// a batch (kube's list branch, `index` counting the items sent).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    Object,
    Item(usize),
}

/// `%v` of an unstructured object's GroupVersionKind: `group/version, Kind=Kind` (an
/// unparsable apiVersion gives an empty group/version, as `FromAPIVersionAndKind`).
pub fn gvk(object: &Value) -> String {
    let (group, version) = parse_group_version(string(object, "apiVersion")).unwrap_or_default();
    format!("{group}/{version}, Kind={}", string(object, "kind"))
}

/// `%v` of a GroupVersion: `group/version`, or `version` alone in the core group.
fn group_version(api_version: &str) -> String {
    match parse_group_version(api_version) {
        Ok(("", version)) => version.to_string(),
        Ok((group, version)) => format!("{group}/{version}"),
        Err(_) => String::new(),
    }
}

/// A string field of an unstructured object as its getters read it (else empty).
fn string<'a>(object: &'a Value, name: &str) -> &'a str {
    object.get(name).and_then(Value::as_str).unwrap_or_default()
}

fn meta_string<'a>(object: &'a Value, name: &str) -> &'a str {
    object
        .get("metadata")
        .and_then(|m| m.get(name))
        .and_then(Value::as_str)
        .unwrap_or_default()
}

/// The converted object that stands for `original` (input `gvk` printed as kube prints
/// it), or kube's whole message.
pub fn converted(
    original: &Value,
    item: Value,
    desired: &str,
    shape: Shape,
    gvk: &str,
) -> Result<Value, String> {
    let at = match shape {
        Shape::Object => format!("conversion webhook for {gvk} returned invalid object"),
        Shape::Item(i) => {
            format!("conversion webhook for {gvk} returned invalid converted object at index {i}")
        }
    };
    let mut item = match decode_raw(item) {
        Ok(item) => item,
        // kube returns a single object's decode error bare.
        Err(e) if shape == Shape::Object => return Err(e),
        Err(e) => return Err(format!("{at}: {e}")),
    };
    let indexed = match shape {
        Shape::Object => format!("{at} at index 0"),
        Shape::Item(_) => at.clone(),
    };
    let received = group_version(string(&item, "apiVersion"));
    if received != desired {
        return Err(format!(
            "{indexed}: invalid groupVersion (expected {desired}, received {received})"
        ));
    }
    let (expected, got) = (string(original, "kind"), string(&item, "kind"));
    if expected != got {
        return Err(format!(
            "{indexed}: invalid kind (expected {expected}, received {got})"
        ));
    }
    validate_converted(original, &item).map_err(|e| format!("{at}: {e}"))?;
    restore_object_meta(original, &mut item).map_err(|e| match shape {
        Shape::Object => format!("conversion webhook for {gvk} returned invalid metadata: {e}"),
        Shape::Item(i) => format!(
            "conversion webhook for {gvk} returned invalid metadata in object at index {i}: {e}"
        ),
    })?;
    Ok(item)
}

/// `Unstructured.UnmarshalJSON` of one `convertedObjects` item: a JSON object with a kind.
fn decode_raw(item: Value) -> Result<Value, String> {
    match &item {
        // RawExtension keeps no bytes for `null`: Go's decoder then reads nothing.
        Value::Null => Err("unexpected end of JSON input".into()),
        Value::Object(_) if !string(&item, "kind").is_empty() => Ok(item),
        Value::Object(_) => Err(format!(
            "Object 'Kind' is missing in '{}'",
            crate::gofmt::marshal(&item)
        )),
        other => Err(format!(
            "json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
            json_type(other)
        )),
    }
}

/// Go's name of a JSON value's type in `cannot unmarshal` errors.
fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// kube's `validateConvertedObject`.
fn validate_converted(original: &Value, converted: &Value) -> Result<(), String> {
    let pairs = [
        ("kind", string(original, "kind"), string(converted, "kind")),
        (
            "name",
            meta_string(original, "name"),
            meta_string(converted, "name"),
        ),
        (
            "namespace",
            meta_string(original, "namespace"),
            meta_string(converted, "namespace"),
        ),
        (
            "UID",
            meta_string(original, "uid"),
            meta_string(converted, "uid"),
        ),
    ];
    for (what, expected, got) in pairs {
        if expected != got {
            return Err(format!("must have the same {what}: {expected} != {got}"));
        }
    }
    Ok(())
}

/// kube's `restoreObjectMeta`: `converted`'s metadata becomes a copy of `original`'s with
/// the answer's labels and annotations (absent or null: removed), checked when changed.
pub fn restore_object_meta(original: &Value, converted: &mut Value) -> Result<(), String> {
    let answered = match converted.get("metadata") {
        None => return Err("missing metadata in converted object".into()),
        Some(Value::Object(map)) => map.clone(),
        Some(other) => {
            return Err(format!(
                "invalid metadata of type {} in converted object",
                type_name(other)
            ));
        }
    };
    let mut restored = match original.get("metadata") {
        None => Map::new(),
        Some(Value::Object(map)) => map.clone(),
        Some(other) => {
            return Err(format!(
                "invalid metadata of type {} in input object",
                type_name(other)
            ));
        }
    };
    for field in ["labels", "annotations"] {
        restore_field(field, &answered, &mut restored)?;
    }
    if let Some(object) = converted.as_object_mut() {
        object.insert("metadata".into(), Value::Object(restored));
    }
    Ok(())
}

fn restore_field(
    field: &str,
    answered: &Map<String, Value>,
    restored: &mut Map<String, Value>,
) -> Result<(), String> {
    let response = match answered.get(field) {
        None | Some(Value::Null) => {
            restored.remove(field);
            return Ok(());
        }
        Some(Value::Object(map)) => map,
        Some(other) => {
            return Err(format!(
                "invalid metadata.{field} of type {} in converted object",
                type_name(other)
            ));
        }
    };
    let empty = Map::new();
    let before = match restored.get(field) {
        None | Some(Value::Null) => &empty,
        Some(Value::Object(map)) => map,
        Some(other) => {
            return Err(format!(
                "invalid metadata.{field} of type {} in original object",
                type_name(other)
            ));
        }
    };
    let mut changed = before.len() != response.len();
    for (key, value) in response {
        if !value.is_string() {
            return Err(format!(
                "metadata.{field}[{key}] must be a string, but is {} in converted object",
                type_name(value)
            ));
        }
        changed |= before.get(key) != Some(value);
    }
    if changed {
        let errors = match field {
            "labels" => validate_labels(response, "metadata.labels"),
            // kube's path, singular.
            _ => validate_annotations(response, "metadata.annotation"),
        };
        if !errors.is_empty() {
            return Err(aggregate(&errors));
        }
    }
    restored.insert(field.into(), Value::Object(response.clone()));
    Ok(())
}
