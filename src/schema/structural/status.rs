//! Root-level rules that do not depend on structure: with the status subresource enabled
//! only some keywords may appear at the root, and the root is never nullable.

use serde_json::Value;

use super::access::{flag, object, type_of};
use super::errors::{forbidden, invalid_rendered, invalid_str};
use super::gojson;
use crate::error::FieldError;

/// kube's internal field names in declaration order, with their JSON keywords.
const FIELDS: &[(&str, &str)] = &[
    ("ID", "id"),
    ("Schema", "$schema"),
    ("Ref", "$ref"),
    ("Description", "description"),
    ("Type", "type"),
    ("Nullable", "nullable"),
    ("Format", "format"),
    ("Title", "title"),
    ("Default", "default"),
    ("Maximum", "maximum"),
    ("ExclusiveMaximum", "exclusiveMaximum"),
    ("Minimum", "minimum"),
    ("ExclusiveMinimum", "exclusiveMinimum"),
    ("MaxLength", "maxLength"),
    ("MinLength", "minLength"),
    ("Pattern", "pattern"),
    ("MaxItems", "maxItems"),
    ("MinItems", "minItems"),
    ("UniqueItems", "uniqueItems"),
    ("MultipleOf", "multipleOf"),
    ("Enum", "enum"),
    ("MaxProperties", "maxProperties"),
    ("MinProperties", "minProperties"),
    ("Required", "required"),
    ("Items", "items"),
    ("AllOf", "allOf"),
    ("OneOf", "oneOf"),
    ("AnyOf", "anyOf"),
    ("Not", "not"),
    ("Properties", "properties"),
    ("AdditionalProperties", "additionalProperties"),
    ("PatternProperties", "patternProperties"),
    ("Dependencies", "dependencies"),
    ("AdditionalItems", "additionalItems"),
    ("Definitions", "definitions"),
    ("ExternalDocs", "externalDocs"),
    ("Example", "example"),
    (
        "XPreserveUnknownFields",
        "x-kubernetes-preserve-unknown-fields",
    ),
    ("XEmbeddedResource", "x-kubernetes-embedded-resource"),
    ("XIntOrString", "x-kubernetes-int-or-string"),
    ("XListMapKeys", "x-kubernetes-list-map-keys"),
    ("XListType", "x-kubernetes-list-type"),
    ("XMapType", "x-kubernetes-map-type"),
    ("XValidations", "x-kubernetes-validations"),
];

/// The fields kube allows at the root when the status subresource is enabled.
const ALLOWED: &str = "[Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations]";

/// The status-subresource rule (when enabled) and the nullable rule, in kube's order.
pub(super) fn root(schema: &Value, path: &str, status_enabled: bool) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if status_enabled {
        errors.extend(status_root(schema, path));
    }
    if flag(schema, "nullable") {
        errors.push(forbidden(
            &format!("{path}.nullable"),
            "nullable cannot be true at the root",
        ));
    }
    errors
}

/// The first field (in kube's declaration order) that is set but not allowed.
fn status_root(schema: &Value, path: &str) -> Option<FieldError> {
    let map = object(schema)?;
    for &(name, key) in FIELDS {
        let Some(value) = map.get(key) else {
            continue;
        };
        if go_zero(key, value) {
            continue;
        }
        if name == "Type" {
            if type_of(schema) != "object" {
                return Some(invalid_str(
                    &format!("{path}.type"),
                    type_of(schema),
                    r#"only "object" is allowed as the type at the root of the schema if the status subresource is enabled"#,
                ));
            }
            continue;
        }
        if !ALLOWED
            .trim_matches(['[', ']'])
            .split(' ')
            .any(|a| a == name)
        {
            let detail = format!(
                "only {ALLOWED} fields are allowed at the root of the schema if the status subresource is enabled"
            );
            return Some(invalid_rendered(path, &gojson::schema(schema), &detail));
        }
    }
    None
}

/// Whether kube's internal field is at its Go zero value: only empty strings, `false` flags
/// and nulls are; pointers, slices and maps are set as soon as they are present.
fn go_zero(key: &str, value: &Value) -> bool {
    let pointer = matches!(
        key,
        "$ref"
            | "default"
            | "example"
            | "x-kubernetes-preserve-unknown-fields"
            | "x-kubernetes-list-type"
            | "x-kubernetes-map-type"
    );
    match value {
        Value::Null => true,
        Value::String(s) => s.is_empty() && !pointer,
        Value::Bool(b) => !b && !pointer,
        _ => false,
    }
}
