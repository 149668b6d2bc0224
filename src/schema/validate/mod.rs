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
mod ratchet;
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

/// Everything kube's create validation reports for a custom object's content, in kube's
/// order: schema errors, then embedded resources, then list types. Field paths start at
/// the object root (`spec.replicas`); errors that kube reports on its nil root path read
/// `<nil>`.
pub fn validate(schema: &Schema, object: &Value) -> Vec<FieldError> {
    let mut errors = schema_errors(schema, object);
    errors.extend(embedded_errors(schema, object));
    errors.extend(list_type_errors(schema, object));
    errors
}

/// [`validate`] for an update: schema errors in values unchanged from `old` are
/// ratcheted away, and list-type errors are only reported when `old` had none.
pub fn validate_update(schema: &Schema, new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errors = schema_update_errors(schema, new, old);
    errors.extend(embedded_errors(schema, new));
    if list_type_errors(schema, old).is_empty() {
        errors.extend(list_type_errors(schema, new));
    }
    errors
}

/// An update through the `status` subresource: only `status` is validated (against the
/// `status` property's schema, paths under `status`, ratcheted against the old status),
/// plus list types of the whole object when the old object had no such error.
pub fn validate_status_update(schema: &Schema, new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if let (Some(status), Some(status_schema)) =
        (new.get("status"), schema.properties.get("status"))
    {
        let old_status = old.get("status").unwrap_or(&Value::Null);
        errors = walk::run(status_schema, status, Some(old_status), Some("status"));
    }
    let new_list_errors = list_type_errors(schema, new);
    if !new_list_errors.is_empty() && list_type_errors(schema, old).is_empty() {
        errors.extend(new_list_errors);
    }
    errors
}

/// The schema validator alone (`ValidateCustomResource`).
pub fn schema_errors(schema: &Schema, object: &Value) -> Vec<FieldError> {
    walk::run(schema, object, None, None)
}

/// The schema validator on any value, called with field path `path` as kube validates a
/// schema default (`ValidateCustomResource(<path>.default, ...)`).
pub fn schema_errors_at(schema: &Schema, value: &Value, path: &str) -> Vec<FieldError> {
    walk::run(schema, value, None, Some(path))
}

/// The schema validator with ratcheting (`ValidateCustomResourceUpdate`).
pub fn schema_update_errors(schema: &Schema, new: &Value, old: &Value) -> Vec<FieldError> {
    walk::run(schema, new, Some(old), None)
}

/// Embedded resources' apiVersion, kind and metadata (`objectmeta.Validate`).
pub fn embedded_errors(schema: &Schema, object: &Value) -> Vec<FieldError> {
    embedded::check(schema, object)
}

/// Set and list-map uniqueness (`listtype.ValidateListSetsAndMaps`).
pub fn list_type_errors(schema: &Schema, object: &Value) -> Vec<FieldError> {
    listtype::check(schema, object)
}
