//! The policy's validation, in kube's words (k8s.io/apiserver
//! pkg/apis/audit/validation `ValidatePolicy`): levels, stages, non-resource URLs, groups
//! and resourceNames, each error at its field path (`rules[0].level`).

use serde_json::Value;

use super::file::{RawGroupResources, RawPolicy, RawRule};
use crate::error::{ErrorType, FieldError};
use crate::gofmt::marshal;
use crate::validation::is_dns1123_subdomain;

const LEVELS: [&str; 4] = ["None", "Metadata", "Request", "RequestResponse"];
const STAGES: [&str; 4] = [
    "RequestReceived",
    "ResponseStarted",
    "ResponseComplete",
    "Panic",
];

/// Every problem of a decoded policy, in kube's order.
pub fn validate(policy: &RawPolicy) -> Vec<FieldError> {
    let mut errors = omit_stages(&policy.omit_stages, "omitStages");
    for (i, rule) in policy.rules.iter().enumerate() {
        errors.extend(policy_rule(rule, &format!("rules[{i}]")));
    }
    errors
}

fn policy_rule(rule: &RawRule, at: &str) -> Vec<FieldError> {
    let mut errors: Vec<FieldError> = level(&rule.level, &format!("{at}.level"))
        .into_iter()
        .collect();
    let urls_at = format!("{at}.nonResourceURLs");
    errors.extend(non_resource_urls(&rule.non_resource_urls, &urls_at));
    errors.extend(resources(&rule.resources, &format!("{at}.resources")));
    errors.extend(omit_stages(&rule.omit_stages, &format!("{at}.omitStages")));
    let both = !rule.resources.is_empty() || !rule.namespaces.is_empty();
    if !rule.non_resource_urls.is_empty() && both {
        errors.push(FieldError::invalid(
            &urls_at,
            &strings_value(&rule.non_resource_urls),
            "rules cannot apply to both regular resources and non-resource URLs",
        ));
    }
    errors
}

/// `field.Required` for an empty level, `field.NotSupported` for an unknown one (the bad
/// value is an `audit.Level`, which apimachinery prints through `json.Marshal`).
fn level(level: &str, at: &str) -> Option<FieldError> {
    if LEVELS.contains(&level) {
        return None;
    }
    if level.is_empty() {
        return Some(FieldError::required(at, ""));
    }
    let supported: Vec<String> = LEVELS.iter().map(|l| format!("\"{l}\"")).collect();
    Some(FieldError {
        reason: ErrorType::NotSupported,
        field: at.to_owned(),
        detail: format!(
            "Unsupported value: {}: supported values: {}",
            marshal(&Value::String(level.to_owned())),
            supported.join(", ")
        ),
    })
}

fn non_resource_urls(urls: &[String], at: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    for (i, url) in urls.iter().enumerate().filter(|(_, url)| *url != "*") {
        let here = format!("{at}[{i}]");
        let value = Value::String(url.clone());
        if !url.starts_with('/') {
            errors.push(FieldError::invalid(
                &here,
                &value,
                "non-resource URL rules must begin with a '/' character",
            ));
        }
        if url
            .char_indices()
            .any(|(j, c)| c == '*' && j + 1 < url.len())
        {
            errors.push(FieldError::invalid(
                &here,
                &value,
                "non-resource URL wildcards '*' must be the final character of the rule",
            ));
        }
    }
    errors
}

/// Groups must be DNS subdomains (or `""`, `*`); resourceNames need resources. Kube
/// names these paths without the list index (`rules[0].resources.group`).
fn resources(groups: &[RawGroupResources], at: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    for gr in groups {
        if !gr.group.is_empty() && gr.group != "*" {
            let messages = is_dns1123_subdomain(&gr.group);
            if !messages.is_empty() {
                errors.push(FieldError::invalid(
                    &format!("{at}.group"),
                    &Value::String(gr.group.clone()),
                    &messages.join(","),
                ));
            }
        }
        if !gr.resource_names.is_empty() && gr.resources.is_empty() {
            errors.push(FieldError::invalid(
                &format!("{at}.resourceNames"),
                &strings_value(&gr.resource_names),
                "using resourceNames requires at least one resource",
            ));
        }
    }
    errors
}

fn omit_stages(stages: &[String], at: &str) -> Vec<FieldError> {
    let allowed = format!("allowed stages are {}", STAGES.join(","));
    stages
        .iter()
        .enumerate()
        .filter(|(_, stage)| !STAGES.contains(&stage.as_str()))
        .map(|(i, stage)| {
            FieldError::invalid(
                &format!("{at}[{i}]"),
                &Value::String(stage.clone()),
                &allowed,
            )
        })
        .collect()
}

fn strings_value(items: &[String]) -> Value {
    Value::Array(items.iter().cloned().map(Value::String).collect())
}
