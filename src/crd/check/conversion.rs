//! `spec.conversion` as kube checks it on create (`validateCustomResourceConversion` and
//! the preserveUnknownFields rule of `validateCustomResourceDefinitionSpec`), with kube's
//! internal paths (`spec.conversion.webhookClientConfig`, `…conversionReviewVersions`).
//!
//! The caBundle is not checked: kube allows an invalid one when the definition is
//! created (`allowInvalidCABundle`), and a loaded definition is always created here; a
//! bad bundle only fails the calls.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceConversion, CustomResourceDefinitionSpec, WebhookClientConfig,
};
use serde_json::Value;

use super::webhook::{check_service, check_url};
use super::{is_dns1035_label, not_supported};
use crate::error::{ErrorType, FieldError};
use crate::gofmt::quote;

const PATH: &str = "spec.conversion";

/// The ConversionReview versions this server (and kube) understands, sorted.
const ACCEPTED_REVIEW_VERSIONS: [&str; 2] = ["v1", "v1beta1"];

/// The port kube's v1 defaulting gives a service without one.
const DEFAULT_SERVICE_PORT: i32 = 443;

/// Every problem kube reports for `spec.conversion` of a definition being created.
pub(super) fn check_conversion(spec: &CustomResourceDefinitionSpec) -> Vec<FieldError> {
    let Some(conversion) = spec.conversion.as_ref() else {
        return Vec::new();
    };
    let mut errors = Vec::new();
    let strategy = conversion.strategy.as_str();
    if strategy != "None" && spec.preserve_unknown_fields == Some(true) {
        errors.push(FieldError::invalid(
            &format!("{PATH}.strategy"),
            &Value::String(strategy.into()),
            "must be None if spec.preserveUnknownFields is true",
        ));
    }
    errors.extend(check_strategy(strategy));
    if strategy == "Webhook" {
        errors.extend(check_webhook(conversion));
    } else {
        errors.extend(check_no_webhook(conversion));
    }
    errors
}

/// `strategy`: required, `None` or `Webhook`.
fn check_strategy(strategy: &str) -> Option<FieldError> {
    let field = format!("{PATH}.strategy");
    match strategy {
        "" => Some(FieldError::required(&field, "")),
        "None" | "Webhook" => None,
        other => Some(not_supported(&field, other, &["None", "Webhook"])),
    }
}

/// `strategy: Webhook`: a client config with exactly one of url and service, and the
/// review versions.
fn check_webhook(conversion: &CustomResourceConversion) -> Vec<FieldError> {
    let webhook = conversion.webhook.as_ref();
    let field = format!("{PATH}.webhookClientConfig");
    let mut errors = match webhook.and_then(|w| w.client_config.as_ref()) {
        None => vec![FieldError::required(
            &field,
            "required when strategy is set to Webhook",
        )],
        Some(config) => check_client_config(&field, config),
    };
    let versions = webhook.map_or(&[][..], |w| &w.conversion_review_versions[..]);
    errors.extend(check_review_versions(versions));
    errors
}

fn check_client_config(field: &str, config: &WebhookClientConfig) -> Vec<FieldError> {
    match (config.url.as_deref(), config.service.as_ref()) {
        (Some(url), None) => check_url(&format!("{field}.url"), url, true),
        (None, Some(service)) => check_service(
            &format!("{field}.service"),
            // kube passes the name as `namespace` and the namespace as `name`.
            &service.name,
            &service.namespace,
            service.path.as_deref(),
            service.port.unwrap_or(DEFAULT_SERVICE_PORT),
        ),
        _ => vec![FieldError::required(
            field,
            "exactly one of url or service is required",
        )],
    }
}

/// `conversionReviewVersions`: required, no duplicates, DNS-1035 labels, at least one
/// this server understands.
fn check_review_versions(versions: &[String]) -> Vec<FieldError> {
    let field = format!("{PATH}.conversionReviewVersions");
    if versions.is_empty() {
        return vec![FieldError::required(&field, "")];
    }
    let mut errors = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (i, version) in versions.iter().enumerate() {
        let item = format!("{field}[{i}]");
        let value = Value::String(version.clone());
        if !seen.insert(version.as_str()) {
            errors.push(FieldError::invalid(&item, &value, "duplicate version"));
            continue;
        }
        for message in is_dns1035_label(version) {
            errors.push(FieldError::invalid(&item, &value, &message));
        }
    }
    if !versions
        .iter()
        .any(|v| ACCEPTED_REVIEW_VERSIONS.contains(&v.as_str()))
    {
        errors.push(FieldError {
            reason: ErrorType::Invalid,
            field,
            detail: format!(
                "Invalid value: {}: must include at least one of {}",
                go_string_slice(versions),
                ACCEPTED_REVIEW_VERSIONS.join(", ")
            ),
        });
    }
    errors
}

/// Any other strategy: no client config, no review versions.
fn check_no_webhook(conversion: &CustomResourceConversion) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let webhook = conversion.webhook.as_ref();
    let detail = "should not be set when strategy is not set to Webhook";
    if webhook.is_some_and(|w| w.client_config.is_some()) {
        let field = format!("{PATH}.webhookClientConfig");
        errors.push(FieldError::forbidden(&field, detail));
    }
    if webhook.is_some_and(|w| !w.conversion_review_versions.is_empty()) {
        let field = format!("{PATH}.conversionReviewVersions");
        errors.push(FieldError::forbidden(&field, detail));
    }
    errors
}

/// `%#v` of a Go `[]string`, as a field error prints a bad value of that type:
/// `[]string{"v3", "v4"}`.
fn go_string_slice(values: &[String]) -> String {
    let items: Vec<String> = values.iter().map(|v| quote(v)).collect();
    format!("[]string{{{}}}", items.join(", "))
}

#[cfg(test)]
#[path = "conversion_tests.rs"]
mod tests;
