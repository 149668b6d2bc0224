//! Manager identifiers (the keys of [`crate::fieldmanager::fieldpath::ManagedFields`]) and
//! the manager name of a request (`fieldManager`, else the User-Agent's prefix).

use serde_json::Value;

use super::{ManagedFieldsEntry, Operation};
use crate::gofmt::{is_print, json_string};

/// `validation.FieldManagerMaxLength`.
pub const FIELD_MANAGER_MAX_LENGTH: usize = 128;

/// `BuildManagerIdentifier`: the entry's `json.Marshal` without fieldsType, fieldsV1 and
/// time, and without apiVersion for appliers (so an applier keeps one entry across
/// versions): `{"manager":"m","operation":"Update","apiVersion":"v1","subresource":"s"}`.
pub fn build_manager_identifier(entry: &ManagedFieldsEntry) -> String {
    let api_version = match entry.operation {
        Operation::Apply => "",
        _ => entry.api_version.as_str(),
    };
    let fields = [
        ("manager", entry.manager.as_str()),
        ("operation", entry.operation.as_str()),
        ("apiVersion", api_version),
        ("subresource", entry.subresource.as_str()),
    ];
    // One buffer: every create and update builds an identifier.
    let mut out = String::with_capacity(96);
    out.push('{');
    for (k, v) in fields.iter().filter(|(_, v)| !v.is_empty()) {
        if out.len() > 1 {
            out.push(',');
        }
        out.push('"');
        out.push_str(k);
        out.push_str("\":");
        out.push_str(&json_string(v));
    }
    out.push('}');
    out
}

/// `buildManagerInfoManager.buildManagerInfo`: the identifier of a request's manager
/// (`"unknown"` when the name is empty) for the operation, the request's group/version
/// (`group/version`, or `version` for the core group) and subresource.
pub fn manager_info(
    name: &str,
    operation: Operation,
    group_version: &str,
    subresource: &str,
) -> String {
    build_manager_identifier(&ManagedFieldsEntry {
        manager: if name.is_empty() { "unknown" } else { name }.to_string(),
        operation,
        api_version: group_version.to_string(),
        subresource: subresource.to_string(),
        ..ManagedFieldsEntry::default()
    })
}

/// The entry fields an identifier carries (`encodeManagerVersionedSet` unmarshals the key
/// back into an entry). Unknown or malformed keys give an empty entry.
pub fn parse_manager_identifier(identifier: &str) -> ManagedFieldsEntry {
    let Ok(Value::Object(map)) = serde_json::from_str::<Value>(identifier) else {
        return ManagedFieldsEntry::default();
    };
    let text = |k: &str| map.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    ManagedFieldsEntry {
        manager: text("manager"),
        operation: Operation::parse(&text("operation")),
        api_version: text("apiVersion"),
        subresource: text("subresource"),
        ..ManagedFieldsEntry::default()
    }
}

/// `managerOrUserAgent`: the `fieldManager` parameter, else the User-Agent's prefix.
pub fn manager_or_user_agent(field_manager: &str, user_agent: &str) -> String {
    if field_manager.is_empty() {
        prefix_from_user_agent(user_agent)
    } else {
        field_manager.to_string()
    }
}

/// `prefixFromUserAgent`: the text before the first `/`, without unprintable characters,
/// cut at a character boundary to at most 128 bytes (`kubectl/v1.36.0 (linux/amd64)` →
/// `kubectl`).
pub fn prefix_from_user_agent(user_agent: &str) -> String {
    let head = user_agent.split('/').next().unwrap_or("");
    let mut out = String::new();
    for c in head.chars().filter(|c| is_print(*c)) {
        if out.len() + c.len_utf8() > FIELD_MANAGER_MAX_LENGTH {
            break;
        }
        out.push(c);
    }
    out
}

/// Why `ValidateFieldManager` rejects a manager name, as field-error details: `TooLong`
/// past 128 bytes, then one `Invalid` per unprintable character (`invalid character
/// U+0007 (at position 3)`, the position in bytes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FieldManagerError {
    TooLong { max: usize },
    Invalid { detail: String },
}

pub fn validate_field_manager(name: &str) -> Vec<FieldManagerError> {
    let mut errs = Vec::new();
    if name.len() > FIELD_MANAGER_MAX_LENGTH {
        errs.push(FieldManagerError::TooLong {
            max: FIELD_MANAGER_MAX_LENGTH,
        });
    }
    for (i, c) in name.char_indices() {
        if !is_print(c) {
            errs.push(FieldManagerError::Invalid {
                detail: format!("invalid character {} (at position {i})", go_sharp_u(c)),
            });
        }
    }
    errs
}

/// Go's `%#U`: `U+0041 'A'`, the quoted form only for printable characters.
fn go_sharp_u(c: char) -> String {
    let code = format!("U+{:04X}", u32::from(c));
    if is_print(c) {
        format!("{code} '{c}'")
    } else {
        code
    }
}
