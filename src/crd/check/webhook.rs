//! A webhook's client config as kube checks it (`k8s.io/apiserver/pkg/util/webhook`
//! `ValidateWebhookURL` and `ValidateWebhookService`), with its texts.

use serde_json::{Value, json};

use super::invalid;
use crate::error::FieldError;
use crate::gofmt::parse_url;
use crate::validation::is_dns1123_subdomain;

const FORM: &str = "; desired format: https://host[/path]";

/// `ValidateWebhookURL`: a URL Go parses, with a host, without user information,
/// fragment or query; `force_https` requires the `https` scheme.
pub(super) fn check_url(field: &str, url: &str, force_https: bool) -> Vec<FieldError> {
    let parsed = match parse_url(url) {
        Ok(parsed) => parsed,
        Err(error) => {
            let detail = format!("url must be a valid URL: {error}{FORM}");
            return vec![FieldError::required(field, &detail)];
        }
    };
    let mut errors = Vec::new();
    if force_https && parsed.scheme != "https" {
        let detail = format!("'https' is the only allowed URL scheme{FORM}");
        errors.push(invalid(field, &parsed.scheme, &detail));
    }
    if parsed.host.is_empty() {
        let detail = format!("host must be specified{FORM}");
        errors.push(invalid(field, "", &detail));
    }
    if let Some(user) = &parsed.user {
        errors.push(invalid(
            field,
            user,
            "user information is not permitted in the URL",
        ));
    }
    if !parsed.fragment.is_empty() {
        let detail = "fragments are not permitted in the URL";
        errors.push(invalid(field, &parsed.fragment, detail));
    }
    if !parsed.raw_query.is_empty() {
        let detail = "query parameters are not permitted in the URL";
        errors.push(invalid(field, &parsed.raw_query, detail));
    }
    errors
}

/// `ValidateWebhookService(fldPath, namespace, name, path, port)`, parameters in kube's
/// order. Every caller in kube passes the service's NAME as `namespace` and its
/// NAMESPACE as `name`, so an empty `service.namespace` is reported at `service.name`
/// and the other way round; callers here do the same, to give kube's answer.
pub(super) fn check_service(
    field: &str,
    namespace: &str,
    name: &str,
    path: Option<&str>,
    port: i32,
) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if name.is_empty() {
        errors.push(FieldError::required(&format!("{field}.name"), ""));
    }
    if namespace.is_empty() {
        errors.push(FieldError::required(&format!("{field}.namespace"), ""));
    }
    if !(1..=65535).contains(&port) {
        errors.push(FieldError::invalid(
            &format!("{field}.port"),
            &json!(port),
            "port is not valid: must be between 1 and 65535, inclusive",
        ));
    }
    if let Some(path) = path {
        errors.extend(check_path(&format!("{field}.path"), path));
    }
    errors
}

/// The service path: `/`-separated DNS-1123 subdomains.
fn check_path(field: &str, path: &str) -> Vec<FieldError> {
    if path.is_empty() || path == "/" {
        return Vec::new();
    }
    let bad = |detail: &str| FieldError::invalid(field, &Value::String(path.into()), detail);
    if path == "//" {
        return vec![bad("segment[0] may not be empty")];
    }
    let mut errors = Vec::new();
    if !path.starts_with('/') {
        errors.push(bad("must start with a '/'"));
    }
    // kube drops the first byte whether or not it is the '/'; what is left of a
    // multi-byte character stays in the first segment (here as U+FFFD) and fails it.
    let after_first = String::from_utf8_lossy(path.as_bytes().get(1..).unwrap_or_default());
    let rest = after_first.strip_suffix('/').unwrap_or(&after_first);
    for (i, step) in rest.split('/').enumerate() {
        if step.is_empty() {
            errors.push(bad(&format!("segment[{i}] may not be empty")));
            continue;
        }
        for failure in is_dns1123_subdomain(step) {
            errors.push(bad(&format!("segment[{i}]: {failure}")));
        }
    }
    errors
}

#[cfg(test)]
#[path = "webhook_tests.rs"]
mod tests;
