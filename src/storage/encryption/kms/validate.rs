//! kube's checks of what a KMS v2 plugin returns and of a stored `EncryptedObject`
//! (`ValidateEncryptedObject`, `ValidateKeyID`, the 1 kB and 32 kB bounds, annotation keys
//! as fully qualified domain names), with kube's texts; the DEK source cache key
//! (`generateCacheKey`) and the key ID hash metrics and messages show.

use std::collections::BTreeMap;

use ring::digest::{SHA256, digest};

use super::api::{EncryptedDekSourceType, EncryptedObject};
use crate::gofmt::quote;
use crate::validation::dns::{is_dns1123_label, is_dns1123_subdomain};

const ANNOTATIONS_MAX_SIZE: usize = 32 * 1024;
const KEY_ID_MAX_SIZE: usize = 1024;
const ENCRYPTED_DEK_SOURCE_MAX_SIZE: usize = 1024;

/// kube's key ID error codes (the `error` label of
/// `apiserver_envelope_encryption_invalid_key_id_from_status_total`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyIdError {
    Empty,
    TooLong,
}

impl KeyIdError {
    pub fn code(self) -> &'static str {
        match self {
            KeyIdError::Empty => "empty",
            KeyIdError::TooLong => "too_long",
        }
    }
}

/// kube's `ValidateKeyID`.
pub fn key_id(key_id: &str) -> Result<(), (KeyIdError, String)> {
    if key_id.is_empty() {
        return Err((KeyIdError::Empty, "keyID is empty".to_owned()));
    }
    if key_id.len() > KEY_ID_MAX_SIZE {
        return Err((
            KeyIdError::TooLong,
            format!(
                "keyID is {} bytes, which exceeds the max size of {KEY_ID_MAX_SIZE}",
                key_id.len()
            ),
        ));
    }
    Ok(())
}

/// kube's `ValidateEncryptedObject`: the source type known, data present, the DEK source,
/// key ID and annotations within bounds.
pub fn encrypted_object(o: &EncryptedObject) -> Result<EncryptedDekSourceType, String> {
    let kind = EncryptedDekSourceType::try_from(o.encrypted_dek_source_type).map_err(|_| {
        format!(
            "unknown encryptedDEKSourceType: {}",
            o.encrypted_dek_source_type
        )
    })?;
    if o.encrypted_data.is_empty() {
        return Err("encrypted data is empty".to_owned());
    }
    dek_source(&o.encrypted_dek_source)
        .map_err(|e| format!("failed to validate encrypted DEK source: {e}"))?;
    key_id(&o.key_id).map_err(|(_, e)| format!("failed to validate key id: {e}"))?;
    annotations(&o.annotations).map_err(|e| format!("failed to validate annotations: {e}"))?;
    Ok(kind)
}

fn dek_source(source: &[u8]) -> Result<(), String> {
    if source.is_empty() {
        return Err("encrypted DEK source is empty".to_owned());
    }
    if source.len() > ENCRYPTED_DEK_SOURCE_MAX_SIZE {
        return Err(format!(
            "encrypted DEK source is {} bytes, which exceeds the max size of {ENCRYPTED_DEK_SOURCE_MAX_SIZE}",
            source.len()
        ));
    }
    Ok(())
}

fn annotations(annotations: &BTreeMap<String, Vec<u8>>) -> Result<(), String> {
    let mut errs: Vec<String> = annotations
        .keys()
        .filter_map(|k| fully_qualified_domain_name("annotations", k))
        .collect();
    let total: usize = annotations.iter().map(|(k, v)| k.len() + v.len()).sum();
    if total > ANNOTATIONS_MAX_SIZE {
        errs.push(format!(
            "total size of annotations is {total}, which exceeds the max size of {ANNOTATIONS_MAX_SIZE}"
        ));
    }
    aggregate(errs).map_or(Ok(()), Err)
}

/// apimachinery's `IsFullyQualifiedDomainName` as one field error's text.
fn fully_qualified_domain_name(path: &str, name: &str) -> Option<String> {
    if name.is_empty() {
        return Some(format!("{path}: Required value"));
    }
    let name = name.strip_suffix('.').unwrap_or(name);
    let invalid = |value: &str, errs: Vec<String>| {
        format!(
            "{path}: Invalid value: {}: {}",
            quote(value),
            errs.join(",")
        )
    };
    let errs = is_dns1123_subdomain(name);
    if !errs.is_empty() {
        return Some(invalid(name, errs));
    }
    if name.split('.').count() < 2 {
        return Some(invalid(
            name,
            vec!["should be a domain with at least two segments separated by dots".to_owned()],
        ));
    }
    name.split('.').find_map(|label| {
        let errs = is_dns1123_label(label);
        (!errs.is_empty()).then(|| invalid(label, errs))
    })
}

/// apimachinery's aggregate error text: one message as is, several (deduplicated) as
/// `[a, b]`; none is no error.
pub fn aggregate(errs: Vec<String>) -> Option<String> {
    let mut seen: Vec<String> = Vec::with_capacity(errs.len());
    for e in errs {
        if !seen.contains(&e) {
            seen.push(e);
        }
    }
    match seen.len() {
        0 => None,
        1 => seen.pop(),
        _ => Some(format!("[{}]", seen.join(", "))),
    }
}

/// kube's `generateCacheKey`: type, DEK source, key ID and the sorted annotations, each
/// length-prefixed, hashed (as kube's cache hashes it) to a fixed-size key.
pub fn cache_key(
    kind: EncryptedDekSourceType,
    source: &[u8],
    key_id: &str,
    annotations: &BTreeMap<String, Vec<u8>>,
) -> [u8; 32] {
    let mut b = Vec::with_capacity(4 + 2 + source.len() + 2 + key_id.len());
    b.extend_from_slice(&(kind as u32).to_be_bytes());
    push_u16_prefixed(&mut b, source);
    push_u16_prefixed(&mut b, key_id.as_bytes());
    if !annotations.is_empty() {
        b.extend_from_slice(&(annotations.len() as u32).to_be_bytes());
        for (k, v) in annotations {
            push_u16_prefixed(&mut b, k.as_bytes());
            push_u16_prefixed(&mut b, v);
        }
    }
    let mut key = [0u8; 32];
    key.copy_from_slice(digest(&SHA256, &b).as_ref());
    key
}

/// Lengths are bounded by the checks above (1 kB, 32 kB), so they fit in a u16.
fn push_u16_prefixed(b: &mut Vec<u8>, bytes: &[u8]) {
    let len = u16::try_from(bytes.len()).unwrap_or(u16::MAX);
    b.extend_from_slice(&len.to_be_bytes());
    b.extend_from_slice(bytes);
}

/// kube's `GetHashIfNotEmpty`: `sha256:<hex>`, or empty.
pub fn hash_if_not_empty(data: &str) -> String {
    if data.is_empty() {
        return String::new();
    }
    let sum = digest(&SHA256, data.as_bytes());
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for byte in sum.as_ref() {
        out.push_str(&format!("{byte:02x}"));
    }
    out
}

#[cfg(test)]
#[path = "validate_tests.rs"]
mod tests;
