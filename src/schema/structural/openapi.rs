//! kube's `ValidateCustomResourceDefinitionOpenAPISchema` without its CEL part: unsupported
//! keywords, forbidden defaults around object meta, `uniqueItems`, properties versus
//! `additionalProperties`, and the `x-kubernetes-*` extension rules, node by node.

use serde_json::Value;

use super::access::{
    Items, X_EMBEDDED, X_PRESERVE, additional_schema, flag, get, items, list, object, properties,
    text, type_of,
};
use super::errors::{forbidden, invalid, not_supported};
use super::{listmap, rules};
use crate::error::FieldError;

const OPENAPI_TYPES: [&str; 6] = ["array", "boolean", "integer", "number", "object", "string"];
const META_FIELDS: [&str; 3] = ["metadata", "kind", "apiVersion"];

/// What the walk knows about the position of a node (kube's `specStandardValidatorV3`).
#[derive(Clone, Default)]
pub(super) struct Context {
    /// `None` when defaults are allowed, else the reason appended to "must not be set".
    forbidden_defaults: Option<String>,
    inside_resource_meta: bool,
}

/// Every problem of `schema` and the nodes below it; `root` is true for the schema root.
pub(super) fn validate(schema: &Value, path: &str, ctx: &Context, root: bool) -> Vec<FieldError> {
    let mut errors = node(schema, path, ctx);
    if flag(schema, "uniqueItems") {
        errors.push(forbidden(
            &format!("{path}.uniqueItems"),
            "uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
        ));
    }
    errors.extend(additional_properties(schema, path, ctx));
    for (key, child) in properties(schema) {
        let mut child_ctx = ctx.clone();
        if (root || flag(schema, X_EMBEDDED)) && META_FIELDS.contains(&key.as_str()) {
            child_ctx.inside_resource_meta = true;
            if root {
                child_ctx.forbidden_defaults = Some(format!("in top-level {key}"));
            }
        }
        let child_path = format!("{path}.properties[{key}]");
        errors.extend(validate(child, &child_path, &child_ctx, false));
    }
    errors.extend(subschemas(schema, path, ctx));
    if schema.get(X_PRESERVE) == Some(&Value::Bool(false)) {
        let field = format!("{path}.{X_PRESERVE}");
        errors.push(invalid(
            &field,
            &Value::Bool(false),
            "must be true or undefined",
        ));
    }
    errors.extend(listmap::validate(schema, path));
    errors.extend(rules::validate(schema, path));
    errors
}

fn additional_properties(schema: &Value, path: &str, ctx: &Context) -> Vec<FieldError> {
    let Some(additional) = get(schema, "additionalProperties") else {
        return Vec::new();
    };
    let mut errors = Vec::new();
    let field = format!("{path}.additionalProperties");
    if !properties(schema).is_empty() && additional != &Value::Bool(true) {
        errors.push(forbidden(
            &field,
            "additionalProperties and properties are mutual exclusive",
        ));
    }
    if let Some(additional) = additional_schema(schema) {
        let mut child_ctx = ctx.clone();
        if ctx.inside_resource_meta {
            child_ctx.forbidden_defaults =
                Some("inside additionalProperties applying to object metadata".into());
        }
        errors.extend(validate(additional, &field, &child_ctx, false));
    }
    errors
}

/// `not`, `allOf`, `oneOf`, `anyOf`, `definitions`, `items` and `dependencies`, in kube's order.
fn subschemas(schema: &Value, path: &str, ctx: &Context) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if let Some(not) = get(schema, "not") {
        errors.extend(validate(not, &format!("{path}.not"), ctx, false));
    }
    for key in ["allOf", "oneOf", "anyOf"] {
        for (i, clause) in list(schema, key).iter().enumerate() {
            errors.extend(validate(clause, &format!("{path}.{key}[{i}]"), ctx, false));
        }
    }
    for (key, definition) in entries(schema, "definitions") {
        let field = format!("{path}.definitions[{key}]");
        errors.extend(validate(definition, &field, ctx, false));
    }
    match items(schema) {
        Items::One(one) => errors.extend(validate(one, &format!("{path}.items"), ctx, false)),
        Items::Many(many) => {
            for (i, item) in many.iter().enumerate() {
                errors.extend(validate(item, &format!("{path}.items[{i}]"), ctx, false));
            }
        }
        Items::Absent => {}
    }
    for (key, dependency) in entries(schema, "dependencies") {
        if dependency.is_object() {
            let field = format!("{path}.dependencies[{key}]");
            errors.extend(validate(dependency, &field, ctx, false));
        }
    }
    errors
}

fn entries<'a>(schema: &'a Value, key: &str) -> Vec<(&'a String, &'a Value)> {
    get(schema, key)
        .and_then(object)
        .map(|m| m.iter().collect())
        .unwrap_or_default()
}

/// kube's `specStandardValidatorV3.validate`: keywords CRDs do not support.
fn node(schema: &Value, path: &str, ctx: &Context) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let kind = type_of(schema);
    if !kind.is_empty() && !OPENAPI_TYPES.contains(&kind) {
        errors.push(not_supported(&format!("{path}.type"), kind, &OPENAPI_TYPES));
    }
    if get(schema, "default").is_some()
        && let Some(reason) = &ctx.forbidden_defaults
    {
        let detail = format!("must not be set {reason}");
        errors.push(forbidden(&format!("{path}.default"), &detail));
    }
    let map = object(schema);
    let present = |key: &str| map.is_some_and(|m| m.get(key).is_some_and(|v| !v.is_null()));
    let non_empty = |key: &str| {
        get(schema, key)
            .and_then(Value::as_object)
            .is_some_and(|o| !o.is_empty())
    };
    if !text(schema, "id").is_empty() {
        errors.push(forbidden(&format!("{path}.id"), "id is not supported"));
    }
    let unsupported = [
        ("additionalItems", present("additionalItems")),
        ("patternProperties", non_empty("patternProperties")),
        ("definitions", non_empty("definitions")),
        ("dependencies", present("dependencies")),
        ("$ref", present("$ref")),
    ];
    for (key, set) in unsupported {
        if set {
            errors.push(forbidden(
                &format!("{path}.{key}"),
                &format!("{key} is not supported"),
            ));
        }
    }
    if kind == "null" {
        errors.push(forbidden(
            &format!("{path}.type"),
            "type cannot be set to null, use nullable as an alternative",
        ));
    }
    if matches!(items(schema), Items::Many(many) if !many.is_empty()) {
        errors.push(forbidden(
            &format!("{path}.items"),
            "items must be a schema object and not an array",
        ));
    }
    if ctx.inside_resource_meta && flag(schema, X_EMBEDDED) {
        errors.push(forbidden(
            &format!("{path}.{X_EMBEDDED}"),
            "must not be used inside of resource meta",
        ));
    }
    errors
}
