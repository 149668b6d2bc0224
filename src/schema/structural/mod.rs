//! The structural-schema check run when CRDs load: one version's `openAPIV3Schema` checked as
//! kube-apiserver does on CRD creation (`NewStructural`, `ValidateStructural` and
//! `ValidateCustomResourceDefinitionOpenAPISchema` without CEL), with kube's field paths and
//! messages. Defaults are validated by `schema::default_check`, placed by [`Report`].
//!
//! # Layout
//! - `convert`: whether the schema converts to kube's structural form at all.
//! - `invariants`, `nested`, `complete`: `ValidateStructural` (types, junctor contents,
//!   metadata restrictions, completeness), with `formats::goregex` checking `pattern` as Go does.
//! - `openapi`, `listmap`, `rules`: the per-node CRD schema rules (unsupported keywords,
//!   defaults around object meta, list and map extensions, `x-kubernetes-validations` shape).
//! - `status`: root rules (status subresource, nullable); `gojson` renders schemas as kube
//!   prints them in messages.

mod access;
mod complete;
mod convert;
mod errors;
mod gojson;
mod invariants;
mod listmap;
mod nested;
mod openapi;
pub(crate) mod rules;
mod status;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_extensions;
#[cfg(test)]
mod tests_rules;

use serde_json::Value;

use crate::error::FieldError;

/// The findings of one schema, grouped so that default validation (done by the caller) can be
/// placed where kube places it.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Status-subresource root rules and the nullable root rule.
    pub root: Vec<FieldError>,
    /// `ValidateStructural` violations, sorted as kube sorts them.
    pub structural: Vec<FieldError>,
    /// Whether kube goes on to validate defaults: the schema converts and is structural.
    pub validates_defaults: bool,
    /// Per-node CRD schema rule violations.
    pub schema: Vec<FieldError>,
    /// `NewStructural`'s failure, reported only when nothing else is.
    pub conversion: Option<FieldError>,
}

impl Report {
    /// All errors in kube's order, without default validation.
    pub fn errors(self) -> Vec<FieldError> {
        self.with_default_errors(Vec::new())
    }

    /// All errors in kube's order, with the caller's default-validation errors placed after
    /// the structural ones (pass them only when [`Report::validates_defaults`] is true).
    pub fn with_default_errors(self, defaults: Vec<FieldError>) -> Vec<FieldError> {
        let mut errors = self.root;
        errors.extend(self.structural);
        errors.extend(defaults);
        errors.extend(self.schema);
        if errors.is_empty() {
            errors.extend(self.conversion);
        }
        errors
    }
}

/// Checks the `openAPIV3Schema` at field path `path` (e.g.
/// `spec.versions[0].schema.openAPIV3Schema`) as kube does when a CRD is created.
pub fn check(schema: &Value, path: &str) -> Vec<FieldError> {
    analyze(schema, path, false).errors()
}

/// [`check`] with the findings grouped; `status_enabled` applies the root restrictions kube
/// makes when the version has the status subresource.
pub fn analyze(schema: &Value, path: &str, status_enabled: bool) -> Report {
    let mut report = Report {
        root: status::root(schema, path, status_enabled),
        ..Report::default()
    };
    match convert::conversion_error(schema) {
        Some(message) => {
            report.conversion = Some(errors::invalid_str(path, "", &message));
        }
        None => {
            let mut structural = invariants::invariants(schema, invariants::Level::Root, path);
            structural.extend(complete::completeness(schema, path));
            structural.sort_by_cached_key(FieldError::message);
            report.validates_defaults = structural.is_empty();
            report.structural = structural;
        }
    }
    report.schema = openapi::validate(schema, path, &openapi::Context::default(), true);
    report
}
