//! Creation-time checks of CustomResourceDefinitions as kube-apiserver applies them
//! (`ValidateCustomResourceDefinition` in apiextensions-apiserver, on the defaulted v1
//! object), plus the naming controller's conflicts across definitions of one group.
//!
//! Paths and wording are kube's, including its internal field names
//! (`additionalPrinterColumns[0].JSONPath`, `conversion.webhookClientConfig`).
//! `spec.conversion` is checked in `conversion`, a webhook's client config in `webhook`.
//! Schemas are checked by `crate::schema::structural` and `crate::schema::default_check`
//! (called per version, or once under `spec.validation` when all versions share one);
//! not checked here: CEL rule compilation and selectable fields.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceDefinition, CustomResourceDefinitionVersion,
};
use serde_json::{Value, json};

use super::load::{LoadErrors, LoadedCrd, Problem};
use crate::error::{ErrorType, FieldError};
use crate::gofmt::quote;

mod conversion;
mod names;
mod spec;
#[cfg(test)]
mod tests;
mod version;
mod webhook;

use crate::validation::{is_dns1035_label, is_dns1123_subdomain};

/// Checks every definition and the names they claim together; `Err` lists every problem
/// as `<source> <name>: <field>: <message>`.
pub fn check_all(crds: &[LoadedCrd]) -> Result<(), LoadErrors> {
    let mut per_crd: Vec<Vec<FieldError>> = crds.iter().map(|l| check(&l.crd)).collect();
    for (index, error) in names::conflicts(crds) {
        if let Some(errors) = per_crd.get_mut(index) {
            errors.push(error);
        }
    }
    let problems: Vec<Problem> = crds
        .iter()
        .zip(per_crd)
        .flat_map(|(loaded, errors)| {
            let object = loaded.crd.metadata.name.clone().unwrap_or_default();
            errors.into_iter().map(move |error| Problem {
                source: loaded.source.clone(),
                object: object.clone(),
                message: error.message(),
            })
        })
        .collect();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(LoadErrors { problems })
    }
}

/// The problems kube reports when this one definition is created.
pub fn check(crd: &CustomResourceDefinition) -> Vec<FieldError> {
    let mut errors = check_metadata(crd);
    errors.extend(spec::check_spec(crd));
    errors
}

/// `spec.names.listKind`, defaulted to `<kind>List` as kube does.
pub fn list_kind(crd: &CustomResourceDefinition) -> String {
    let names = &crd.spec.names;
    match names.list_kind.as_deref() {
        Some(list_kind) if !list_kind.is_empty() => list_kind.to_string(),
        _ if names.kind.is_empty() => String::new(),
        _ => format!("{}List", names.kind),
    }
}

/// `spec.names.singular`, defaulted to the lower-cased kind as kube does.
pub fn singular(crd: &CustomResourceDefinition) -> String {
    let names = &crd.spec.names;
    match names.singular.as_deref() {
        Some(singular) if !singular.is_empty() => singular.to_string(),
        _ => names.kind.to_lowercase(),
    }
}

fn check_metadata(crd: &CustomResourceDefinition) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let name = crd.metadata.name.as_deref().unwrap_or("");
    if name.is_empty() {
        errors.push(FieldError::required(
            "metadata.name",
            "name or generateName is required",
        ));
    } else {
        for message in is_dns1123_subdomain(name) {
            errors.push(invalid("metadata.name", name, &message));
        }
        let required = format!("{}.{}", crd.spec.names.plural, crd.spec.group);
        if name != required {
            errors.push(invalid(
                "metadata.name",
                name,
                r#"must be spec.names.plural+"."+spec.group"#,
            ));
        }
    }
    if crd
        .metadata
        .namespace
        .as_deref()
        .is_some_and(|n| !n.is_empty())
    {
        errors.push(FieldError::forbidden(
            "metadata.namespace",
            "not allowed on this type",
        ));
    }
    errors.extend(check_api_approval(crd));
    errors
}

const API_APPROVED: &str = "api-approved.kubernetes.io";

/// Groups under `k8s.io` and `kubernetes.io` need the API approval annotation.
fn check_api_approval(crd: &CustomResourceDefinition) -> Option<FieldError> {
    let group = crd.spec.group.as_str();
    let protected = ["k8s.io", "kubernetes.io"]
        .iter()
        .any(|g| group == *g || group.ends_with(&format!(".{g}")));
    if !protected {
        return None;
    }
    let field = format!("metadata.annotations[{API_APPROVED}]");
    let annotation = crd
        .metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get(API_APPROVED))
        .map_or("", String::as_str);
    let see = "see https://github.com/kubernetes/enhancements/pull/1111";
    if annotation.is_empty() {
        let detail =
            format!("protected groups must have approval annotation {API_APPROVED:?}, {see}");
        return Some(FieldError::required(&field, &detail));
    }
    if annotation.starts_with("unapproved") || is_absolute_url(annotation) {
        return None;
    }
    let detail = format!(
        "protected groups must have approval annotation {API_APPROVED:?} with either a URL or a reason starting with \"unapproved\", {see}"
    );
    Some(invalid(&field, annotation, &detail))
}

/// `scheme://host...`, as Go's `url.ParseRequestURI` with a scheme and a host.
fn is_absolute_url(value: &str) -> bool {
    let Some((scheme, rest)) = value.split_once("://") else {
        return false;
    };
    let scheme_ok = scheme
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    let host = rest.split(['/', '?', '#']).next().unwrap_or("");
    scheme_ok && !host.is_empty() && !value.contains(' ')
}

/// `field: Invalid value: "value": detail` for a string value.
fn invalid(field: &str, value: &str, detail: &str) -> FieldError {
    FieldError::invalid(field, &Value::String(value.to_string()), detail)
}

/// `field: Unsupported value: "value": supported values: "a", "b"`.
fn not_supported(field: &str, value: &str, supported: &[&str]) -> FieldError {
    let quoted: Vec<String> = supported.iter().map(|s| quote(s)).collect();
    FieldError {
        reason: ErrorType::NotSupported,
        field: field.to_string(),
        detail: format!(
            "Unsupported value: {}: supported values: {}",
            quote(value),
            quoted.join(", ")
        ),
    }
}

/// The versions list as a short value for messages: name, served and storage of each.
fn versions_value(versions: &[CustomResourceDefinitionVersion]) -> Value {
    Value::Array(
        versions
            .iter()
            .map(|v| json!({"name": v.name, "served": v.served, "storage": v.storage}))
            .collect(),
    )
}
