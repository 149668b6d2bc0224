//! kube's `ValidateEncryptionConfiguration` (k8s.io/apiserver
//! `pkg/apis/apiserver/validation/validation_encryption.go`), every text verbatim, the
//! field errors rendered as apimachinery's `field.Error` and aggregated as
//! `ToAggregate` does.

use base64::Engine;

use super::config::{EncryptionConfiguration, Keys, Kms, ProviderConfiguration};

const MORE_THAN_ONE: &str = "more than one provider specified in a single element, should split into different list elements";
const NO_PROVIDER: &str = "provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity";
const BASE64: &str = "secrets must be base64 encoded";
const EVENTS_GROUP: &str = "'*.events.k8s.io' objects are stored using the 'events' API group in etcd. Use 'events' instead in the config file";
const EXTENSIONS_GROUP: &str =
    "'extensions' group has been removed and cannot be used for encryption";
const STAR_RESOURCE: &str =
    "use '*.' to encrypt all the resources from core API group or *.* to encrypt all resources";
const OVERLAP: &str = "using overlapping resources such as 'secrets' and '*.' in the same resource list is not allowed as they will be masked";
const NON_REST: &str = "resources which do not have REST API/s cannot be encrypted";
const CAPITAL: &str = "resource name should not contain capital letters";
const ACROSS_GROUPS: &str = "encrypting the same resource across groups is not supported";
const DUPLICATE: &str = "the same resource cannot be specified multiple times";

const AES_KEY_SIZES: &[usize] = &[16, 24, 32];
const SECRETBOX_KEY_SIZES: &[usize] = &[32];

/// One `field.Error`, rendered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldError(pub String);

fn required(path: &str, detail: &str) -> FieldError {
    FieldError(format!("{path}: Required value: {detail}"))
}

/// `value` already rendered as Go's `field.Error` renders it.
fn invalid(path: &str, value: &str, detail: &str) -> FieldError {
    FieldError(format!("{path}: Invalid value: {value}: {detail}"))
}

fn quoted(s: &str) -> String {
    crate::gofmt::quote(s)
}

/// Go's `%#v` of a `[]string`.
fn string_slice(items: &[String]) -> String {
    let inner: Vec<String> = items.iter().map(|s| quoted(s)).collect();
    format!("[]string{{{}}}", inner.join(", "))
}

/// apimachinery's `ToAggregate().Error()`: `None` without errors, one as itself, several
/// as `[a, b]` (repeated texts once).
pub fn aggregate(errors: &[FieldError]) -> Option<String> {
    let mut seen: Vec<&str> = Vec::new();
    for e in errors {
        if !seen.contains(&e.0.as_str()) {
            seen.push(&e.0);
        }
    }
    match seen.len() {
        0 => None,
        1 => Some(seen[0].to_string()),
        _ => Some(format!("[{}]", seen.join(", "))),
    }
}

/// kube's `ParseGroupResource`: `plural.group` split at the first dot.
pub fn parse_group_resource(text: &str) -> (String, String) {
    match text.split_once('.') {
        Some((resource, group)) => (group.to_string(), resource.to_string()),
        None => (String::new(), text.to_string()),
    }
}

/// Every problem of the configuration (none: valid).
pub fn validate(config: &EncryptionConfiguration) -> Vec<FieldError> {
    if config.resources.is_empty() {
        return vec![required("resources", "at least one resources is required")];
    }
    let mut errors = Vec::new();
    let mut kms_names: Vec<String> = Vec::new();
    for (i, entry) in config.resources.iter().enumerate() {
        let r = format!("resources[{i}].resources");
        let p = format!("resources[{i}].providers");
        if entry.resources.is_empty() {
            errors.push(required(&r, &format!("at least one {r} is required")));
        }
        errors.extend(overlap(&entry.resources, &r));
        errors.extend(names(&entry.resources, &r));
        if entry.providers.is_empty() {
            errors.push(required(&p, &format!("at least one {p} is required")));
        }
        for (j, provider) in entry.providers.iter().enumerate() {
            let path = format!("{p}[{j}]");
            errors.extend(single(provider, &path));
            match provider {
                ProviderConfiguration { kms: Some(kms), .. } => {
                    errors.extend(kms_config(kms, &format!("{path}.kms"), &kms_names));
                    kms_names.push(kms.name.clone());
                }
                ProviderConfiguration {
                    aesgcm: Some(keys), ..
                } => errors.extend(key_list(
                    keys,
                    &format!("{path}.aesgcm.keys"),
                    AES_KEY_SIZES,
                )),
                ProviderConfiguration {
                    aescbc: Some(keys), ..
                } => errors.extend(key_list(
                    keys,
                    &format!("{path}.aescbc.keys"),
                    AES_KEY_SIZES,
                )),
                ProviderConfiguration {
                    secretbox: Some(keys),
                    ..
                } => errors.extend(key_list(
                    keys,
                    &format!("{path}.secretbox.keys"),
                    SECRETBOX_KEY_SIZES,
                )),
                _ => {}
            }
        }
    }
    errors
}

/// kube's `validateResourceOverlap`.
fn overlap(resources: &[String], path: &str) -> Vec<FieldError> {
    if resources.len() < 2 {
        return Vec::new();
    }
    let parsed: Vec<(String, String)> = resources.iter().map(|r| parse_group_resource(r)).collect();
    let (mut has_overlap, mut has_duplicate) = (false, false);
    for (i, r1) in parsed.iter().enumerate() {
        for (j, r2) in parsed.iter().enumerate() {
            if i == j {
                continue;
            }
            if r1 == r2 && !has_duplicate {
                has_duplicate = true;
                continue;
            }
            if has_overlap {
                continue;
            }
            if r1.0 == "*" && r1.1 == "*" {
                has_overlap = true;
                continue;
            }
            if r1.0 != r2.0 {
                continue;
            }
            if r1.1 == "*" || r2.1 == "*" {
                has_overlap = true;
            }
        }
    }
    let value = string_slice(resources);
    let mut errors = Vec::new();
    if has_duplicate {
        errors.push(invalid(path, &value, DUPLICATE));
    }
    if has_overlap {
        errors.push(invalid(path, &value, OVERLAP));
    }
    errors
}

/// kube's `validateResourceNames`: the first rule a name breaks.
fn names(resources: &[String], path: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    for (j, res) in resources.iter().enumerate() {
        let (group, resource) = parse_group_resource(res);
        let detail = if res.to_lowercase() != *res {
            CAPITAL
        } else if res == "*" {
            STAR_RESOURCE
        } else if [
            "apiserveripinfo",
            "serviceipallocations",
            "servicenodeportallocations",
        ]
        .contains(&res.as_str())
        {
            NON_REST
        } else if group == "events.k8s.io" {
            EVENTS_GROUP
        } else if group == "extensions" {
            EXTENSIONS_GROUP
        } else if group == "*" && resource != "*" {
            ACROSS_GROUPS
        } else {
            continue;
        };
        errors.push(invalid(&format!("{path}[{j}]"), &quoted(res), detail));
    }
    errors
}

/// kube's `validateSingleProvider`; the provider is shown by its members set.
fn single(provider: &ProviderConfiguration, path: &str) -> Vec<FieldError> {
    let set: Vec<&str> = [
        (provider.kms.is_some(), "KMS"),
        (provider.aesgcm.is_some(), "AESGCM"),
        (provider.aescbc.is_some(), "AESCBC"),
        (provider.secretbox.is_some(), "Secretbox"),
        (provider.identity.is_some(), "Identity"),
    ]
    .iter()
    .filter(|(present, _)| *present)
    .map(|(_, name)| *name)
    .collect();
    let shown = format!("apiserver.ProviderConfiguration{{{}}}", set.join(", "));
    match set.len() {
        0 => vec![invalid(path, &shown, NO_PROVIDER)],
        1 => Vec::new(),
        _ => vec![invalid(path, &shown, MORE_THAN_ONE)],
    }
}

/// kube's `validateKeys` and `validateKey`.
fn key_list(keys: &Keys, path: &str, sizes: &[usize]) -> Vec<FieldError> {
    if keys.keys.is_empty() {
        return vec![required(path, "at least one keys is required")];
    }
    let mut errors = Vec::new();
    for (i, key) in keys.keys.iter().enumerate() {
        let at = format!("{path}[{i}]");
        if key.name.is_empty() {
            errors.push(required(
                &format!("{at}.name"),
                "name is a mandatory field for a key",
            ));
        }
        let secret_path = format!("{at}.secret");
        if key.secret.is_empty() {
            errors.push(required(
                &secret_path,
                "secret is a mandatory field for a key",
            ));
            continue;
        }
        let Ok(secret) = base64::engine::general_purpose::STANDARD.decode(&key.secret) else {
            errors.push(invalid(&secret_path, "\"REDACTED\"", BASE64));
            continue;
        };
        if !sizes.contains(&secret.len()) {
            let want: Vec<String> = sizes.iter().map(|s| s.to_string()).collect();
            let detail = format!(
                "secret is not of the expected length, got {}, expected one of [{}]",
                secret.len(),
                want.join(" ")
            );
            errors.push(invalid(&secret_path, "\"REDACTED\"", &detail));
        }
    }
    errors
}

/// kube's `validateKMSConfiguration` (with reload off: v1 names may repeat).
fn kms_config(kms: &Kms, path: &str, names: &[String]) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let name_path = format!("{path}.name");
    if kms.name.is_empty() {
        errors.push(required(
            &name_path,
            "name is a mandatory field for a provider",
        ));
    }
    if kms.api_version != "v1" && kms.name.contains(':') {
        let detail = format!(
            "invalid KMS provider name {}, must not contain ':'",
            kms.name
        );
        errors.push(invalid(&name_path, &quoted(&kms.name), &detail));
    }
    if kms.api_version != "v1" && names.contains(&kms.name) {
        let detail = format!(
            "duplicate KMS provider name {}, names must be unique",
            kms.name
        );
        errors.push(invalid(&name_path, &quoted(&kms.name), &detail));
    }
    let timeout = kms.timeout.as_deref().unwrap_or_default();
    let positive = crate::gofmt::parse_duration_nanos(timeout).is_ok_and(|n| n > 0);
    if !positive {
        let detail = "timeout should be a positive value";
        errors.push(invalid(&format!("{path}.timeout"), timeout, detail));
    }
    errors.extend(kms_endpoint(kms, &format!("{path}.endpoint")));
    let cache = format!("{path}.cachesize");
    match kms.cachesize {
        Some(size) if kms.api_version != "v1" => errors.push(invalid(
            &cache,
            &size.to_string(),
            "cachesize is not supported in v2",
        )),
        Some(0) => errors.push(invalid(
            &cache,
            "0",
            "cachesize should be a positive value, or negative to disable",
        )),
        _ => {}
    }
    if kms.api_version != "v1" && kms.api_version != "v2" {
        errors.push(invalid(
            &format!("{path}.apiVersion"),
            &quoted(&kms.api_version),
            "unsupported apiVersion apiVersion for KMS provider, only v1 and v2 are supported",
        ));
    }
    errors
}

/// kube's `validateKMSEndpoint`: a `unix://` URL.
fn kms_endpoint(kms: &Kms, path: &str) -> Option<FieldError> {
    if kms.endpoint.is_empty() {
        return Some(invalid(
            path,
            "\"\"",
            "endpoint is a mandatory field for a kms",
        ));
    }
    let value = quoted(&kms.endpoint);
    match crate::gofmt::parse_url(&kms.endpoint) {
        Err(e) => Some(invalid(
            path,
            &value,
            &format!("invalid endpoint for kms provider, error: {e}"),
        )),
        Ok(url) if url.scheme != "unix" => Some(invalid(
            path,
            &value,
            &format!(
                "unsupported scheme {} for KMS provider, only unix is supported",
                quoted(&url.scheme)
            ),
        )),
        Ok(_) => None,
    }
}
