//! The bad values of the configuration's field errors as apimachinery prints them
//! (`field.Error.ErrorBody`, k8s.io/apimachinery v0.36): a string `%q`, an int `%v`, and
//! anything else `json.Marshal`ed; kube's internal `apiserver` types have no JSON tags, so
//! their members appear under their Go names, in declaration order, `null` when unset.

use crate::gofmt::{format_duration, json_string, parse_duration_nanos};

use super::config::{Keys, Kms, ProviderConfiguration};

/// A `[]string` (`["a","*.*"]`).
pub fn strings(items: &[String]) -> String {
    let inner: Vec<String> = items.iter().map(|s| json_string(s)).collect();
    format!("[{}]", inner.join(","))
}

/// A `metav1.Duration`: its `time.Duration.String` as a JSON string (`"0s"`); a text Go
/// could not have decoded is shown as written.
pub fn duration(text: &str) -> String {
    match parse_duration_nanos(text) {
        Ok(nanos) => json_string(&format_duration(nanos)),
        Err(_) => json_string(text),
    }
}

/// An `apiserver.ProviderConfiguration` (`{"AESGCM":null,…,"KMS":null}`).
pub fn provider(p: &ProviderConfiguration) -> String {
    let or_null = |v: Option<String>| v.unwrap_or_else(|| "null".into());
    format!(
        "{{\"AESGCM\":{},\"AESCBC\":{},\"Secretbox\":{},\"Identity\":{},\"KMS\":{}}}",
        or_null(p.aesgcm.as_ref().map(keys)),
        or_null(p.aescbc.as_ref().map(keys)),
        or_null(p.secretbox.as_ref().map(keys)),
        or_null(p.identity.as_ref().map(|_| "{}".into())),
        or_null(p.kms.as_ref().map(kms)),
    )
}

/// An `AESConfiguration` or `SecretboxConfiguration`: the secrets in clear, as kube's
/// `json.Marshal` writes them (`Key.String` redacts, but JSON does not call it). No keys
/// shows as a nil slice, as a file without `keys` decodes.
fn keys(k: &Keys) -> String {
    if k.keys.is_empty() {
        return "{\"Keys\":null}".into();
    }
    let items: Vec<String> = k
        .keys
        .iter()
        .map(|key| {
            format!(
                "{{\"Name\":{},\"Secret\":{}}}",
                json_string(&key.name),
                json_string(&key.secret)
            )
        })
        .collect();
    format!("{{\"Keys\":[{}]}}", items.join(","))
}

/// A defaulted `KMSConfiguration`.
fn kms(k: &Kms) -> String {
    let cache = k.cachesize.map_or_else(|| "null".into(), |n| n.to_string());
    let timeout = k.timeout.as_deref().map_or_else(|| "null".into(), duration);
    format!(
        "{{\"APIVersion\":{},\"Name\":{},\"CacheSize\":{cache},\"Endpoint\":{},\"Timeout\":{timeout}}}",
        json_string(&k.api_version),
        json_string(&k.name),
        json_string(&k.endpoint),
    )
}
