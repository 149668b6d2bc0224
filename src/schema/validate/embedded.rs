//! apiextensions' `objectmeta.Validate` for embedded resources: every object under a
//! schema with `x-kubernetes-embedded-resource` needs a string `apiVersion` and `kind`
//! and, when it has `metadata`, metadata that passes ObjectMeta validation. The custom
//! object's own root is not checked here.

use serde_json::{Map, Value};

use super::embedded_meta;
use super::path::{Seg, Trail};
use super::sink::{Errors, LazyPath};
use crate::error::{ErrorType, FieldError};
use crate::gofmt::{field_value, quote};
use crate::schema::{Additional, Schema};
use crate::validation::is_dns1035_label;

/// Every embedded-resource problem in `object` (a whole custom object).
/// Past the pass's error budget it stops (see `sink`).
pub(super) fn check(schema: &Schema, object: &Value) -> Vec<FieldError> {
    let mut out = Errors::default();
    walk(&mut Trail::new(), schema, object, &mut out);
    out.into_vec()
}

fn walk<'v>(trail: &mut Trail<'v>, s: &'v Schema, value: &'v Value, out: &mut Errors) {
    if out.full() {
        return;
    }
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
        reason: ErrorType::Invalid,
        field,
        detail: format!("Invalid value: {bad}: {detail}"),
    }
}

/// `validateEmbeddedResource` for one embedded object.
fn resource(trail: &Trail<'_>, map: &Map<String, Value>, out: &mut Errors) {
    for required in ["apiVersion", "kind"] {
        if !map.contains_key(required) {
            out.push(FieldError::required(&trail.child_field_path(required), ""));
        }
    }
    for (key, value) in map {
        let problem = match key.as_str() {
            "apiVersion" => api_version(value),
            "kind" => kind(value),
            "metadata" => {
                let render = || trail.child_field_path(key);
                let path = LazyPath::new(&render);
                embedded_meta::check(&path, value, out);
                None
            }
            _ => None,
        };
        if let Some((bad, detail)) = problem {
            out.push(invalid(trail.child_field_path(key), &bad, &detail));
        }
    }
}

/// The shown value and the detail of an invalid `apiVersion`.
fn api_version(value: &Value) -> Option<(String, String)> {
    let Value::String(text) = value else {
        return Some((field_value(value), "must be a string".into()));
    };
    if text.is_empty() {
        return Some(("\"\"".into(), "must not be empty".into()));
    }
    // `schema.ParseGroupVersion`: at most one slash.
    if text != "/" && text.matches('/').count() > 1 {
        let detail = format!("unexpected GroupVersion string: {text}");
        return Some((quote(text), detail));
    }
    None
}

/// The shown value and the detail of an invalid `kind`.
fn kind(value: &Value) -> Option<(String, String)> {
    let Value::String(text) = value else {
        return Some((field_value(value), "must be a string".into()));
    };
    if text.is_empty() {
        return Some(("\"\"".into(), "must not be empty".into()));
    }
    let errs = is_dns1035_label(&text.to_lowercase());
    if errs.is_empty() {
        return None;
    }
    let detail = format!(
        "may have mixed case, but should otherwise match: {}",
        errs.join(",")
    );
    Some((quote(text), detail))
}
