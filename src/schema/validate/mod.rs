//! Value validation of custom objects by their schema, as kube-apiserver's CRD strategy
//! runs it: the kube-openapi schema validator (ratcheting unchanged values on update),
//! then embedded resources (`x-kubernetes-embedded-resource`), then list-type set/map
//! uniqueness. Root ObjectMeta, CEL rules, pruning and defaulting live elsewhere.
//!
//! Upstream: apiextensions-apiserver `pkg/apiserver/validation` (`validation.go`,
//! `ratcheting.go`), kube-openapi `pkg/validation/validate`, apiextensions
//! `pkg/apiserver/schema/{objectmeta,listtype}`, `pkg/registry/customresource/strategy.go`.
//!
//! # Layout
//! - `walk`: one value against one schema node, validators in kube-openapi's order
//! - `types` (type, nullable, enum), `composition` (allOf/anyOf/oneOf/not), `string`
//!   (lengths, pattern, format), `number`, `array`, `object`: the keyword validators
//! - `result`: kube-openapi's result (dedup, match counts) already as field errors
//! - `ratchet`: old-value correlation and the "unchanged" test
//! - `embedded`, `embedded_meta`: embedded resources; `listtype`: sets and list-maps
//! - `path`: lazily rendered paths (Go's value printing is [`crate::gofmt`]); `sink`:
//!   the error budget of the embedded and list-type passes

mod array;
mod composition;
mod embedded;
mod embedded_meta;
mod listtype;
mod number;
mod object;
mod path;
pub(crate) mod ratchet;
mod result;
mod sink;
mod string;
mod types;
mod walk;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_keywords;
#[cfg(test)]
mod tests_passes;
#[cfg(test)]
mod tests_ratchet;
#[cfg(test)]
mod tests_scalars;

use serde_json::Value;

use crate::error::FieldError;
use crate::schema::Schema;
use crate::schema::scale::{self, ScalePaths};

/// Everything kube's strategy reports for a custom object's content, in its order: the
/// schema validator (values unchanged from `old` ratcheted away on update), the scale
/// subresource's replicas and selector, embedded resources, then list types (on update
/// only when `old` had none). Field paths start at the object root (`spec.replicas`);
/// errors that kube reports on its nil root path read `<nil>`. ObjectMeta rules are
/// the caller's (they come first).
pub fn object(
    schema: &Schema,
    new: &Value,
    old: Option<&Value>,
    scale: Option<&ScalePaths>,
) -> Vec<FieldError> {
    let mut errors = match old {
        Some(old) => schema_update_errors(schema, new, old),
        None => schema_errors(schema, new),
    };
    if let Some(paths) = scale {
        errors.extend(scale::spec_errors(paths, new));
        errors.extend(scale::status_errors(paths, new));
    }
    errors.extend(embedded_errors(schema, new));
    if old.is_none_or(|o| list_type_errors(schema, o).is_empty()) {
        errors.extend(list_type_errors(schema, new));
    }
    errors
}

/// [`object`] for a create, without a scale subresource.
pub fn validate(schema: &Schema, object: &Value) -> Vec<FieldError> {
    self::object(schema, object, None, None)
}

/// [`object`] for an update, without a scale subresource.
pub fn validate_update(schema: &Schema, new: &Value, old: &Value) -> Vec<FieldError> {
    self::object(schema, new, Some(old), None)
}

/// An update through the `status` subresource: only `status` is validated (against the
/// `status` property's schema, paths under `status`, ratcheted against the old status),
/// then the scale subresource's status replicas and selector, then list types of the
/// whole object when the old object had no such error.
pub fn validate_status_update(
    schema: &Schema,
    new: &Value,
    old: &Value,
    scale: Option<&ScalePaths>,
) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if let (Some(status), Some(status_schema)) =
        (new.get("status"), schema.properties.get("status"))
    {
        let old_status = old.get("status").unwrap_or(&Value::Null);
        errors = walk::run(status_schema, status, Some(old_status), Some("status"));
    }
    if let Some(paths) = scale {
        errors.extend(scale::status_errors(paths, new));
    }
    let new_list_errors = list_type_errors(schema, new);
    if !new_list_errors.is_empty() && list_type_errors(schema, old).is_empty() {
        errors.extend(new_list_errors);
    }
    errors
}

/// The schema validator alone (`ValidateCustomResource`).
fn schema_errors(schema: &Schema, object: &Value) -> Vec<FieldError> {
    walk::run(schema, object, None, None)
}

/// The schema validator on any value, called with field path `path` as kube validates a
/// schema default (`ValidateCustomResource(<path>.default, ...)`).
pub fn schema_errors_at(schema: &Schema, value: &Value, path: &str) -> Vec<FieldError> {
    walk::run(schema, value, None, Some(path))
}

/// The schema validator with ratcheting (`ValidateCustomResourceUpdate`).
fn schema_update_errors(schema: &Schema, new: &Value, old: &Value) -> Vec<FieldError> {
    walk::run(schema, new, Some(old), None)
}

/// Embedded resources' apiVersion, kind and metadata (`objectmeta.Validate`).
pub fn embedded_errors(schema: &Schema, object: &Value) -> Vec<FieldError> {
    embedded::check(schema, object)
}

/// Set and list-map uniqueness (`listtype.ValidateListSetsAndMaps`).
fn list_type_errors(schema: &Schema, object: &Value) -> Vec<FieldError> {
    listtype::check(schema, object)
}
