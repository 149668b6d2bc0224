//! Read-only accessors over a raw `JSONSchemaProps` node, with the zero-value semantics of
//! kube's Go types (an absent key, `false`, `""` and, for some lists, `[]` all read as unset).

use serde_json::{Map, Value};

/// A JSON object as serde_json stores it.
pub(super) type Object = Map<String, Value>;

/// The `items` keyword: absent, one schema, or the (unsupported) list form.
pub(super) enum Items<'a> {
    Absent,
    One(&'a Value),
    Many(&'a [Value]),
}

pub(super) fn object(schema: &Value) -> Option<&Object> {
    schema.as_object()
}

/// A present, non-null keyword.
pub(super) fn get<'a>(schema: &'a Value, key: &str) -> Option<&'a Value> {
    schema.get(key).filter(|v| !v.is_null())
}

/// A string keyword; `""` when absent.
pub(super) fn text<'a>(schema: &'a Value, key: &str) -> &'a str {
    schema.get(key).and_then(Value::as_str).unwrap_or("")
}

/// A boolean keyword; `false` when absent.
pub(super) fn flag(schema: &Value, key: &str) -> bool {
    schema.get(key).and_then(Value::as_bool).unwrap_or(false)
}

/// The schema's `type`; `""` when absent.
pub(super) fn type_of(schema: &Value) -> &str {
    text(schema, "type")
}

/// `properties` in key order (empty when absent).
pub(super) fn properties(schema: &Value) -> Vec<(&String, &Value)> {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.iter().collect())
        .unwrap_or_default()
}

/// One property's schema.
pub(super) fn property<'a>(schema: &'a Value, key: &str) -> Option<&'a Value> {
    schema.get("properties").and_then(|p| p.get(key))
}

/// A list keyword such as `allOf`; empty when absent.
pub(super) fn list<'a>(schema: &'a Value, key: &str) -> &'a [Value] {
    schema
        .get(key)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

/// A list of strings such as `required`; non-strings are skipped.
pub(super) fn strings<'a>(schema: &'a Value, key: &str) -> Vec<&'a str> {
    list(schema, key).iter().filter_map(Value::as_str).collect()
}

pub(super) fn items(schema: &Value) -> Items<'_> {
    match get(schema, "items") {
        Some(Value::Array(many)) => Items::Many(many),
        Some(one) => Items::One(one),
        None => Items::Absent,
    }
}

/// The single `items` schema, if there is one.
pub(super) fn item_schema(schema: &Value) -> Option<&Value> {
    match items(schema) {
        Items::One(one) => Some(one),
        _ => None,
    }
}

/// The `additionalProperties` schema when it is a schema (not a boolean).
pub(super) fn additional_schema(schema: &Value) -> Option<&Value> {
    get(schema, "additionalProperties").filter(|v| v.is_object())
}

/// How a Go structural schema sees a keyword's value: whether it is left at its zero value.
/// `nested` selects the rules of a value validation under a logical junctor, where
/// `properties: {}` counts as set and `additionalProperties: false` as unset.
pub(super) fn is_zero(key: &str, value: &Value, nested: bool) -> bool {
    match (key, value) {
        (_, Value::Null) => true,
        ("default" | "example", _) => false,
        (_, Value::Bool(b)) if key != "additionalProperties" => !b,
        (_, Value::String(s)) => s.is_empty() && !matches!(key, X_LIST_TYPE | X_MAP_TYPE),
        ("enum" | "allOf" | "anyOf" | "oneOf" | "items", Value::Array(a)) => a.is_empty(),
        ("properties", Value::Object(o)) => !nested && o.is_empty(),
        ("additionalProperties", Value::Bool(b)) => nested && !b,
        _ => false,
    }
}

/// Keywords that are not part of kube's structural schema (rejected elsewhere, or dropped).
pub(super) fn outside_structural(key: &str) -> bool {
    matches!(
        key,
        "id" | "$schema"
            | "$ref"
            | "patternProperties"
            | "dependencies"
            | "additionalItems"
            | "definitions"
    )
}

pub(super) const X_PRESERVE: &str = "x-kubernetes-preserve-unknown-fields";
pub(super) const X_EMBEDDED: &str = "x-kubernetes-embedded-resource";
pub(super) const X_INT_OR_STRING: &str = "x-kubernetes-int-or-string";
pub(super) const X_LIST_TYPE: &str = "x-kubernetes-list-type";
pub(super) const X_LIST_MAP_KEYS: &str = "x-kubernetes-list-map-keys";
pub(super) const X_MAP_TYPE: &str = "x-kubernetes-map-type";
pub(super) const X_VALIDATIONS: &str = "x-kubernetes-validations";
