//! kube's `validateStructuralInvariants`: types present where kube needs them, no
//! `additionalProperties` at the root, embedded resources shaped as objects, type and
//! object meta restricted at resource roots, and the value validations under each node.

use serde_json::Value;

use super::access::{
    X_EMBEDDED, X_INT_OR_STRING, X_PRESERVE, additional_schema, flag, get, is_zero, item_schema,
    object, outside_structural, properties, property, type_of,
};
use super::errors::{forbidden, invalid, invalid_str, required};
use super::nested::value_validation;
use crate::error::FieldError;

/// Where a node sits, which decides the wording of a missing type.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Level {
    Root,
    Item,
    Field,
}

/// Every invariant violation under `schema` (unsorted).
pub(super) fn invariants(schema: &Value, level: Level, path: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if type_of(schema) == "array" && item_schema(schema).is_none() {
        errors.push(required(&format!("{path}.items"), "must be specified"));
    }
    if let Some(items) = item_schema(schema) {
        errors.extend(invariants(items, Level::Item, &format!("{path}.items")));
    }
    for (key, child) in properties(schema) {
        let child_path = format!("{path}.properties[{key}]");
        errors.extend(invariants(child, Level::Field, &child_path));
    }
    if get(schema, "additionalProperties").is_some() {
        let additional_path = format!("{path}.additionalProperties");
        if level == Level::Root {
            errors.push(forbidden(&additional_path, "must not be used at the root"));
        }
        if let Some(additional) = additional_schema(schema) {
            errors.extend(invariants(additional, Level::Field, &additional_path));
        }
    }
    errors.extend(extensions(schema, path));
    errors.extend(value_validation(schema, path));
    errors.extend(types(schema, level, path));
    errors.extend(resource_meta(schema, level, path));
    errors
}

/// `x-kubernetes-int-or-string` excludes the other two extensions.
fn extensions(schema: &Value, path: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if !flag(schema, X_INT_OR_STRING) {
        return errors;
    }
    let detail = "must be false if x-kubernetes-int-or-string is true";
    for key in [X_PRESERVE, X_EMBEDDED] {
        if flag(schema, key) {
            errors.push(invalid(
                &format!("{path}.{key}"),
                &Value::Bool(true),
                detail,
            ));
        }
    }
    errors
}

fn types(schema: &Value, level: Level, path: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let type_path = format!("{path}.type");
    let kind = type_of(schema);
    let embedded = flag(schema, X_EMBEDDED);
    if embedded && kind != "object" {
        let detail = "must be object if x-kubernetes-embedded-resource is true";
        errors.push(if kind.is_empty() {
            required(&type_path, detail)
        } else {
            invalid_str(&type_path, kind, detail)
        });
    } else if kind.is_empty() && !flag(schema, X_INT_OR_STRING) && !flag(schema, X_PRESERVE) {
        let detail = match level {
            Level::Root => "must not be empty at the root",
            Level::Item => "must not be empty for specified array items",
            Level::Field => "must not be empty for specified object fields",
        };
        errors.push(required(&type_path, detail));
    }
    if embedded && get(schema, "additionalProperties").is_some() {
        errors.push(forbidden(
            &format!("{path}.additionalProperties"),
            "must not be used if x-kubernetes-embedded-resource is set",
        ));
    }
    if level == Level::Root && !kind.is_empty() && kind != "object" {
        errors.push(invalid_str(&type_path, kind, "must be object at the root"));
    }
    errors
}

/// `kind`, `apiVersion` and `metadata` at a resource root (the schema root or an embedded
/// resource), and the properties an embedded resource needs.
fn resource_meta(schema: &Value, level: Level, path: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let check_meta = level == Level::Root || flag(schema, X_EMBEDDED);
    for key in ["kind", "apiVersion"] {
        if let Some(field) = property(schema, key)
            && check_meta
            && type_of(field) != "string"
        {
            let type_path = format!("{path}.properties[{key}].type");
            errors.push(invalid_str(&type_path, type_of(field), "must be string"));
        }
    }
    if let Some(metadata) = property(schema, "metadata") {
        let metadata_path = format!("{path}.properties[metadata]");
        if check_meta && type_of(metadata) != "object" {
            let type_path = format!("{metadata_path}.type");
            errors.push(invalid_str(&type_path, type_of(metadata), "must be object"));
        }
        if level == Level::Root && !only_name_restrictions(metadata) {
            errors.push(forbidden(
                &metadata_path,
                "must not specify anything other than name and generateName, but metadata is implicitly specified",
            ));
        }
    }
    if flag(schema, X_EMBEDDED) && !flag(schema, X_PRESERVE) && properties(schema).is_empty() {
        errors.push(required(
            &format!("{path}.properties"),
            "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields",
        ));
    }
    errors
}

/// The root `metadata` schema may only carry a type, a default and the `name` and
/// `generateName` properties.
fn only_name_restrictions(metadata: &Value) -> bool {
    let Some(map) = object(metadata) else {
        return true;
    };
    map.iter().all(|(key, value)| match key.as_str() {
        "type" | "default" => true,
        "properties" => value
            .as_object()
            .is_none_or(|p| p.keys().all(|k| k == "name" || k == "generateName")),
        _ => outside_structural(key) || is_zero(key, value, false),
    })
}
