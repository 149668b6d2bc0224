//! apiextensions' `objectmeta.Validate` for embedded resources: every object under a
//! schema with `x-kubernetes-embedded-resource` needs a string `apiVersion` and `kind`
//! and, when it has `metadata`, metadata that passes ObjectMeta validation. The custom
//! object's own root is not checked here.

use serde_json::{Map, Value};

use super::embedded_meta;
use super::path::{Seg, Trail};
use crate::crd::check::is_dns1035_label;
use crate::error::FieldError;
use crate::gofmt::{field_value, quote};
use crate::schema::{Additional, Schema};

/// Every embedded-resource problem in `object` (a whole custom object).
pub(super) fn check(schema: &Schema, object: &Value) -> Vec<FieldError> {
    let mut out = Vec::new();
    walk(&mut Trail::new(), schema, object, &mut out);
    out
}

fn walk<'v>(trail: &mut Trail<'v>, s: &'v Schema, value: &'v Value, out: &mut Vec<FieldError>) {
    match value {
        Value::Object(map) => {
            if s.embedded_resource {
                resource(trail, map, out);
            }
            for (key, child) in map {
                if let Some(prop) = s.properties.get(key) {
                    trail.push(Seg::Prop(key));
                    walk(trail, prop, child, out);
                    trail.pop();
                } else if let Some(Additional::Schema(extra)) = &s.additional_properties {
                    trail.push(Seg::Addl(key));
                    walk(trail, extra, child, out);
                    trail.pop();
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = &s.items {
                for (i, item) in items.iter().enumerate() {
                    trail.push(Seg::Index(i));
                    walk(trail, item_schema, item, out);
                    trail.pop();
                }
            }
        }
        _ => {}
    }
}

pub(super) fn invalid(field: String, bad: &str, detail: &str) -> FieldError {
    FieldError {
        reason: "FieldValueInvalid",
        field,
        detail: format!("Invalid value: {bad}: {detail}"),
    }
}

/// `validateEmbeddedResource` for one embedded object.
fn resource(trail: &Trail<'_>, map: &Map<String, Value>, out: &mut Vec<FieldError>) {
    for required in ["apiVersion", "kind"] {
        if !map.contains_key(required) {
            out.push(FieldError::required(&trail.child_field_path(required), ""));
        }
    }
    for (key, value) in map {
        match key.as_str() {
            "apiVersion" => out.extend(api_version(trail.child_field_path(key), value)),
            "kind" => out.extend(kind(trail.child_field_path(key), value)),
            "metadata" => embedded_meta::check(&trail.child_field_path(key), value, out),
            _ => {}
        }
    }
}

fn api_version(field: String, value: &Value) -> Option<FieldError> {
    let Value::String(text) = value else {
        return Some(invalid(field, &field_value(value), "must be a string"));
    };
    if text.is_empty() {
        return Some(invalid(field, "\"\"", "must not be empty"));
    }
    // `schema.ParseGroupVersion`: at most one slash.
    if text != "/" && text.matches('/').count() > 1 {
        let detail = format!("unexpected GroupVersion string: {text}");
        return Some(invalid(field, &quote(text), &detail));
    }
    None
}

fn kind(field: String, value: &Value) -> Option<FieldError> {
    let Value::String(text) = value else {
        return Some(invalid(field, &field_value(value), "must be a string"));
    };
    if text.is_empty() {
        return Some(invalid(field, "\"\"", "must not be empty"));
    }
    let errs = is_dns1035_label(&text.to_lowercase());
    if errs.is_empty() {
        return None;
    }
    let detail = format!(
        "may have mixed case, but should otherwise match: {}",
        errs.join(",")
    );
    Some(invalid(field, &quote(text), &detail))
}
