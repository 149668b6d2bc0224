//! `spec` of one definition: group, scope, versions as a set, names, unknown-field
//! preservation and conversion (kube's `validateCustomResourceDefinitionSpec`).

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

use super::conversion::check_conversion;
use super::version::{check_shared_schema, check_version, schemas_identical};
use super::{
    invalid, is_dns1035_label, is_dns1123_subdomain, list_kind, not_supported, singular,
    versions_value,
};
use crate::error::FieldError;

pub(super) fn check_spec(crd: &CustomResourceDefinition) -> Vec<FieldError> {
    let spec = &crd.spec;
    let mut errors = check_group(&spec.group);
    match spec.scope.as_str() {
        "" => errors.push(FieldError::required("spec.scope", "")),
        "Cluster" | "Namespaced" => {}
        other => errors.push(not_supported(
            "spec.scope",
            other,
            &["Cluster", "Namespaced"],
        )),
    }
    errors.extend(check_versions(crd));
    errors.extend(check_names(crd));
    if spec.preserve_unknown_fields == Some(true) {
        errors.push(FieldError::invalid(
            "spec.preserveUnknownFields",
            &serde_json::Value::Bool(true),
            "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead",
        ));
    }
    errors.extend(check_conversion(spec));
    errors
}

fn check_group(group: &str) -> Vec<FieldError> {
    if group.is_empty() {
        return vec![FieldError::required("spec.group", "")];
    }
    let problems = is_dns1123_subdomain(group);
    if !problems.is_empty() {
        return vec![invalid("spec.group", group, &problems.join(","))];
    }
    if !group.contains('.') {
        return vec![invalid(
            "spec.group",
            group,
            "should be a domain with at least one dot",
        )];
    }
    Vec::new()
}

/// Each version, then the set: unique names and exactly one storage version.
fn check_versions(crd: &CustomResourceDefinition) -> Vec<FieldError> {
    let versions = &crd.spec.versions;
    let hoisted = schemas_identical(versions);
    let mut errors: Vec<FieldError> = versions
        .iter()
        .enumerate()
        .flat_map(|(i, version)| check_version(i, version, hoisted))
        .collect();
    if hoisted && let Some(first) = versions.first() {
        errors.extend(check_shared_schema(first));
    }
    let mut seen = std::collections::BTreeSet::new();
    if !versions.iter().all(|v| seen.insert(v.name.as_str())) {
        errors.push(FieldError::invalid(
            "spec.versions",
            &versions_value(versions),
            "must contain unique version names",
        ));
    }
    if versions.iter().filter(|v| v.storage).count() != 1 {
        errors.push(FieldError::invalid(
            "spec.versions",
            &versions_value(versions),
            "must have exactly one version marked as storage version",
        ));
    }
    // Stricter than kube, which accepts a CRD that serves nothing: here such a
    // definition can only be a mistake, so start-up names it.
    if !versions.is_empty() && !versions.iter().any(|v| v.served) {
        errors.push(FieldError::invalid(
            "spec.versions",
            &versions_value(versions),
            "must have at least one served version",
        ));
    }
    errors
}

/// `spec.names` after defaulting (singular from kind, listKind as `<kind>List`).
fn check_names(crd: &CustomResourceDefinition) -> Vec<FieldError> {
    let names = &crd.spec.names;
    let singular = singular(crd);
    let list_kind = list_kind(crd);
    let mut errors = Vec::new();
    let required = [
        ("plural", names.plural.as_str()),
        ("singular", singular.as_str()),
        ("kind", names.kind.as_str()),
        ("listKind", list_kind.as_str()),
    ];
    for (field, value) in required {
        if value.is_empty() {
            errors.push(FieldError::required(&format!("spec.names.{field}"), ""));
        }
    }
    let labels = [("plural", names.plural.as_str()), ("singular", &singular)];
    for (field, value) in labels {
        errors.extend(label_error(&format!("spec.names.{field}"), value, true));
    }
    let mixed = "may have mixed case, but should otherwise match: ";
    for (field, value) in [("kind", names.kind.as_str()), ("listKind", &list_kind)] {
        let problems = is_dns1035_label(&value.to_lowercase());
        if !value.is_empty() && !problems.is_empty() {
            let detail = format!("{mixed}{}", problems.join(","));
            errors.push(invalid(&format!("spec.names.{field}"), value, &detail));
        }
    }
    for (i, short_name) in names.short_names.iter().flatten().enumerate() {
        let field = format!("spec.names.shortNames[{i}]");
        errors.extend(label_error(&field, short_name, false));
    }
    if !names.kind.is_empty() && names.kind == list_kind {
        errors.push(invalid(
            "spec.names.listKind",
            &list_kind,
            "kind and listKind may not be the same",
        ));
    }
    for (i, category) in names.categories.iter().flatten().enumerate() {
        let field = format!("spec.names.categories[{i}]");
        errors.extend(label_error(&field, category, false));
    }
    errors
}

/// A DNS-1035 label check; empty values pass when `skip_empty` (they are reported as
/// required instead).
fn label_error(field: &str, value: &str, skip_empty: bool) -> Option<FieldError> {
    if value.is_empty() && skip_empty {
        return None;
    }
    let problems = is_dns1035_label(value);
    (!problems.is_empty()).then(|| invalid(field, value, &problems.join(",")))
}
