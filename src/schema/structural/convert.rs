//! Whether a schema converts into kube's structural form at all (`NewStructural`): the
//! first unsupported keyword, list-form `items` or `x-kubernetes-preserve-unknown-fields:
//! false` found, in kube's walk order.

use serde_json::Value;

use super::access::{X_PRESERVE, additional_schema, get, list, object, properties};

/// The error text `NewStructural` fails with, if it fails.
pub(super) fn conversion_error(schema: &Value) -> Option<String> {
    unsupported_field(schema)
        .or_else(|| junctors(schema))
        .or_else(|| preserve_false(schema))
        .or_else(|| children(schema))
}

fn junctors(schema: &Value) -> Option<String> {
    let not = get(schema, "not").into_iter();
    let all = ["allOf", "anyOf", "oneOf"]
        .into_iter()
        .flat_map(|key| list(schema, key));
    not.chain(all).find_map(conversion_error)
}

fn children(schema: &Value) -> Option<String> {
    if let Some(items) = get(schema, "items") {
        if items.as_array().is_some_and(|a| !a.is_empty()) {
            return Some("OpenAPIV3Schema 'items' must be a schema, but is an array".into());
        }
        if items.is_object()
            && let Some(error) = conversion_error(items)
        {
            return Some(error);
        }
    }
    properties(schema)
        .into_iter()
        .find_map(|(_, p)| conversion_error(p))
        .or_else(|| additional_schema(schema).and_then(conversion_error))
}

fn preserve_false(schema: &Value) -> Option<String> {
    (schema.get(X_PRESERVE) == Some(&Value::Bool(false))).then(|| {
        "internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined".into()
    })
}

/// kube's `validateUnsupportedFields`, in its order.
fn unsupported_field(schema: &Value) -> Option<String> {
    let map = object(schema)?;
    let non_empty = |key: &str| match map.get(key) {
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Object(o)) => !o.is_empty(),
        Some(Value::Null) | None => false,
        Some(_) => true,
    };
    let name = if non_empty("id") {
        "id"
    } else if non_empty("$schema") {
        "schema"
    } else if non_empty("$ref") {
        "$ref"
    } else if non_empty("patternProperties") {
        "patternProperties"
    } else if non_empty("dependencies") {
        "dependencies"
    } else if get(schema, "additionalItems").is_some() {
        "additionalItems"
    } else if non_empty("definitions") {
        "definitions"
    } else {
        return None;
    };
    Some(format!("OpenAPIV3Schema '{name}' is not supported"))
}
