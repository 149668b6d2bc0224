//! The `x-kubernetes-map-type`, `x-kubernetes-list-type` and `x-kubernetes-list-map-keys`
//! rules of kube's CRD schema validation, including the create-time rules that set items
//! are atomic and map keys are required or defaulted and never nullable.

use serde_json::Value;

use super::access::{
    Items, X_LIST_MAP_KEYS, X_LIST_TYPE, X_MAP_TYPE, flag, get, item_schema, items, property,
    strings, text, type_of,
};
use super::errors::{forbidden, invalid, invalid_rendered, invalid_str, not_supported, required};
use super::gojson;
use crate::error::FieldError;

/// All list and map extension problems of one node.
pub(super) fn validate(schema: &Value, path: &str) -> Vec<FieldError> {
    let mut errors = map_type(schema, path);
    errors.extend(list_type(schema, path));
    errors.extend(map_keys(schema, path));
    errors.extend(keys_required_or_defaulted(schema, path));
    errors
}

fn map_type(schema: &Value, path: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let Some(map_type) = get(schema, X_MAP_TYPE) else {
        return errors;
    };
    let kind = type_of(schema);
    if kind != "object" {
        let field = format!("{path}.type");
        let detail = "must be object if x-kubernetes-map-type is specified";
        errors.push(if kind.is_empty() {
            required(&field, detail)
        } else {
            invalid_str(&field, kind, detail)
        });
    }
    let value = map_type.as_str().unwrap_or("");
    if value != "atomic" && value != "granular" {
        let field = format!("{path}.{X_MAP_TYPE}");
        errors.push(not_supported(&field, value, &["atomic", "granular"]));
    }
    errors
}

fn list_type(schema: &Value, path: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let Some(list_type) = get(schema, X_LIST_TYPE) else {
        return errors;
    };
    let value = list_type.as_str().unwrap_or("");
    let kind = type_of(schema);
    if kind != "array" {
        let field = format!("{path}.type");
        let detail = "must be array if x-kubernetes-list-type is specified";
        errors.push(if kind.is_empty() {
            required(&field, detail)
        } else {
            invalid_str(&field, kind, detail)
        });
    } else if value == "set"
        && let Some(item) = item_schema(schema)
    {
        errors.extend(set_items_atomic(item, path));
    }
    if !matches!(value, "atomic" | "set" | "map") {
        let field = format!("{path}.{X_LIST_TYPE}");
        errors.push(not_supported(&field, value, &["atomic", "set", "map"]));
    }
    errors
}

/// Items of a set must be atomic lists or atomic maps (or scalars).
fn set_items_atomic(item: &Value, path: &str) -> Option<FieldError> {
    let detail = "must be atomic as item of a list with x-kubernetes-list-type=set";
    // kube reports the item's list type as the value in both cases.
    let item_list_type = get(item, X_LIST_TYPE).cloned().unwrap_or(Value::Null);
    match type_of(item) {
        "array" if get(item, X_LIST_TYPE).is_some() && text(item, X_LIST_TYPE) != "atomic" => {
            let field = format!("{path}.items.{X_LIST_TYPE}");
            Some(invalid(&field, &item_list_type, detail))
        }
        "object" if text(item, X_MAP_TYPE) != "atomic" || get(item, X_MAP_TYPE).is_none() => {
            let field = format!("{path}.items.{X_MAP_TYPE}");
            Some(invalid(&field, &item_list_type, detail))
        }
        _ => None,
    }
}

fn map_keys(schema: &Value, path: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let keys = strings(schema, X_LIST_MAP_KEYS);
    let list_type = get(schema, X_LIST_TYPE).map(|v| v.as_str().unwrap_or(""));
    let list_type_field = format!("{path}.{X_LIST_TYPE}");
    if !keys.is_empty() {
        let detail = "must be map if x-kubernetes-list-map-keys is non-empty";
        match list_type {
            None => errors.push(required(&list_type_field, detail)),
            Some(value) if value != "map" => {
                errors.push(invalid_str(&list_type_field, value, detail));
            }
            Some(_) => {}
        }
    }
    if list_type != Some("map") {
        return errors;
    }
    if keys.is_empty() {
        errors.push(required(
            &format!("{path}.{X_LIST_MAP_KEYS}"),
            "must not be empty if x-kubernetes-list-type is map",
        ));
    }
    let items_field = format!("{path}.items");
    match items(schema) {
        Items::Absent => errors.push(required(
            &items_field,
            "must have a schema if x-kubernetes-list-type is map",
        )),
        Items::Many(many) => errors.push(invalid_rendered(
            &items_field,
            &gojson::items_array(many),
            "must only have a single schema if x-kubernetes-list-type is map",
        )),
        Items::One(item) if type_of(item) != "object" => errors.push(invalid_str(
            &format!("{items_field}.type"),
            type_of(item),
            "must be object if parent array's x-kubernetes-list-type is map",
        )),
        Items::One(item) => errors.extend(key_properties(schema, item, &keys, path)),
    }
    errors
}

fn key_properties(schema: &Value, item: &Value, keys: &[&str], path: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let keys_field = format!("{path}.{X_LIST_MAP_KEYS}");
    let keys_value = schema.get(X_LIST_MAP_KEYS).cloned().unwrap_or(Value::Null);
    let mut seen: Vec<&str> = Vec::new();
    for key in keys {
        match property(item, key) {
            Some(field) if matches!(type_of(field), "array" | "object") => {
                // kube reports the item's type ("object") as the value.
                errors.push(invalid_str(
                    &format!("{path}.items.properties[{key}].type"),
                    type_of(item),
                    "must be a scalar type if parent array's x-kubernetes-list-type is map",
                ));
            }
            Some(_) => {}
            None => errors.push(invalid(
                &keys_field,
                &keys_value,
                "entries must all be names of item properties",
            )),
        }
        if seen.contains(key) {
            errors.push(invalid(
                &keys_field,
                &keys_value,
                "must not contain duplicate entries",
            ));
        }
        seen.push(key);
    }
    errors
}

/// kube's `validateMapListKeysMapSet`: set and map items are not nullable; map keys are
/// required or defaulted, and not nullable.
fn keys_required_or_defaulted(schema: &Value, path: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let Some(item) = item_schema(schema) else {
        return errors;
    };
    let list_type = text(schema, X_LIST_TYPE);
    if get(schema, X_LIST_TYPE).is_none() || !matches!(list_type, "set" | "map") {
        return errors;
    }
    if flag(item, "nullable") {
        let detail = format!("cannot be nullable when x-kubernetes-list-type is {list_type}");
        errors.push(forbidden(&format!("{path}.items.nullable"), &detail));
    }
    if list_type != "map" {
        return errors;
    }
    let required_keys = strings(item, "required");
    for key in strings(schema, X_LIST_MAP_KEYS) {
        let Some(field) = property(item, key) else {
            continue;
        };
        let field_path = format!("{path}.items.properties[{key}]");
        if !required_keys.contains(&key) && get(field, "default").is_none() {
            errors.push(required(
                &format!("{field_path}.default"),
                "this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property",
            ));
        }
        if flag(field, "nullable") {
            errors.push(forbidden(
                &format!("{field_path}.nullable"),
                "this property is in x-kubernetes-list-map-keys, so it cannot be nullable",
            ));
        }
    }
    errors
}
