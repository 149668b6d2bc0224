//! `PartialObjectMetadata` of an object, as `meta.AsPartialObjectMetadata` builds it from the
//! unstructured getters: known ObjectMeta fields only, ill-typed fields dropped.

use serde_json::{Map, Value, json};

use super::timestamp::GoTime;

/// The annotation a watch's initial-events-end bookmark carries (`k8s.io/initial-events-end`).
const INITIAL_EVENTS_END_ANNOTATION: &str = "k8s.io/initial-events-end";

/// `{"kind":"PartialObjectMetadata","apiVersion":<meta version>,"metadata":{...}}`.
pub fn partial_object_metadata(object: &Value, api_version: &str) -> Value {
    json!({
        "kind": "PartialObjectMetadata",
        "apiVersion": api_version,
        "metadata": object_meta(object),
    })
}

/// Whether the object is the bookmark ending a watch's initial events; upstream always
/// renders such a row's object as metadata.
pub fn has_initial_events_end_annotation(object: &Value) -> bool {
    metadata(object)
        .get("annotations")
        .and_then(string_map)
        .is_some_and(|m| m.get(INITIAL_EVENTS_END_ANNOTATION) == Some(&Value::from("true")))
}

fn metadata(object: &Value) -> &Map<String, Value> {
    static EMPTY: std::sync::LazyLock<Map<String, Value>> = std::sync::LazyLock::new(Map::new);
    object
        .get("metadata")
        .and_then(Value::as_object)
        .unwrap_or(&EMPTY)
}

/// ObjectMeta re-serialized from its getters (`omitempty` fields dropped when empty, and a
/// missing or unparsable `creationTimestamp`).
fn object_meta(object: &Value) -> Map<String, Value> {
    let meta = metadata(object);
    let mut out = Map::new();
    let strings = [
        "name",
        "generateName",
        "namespace",
        "selfLink",
        "uid",
        "resourceVersion",
    ];
    for key in strings {
        if let Some(text) = meta
            .get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
        {
            out.insert(key.to_owned(), Value::from(text));
        }
    }
    if let Some(generation) = meta
        .get("generation")
        .and_then(Value::as_i64)
        .filter(|g| *g != 0)
    {
        out.insert("generation".to_owned(), Value::from(generation));
    }
    // `omitzero` since 1.35: a missing or zero creationTimestamp is left out.
    if let Some(created) = time_field(meta, "creationTimestamp") {
        out.insert("creationTimestamp".to_owned(), Value::String(created));
    }
    for (key, value) in optional_fields(meta) {
        if let Some(value) = value {
            out.insert(key.to_owned(), value);
        }
    }
    out
}

/// The `omitempty` ObjectMeta fields after `creationTimestamp`, in Go's field order.
fn optional_fields(meta: &Map<String, Value>) -> [(&'static str, Option<Value>); 7] {
    [
        (
            "deletionTimestamp",
            time_field(meta, "deletionTimestamp").map(Value::String),
        ),
        (
            "deletionGracePeriodSeconds",
            meta.get("deletionGracePeriodSeconds")
                .and_then(Value::as_i64)
                .map(Value::from),
        ),
        ("labels", non_empty(meta.get("labels").and_then(string_map))),
        (
            "annotations",
            non_empty(meta.get("annotations").and_then(string_map)),
        ),
        (
            "ownerReferences",
            meta.get("ownerReferences").and_then(owner_references),
        ),
        ("finalizers", meta.get("finalizers").and_then(string_list)),
        (
            "managedFields",
            meta.get("managedFields").and_then(managed_fields),
        ),
    ]
}

fn non_empty(map: Option<Map<String, Value>>) -> Option<Value> {
    map.filter(|m| !m.is_empty()).map(Value::Object)
}

/// A non-zero timestamp string, re-formatted as `metav1.Time` marshals it.
fn time_field(meta: &Map<String, Value>, key: &str) -> Option<String> {
    let text = meta.get(key).and_then(Value::as_str).unwrap_or_default();
    GoTime::from_query_parameter(text)
        .filter(|t| !t.is_zero())
        .map(GoTime::format_rfc3339)
}

/// `NestedNullCoercingStringMap`: string values kept, nulls become `""`, anything else voids
/// the whole map.
fn string_map(value: &Value) -> Option<Map<String, Value>> {
    let map = value.as_object()?;
    map.iter()
        .map(|(k, v)| match v {
            Value::String(_) => Some((k.clone(), v.clone())),
            Value::Null => Some((k.clone(), Value::from(""))),
            _ => None,
        })
        .collect()
}

/// `NestedStringSlice`, omitted when empty.
fn string_list(value: &Value) -> Option<Value> {
    let items = value.as_array()?;
    if items.is_empty() || !items.iter().all(Value::is_string) {
        return None;
    }
    Some(Value::Array(items.clone()))
}

/// `GetOwnerReferences`: every entry must be a map; the four strings always, the two flags
/// when they are booleans.
fn owner_references(value: &Value) -> Option<Value> {
    let items = value.as_array()?;
    let mut refs = Vec::with_capacity(items.len());
    for item in items {
        let entry = item.as_object()?;
        let text = |key: &str| entry.get(key).and_then(Value::as_str).unwrap_or_default();
        let mut out = Map::new();
        for key in ["apiVersion", "kind", "name", "uid"] {
            out.insert(key.to_owned(), Value::from(text(key)));
        }
        for key in ["controller", "blockOwnerDeletion"] {
            if let Some(flag) = entry.get(key).and_then(Value::as_bool) {
                out.insert(key.to_owned(), Value::Bool(flag));
            }
        }
        refs.push(Value::Object(out));
    }
    (!refs.is_empty()).then_some(Value::Array(refs))
}

/// `GetManagedFields`: known entry fields; an ill-typed entry voids the whole list.
fn managed_fields(value: &Value) -> Option<Value> {
    let items = value.as_array()?;
    let mut entries = Vec::with_capacity(items.len());
    for item in items {
        let entry = item.as_object()?;
        let mut out = Map::new();
        for key in [
            "manager",
            "operation",
            "apiVersion",
            "fieldsType",
            "subresource",
        ] {
            match entry.get(key) {
                None | Some(Value::Null) => {}
                Some(Value::String(s)) if s.is_empty() => {}
                Some(v @ Value::String(_)) => {
                    out.insert(key.to_owned(), v.clone());
                }
                Some(_) => return None,
            }
        }
        match entry.get("time") {
            None | Some(Value::Null) => {}
            Some(Value::String(s)) => {
                // JSON decoding has no "" / "null" shortcut: those fail like any bad text.
                let time =
                    GoTime::from_query_parameter(s).filter(|_| !s.is_empty() && s != "null")?;
                let text = (!time.is_zero()).then(|| Value::from(time.format_rfc3339()));
                out.insert("time".to_owned(), text.unwrap_or(Value::Null));
            }
            Some(_) => return None,
        }
        if let Some(fields) = entry.get("fieldsV1").filter(|v| !v.is_null()) {
            out.insert("fieldsV1".to_owned(), fields.clone());
        }
        entries.push(Value::Object(out));
    }
    (!entries.is_empty()).then_some(Value::Array(entries))
}
