//! kube's `validateValueValidation` and `validateNestedValueValidation`: what may appear under
//! `allOf`, `anyOf`, `oneOf` and `not` (value validations only, with the two int-or-string
//! exceptions) and that every `pattern` is a Go regular expression.

use serde_json::Value;

use super::access::{
    X_EMBEDDED, X_INT_OR_STRING, X_LIST_MAP_KEYS, X_LIST_TYPE, X_MAP_TYPE, X_PRESERVE,
    X_VALIDATIONS, flag, get, is_zero, item_schema, list, object, outside_structural, properties,
    strings, text, type_of,
};
use super::errors::{forbidden, invalid_str};
use crate::error::FieldError;
use crate::formats::goregex;

/// The value validations of a structural node, honouring the int-or-string patterns.
pub(super) fn value_validation(schema: &Value, path: &str) -> Vec<FieldError> {
    junctors(
        schema,
        is_int_or_string_any_of(schema),
        is_int_or_string_all_of(schema),
        path,
    )
}

fn junctors(
    schema: &Value,
    skip_any_of: bool,
    skip_first_all_of: bool,
    path: &str,
) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if !skip_any_of {
        for (i, clause) in list(schema, "anyOf").iter().enumerate() {
            errors.extend(nested(clause, false, &format!("{path}.anyOf[{i}]")));
        }
    }
    for (i, clause) in list(schema, "allOf").iter().enumerate() {
        let skip = skip_first_all_of && i == 0;
        errors.extend(nested(clause, skip, &format!("{path}.allOf[{i}]")));
    }
    for (i, clause) in list(schema, "oneOf").iter().enumerate() {
        errors.extend(nested(clause, false, &format!("{path}.oneOf[{i}]")));
    }
    if let Some(not) = get(schema, "not") {
        errors.extend(nested(not, false, &format!("{path}.not")));
    }
    let pattern = text(schema, "pattern");
    if !pattern.is_empty()
        && let Err(error) = goregex::check(pattern)
    {
        let detail = format!("must be a valid regular expression, but isn't: {error}");
        errors.push(invalid_str(&format!("{path}.pattern"), pattern, &detail));
    }
    errors
}

/// One clause under a logical junctor (or a node below one).
fn nested(schema: &Value, skip_any_of: bool, path: &str) -> Vec<FieldError> {
    let mut errors = junctors(schema, skip_any_of, false, path);
    if let Some(items) = item_schema(schema) {
        errors.extend(nested(items, false, &format!("{path}.items")));
    }
    for (key, child) in properties(schema) {
        errors.extend(nested(child, false, &format!("{path}.properties[{key}]")));
    }
    errors.extend(forbidden_generics(schema, path));
    errors.extend(forbidden_extensions(schema, path));
    if property_named(schema, "metadata") {
        errors.push(forbidden(
            &format!("{path}.properties[metadata]"),
            "must not be specified in a nested context",
        ));
    }
    errors
}

fn property_named(schema: &Value, key: &str) -> bool {
    properties(schema).iter().any(|(k, _)| k.as_str() == key)
}

fn forbidden_generics(schema: &Value, path: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let mut forbid = |key: &str, detail: &str| {
        errors.push(forbidden(&format!("{path}.{key}"), detail));
    };
    if !type_of(schema).is_empty() {
        forbid("type", "must be empty to be structural");
    }
    let additional = schema.get("additionalProperties");
    if additional.is_some_and(|a| !is_zero("additionalProperties", a, true)) {
        forbid("additionalProperties", "must be undefined to be structural");
    }
    if get(schema, "default").is_some() {
        forbid("default", "must be undefined to be structural");
    }
    if !text(schema, "title").is_empty() {
        forbid("title", "must be empty to be structural");
    }
    if !text(schema, "description").is_empty() {
        forbid("description", "must be empty to be structural");
    }
    if flag(schema, "nullable") {
        forbid("nullable", "must be false to be structural");
    }
    errors
}

fn forbidden_extensions(schema: &Value, path: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let mut forbid = |key: &str, detail: &str| {
        errors.push(forbidden(&format!("{path}.{key}"), detail));
    };
    for key in [X_PRESERVE, X_EMBEDDED, X_INT_OR_STRING] {
        if flag(schema, key) {
            forbid(key, "must be false to be structural");
        }
    }
    if !strings(schema, X_LIST_MAP_KEYS).is_empty() {
        forbid(X_LIST_MAP_KEYS, "must be empty to be structural");
    }
    for key in [X_LIST_TYPE, X_MAP_TYPE] {
        if get(schema, key).is_some() {
            forbid(key, "must be undefined to be structural");
        }
    }
    if !list(schema, X_VALIDATIONS).is_empty() {
        forbid(X_VALIDATIONS, "must be empty to be structural");
    }
    errors
}

/// `anyOf: [{type: integer}, {type: string}]` exactly.
fn is_int_or_string_any_of(schema: &Value) -> bool {
    let any_of = list(schema, "anyOf");
    any_of.len() == 2 && only_type(&any_of[0], "integer") && only_type(&any_of[1], "string")
}

/// `allOf: [{anyOf: [{type: integer}, {type: string}]}, ...]`.
fn is_int_or_string_all_of(schema: &Value) -> bool {
    list(schema, "allOf")
        .first()
        .is_some_and(is_int_or_string_any_of)
}

/// A clause that sets `type` to `kind` and nothing else.
fn only_type(clause: &Value, kind: &str) -> bool {
    let Some(map) = object(clause) else {
        return false;
    };
    type_of(clause) == kind
        && map
            .iter()
            .all(|(k, v)| k == "type" || outside_structural(k) || is_zero(k, v, true))
}
