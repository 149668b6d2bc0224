//! `metadata.managedFields` to per-manager field sets and back (`DecodeManagedFields`,
//! `encodeManagedFields`), and which managedFields a write starts from
//! (`decodeLiveOrNew`, with the `managedFields: [{}]` reset).

use std::collections::BTreeMap;

use jiff::Timestamp;

use super::entry::{ManagedFieldsEntry, Operation, unix_seconds};
use super::identifier::{build_manager_identifier, parse_manager_identifier};
use crate::fieldmanager::fieldpath::{ManagedFields, Set, VersionedSet};

/// The decoded form the manager chain works on: what each manager owns, and when it
/// last changed (upstream's `ManagedInterface`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Managed {
    pub fields: ManagedFields,
    pub times: BTreeMap<String, Option<Timestamp>>,
}

/// `DecodeManagedFields`: every entry must have operation `Apply` or `Update`, an
/// apiVersion, fieldsType `FieldsV1` and a readable `fieldsV1`. Entries with the same
/// identifier: the last wins.
pub fn decode_managed_fields(entries: &[ManagedFieldsEntry]) -> Result<Managed, String> {
    let mut managed = Managed::default();
    for (i, entry) in entries.iter().enumerate() {
        if !matches!(entry.operation, Operation::Apply | Operation::Update) {
            return Err("operation must be `Apply` or `Update`".to_string());
        }
        if entry.api_version.is_empty() {
            return Err("apiVersion must not be empty".to_string());
        }
        match entry.fields_type.as_str() {
            "FieldsV1" => {}
            "" => return Err(format!("missing fieldsType in managed fields entry {i}")),
            other => {
                return Err(format!(
                    "invalid fieldsType {} in managed fields entry {i}",
                    crate::gofmt::quote(other)
                ));
            }
        }
        let manager = build_manager_identifier(entry);
        let set = match &entry.fields_v1 {
            None => Set::new(),
            Some(v) => Set::from_fields_v1(v)
                .map_err(|e| format!("error decoding versioned set: error decoding set: {e}"))?,
        };
        let applied = entry.operation == Operation::Apply;
        managed.fields.insert(
            manager.clone(),
            VersionedSet::new(set, entry.api_version.clone(), applied),
        );
        managed.times.insert(manager, entry.time);
    }
    Ok(managed)
}

/// `encodeManagedFields`: one entry per manager (name, operation and subresource from its
/// identifier; apiVersion, `Apply` when applied, and fieldsV1 from its set; its time),
/// in [`sort_entries`] order. No managers: no entries.
pub fn encode_managed_fields(managed: &Managed) -> Vec<ManagedFieldsEntry> {
    let mut out: Vec<ManagedFieldsEntry> = managed
        .fields
        .iter()
        .map(|(manager, vs)| {
            let mut entry = parse_manager_identifier(manager);
            entry.api_version = vs.api_version.clone();
            if vs.applied {
                entry.operation = Operation::Apply;
            }
            entry.fields_type = "FieldsV1".to_string();
            entry.fields_v1 = Some(vs.set.to_fields_v1());
            entry.time = managed.times.get(manager).copied().flatten();
            entry
        })
        .collect();
    sort_entries(&mut out);
    out
}

/// `sortEncodedManagedFields`: by operation (`Apply` before `Update`), time in whole
/// seconds (none counts as the epoch), manager, apiVersion, subresource.
pub fn sort_entries(entries: &mut [ManagedFieldsEntry]) {
    entries.sort_by(|p, q| {
        let secs = |e: &ManagedFieldsEntry| e.time.map_or(0, unix_seconds);
        p.operation
            .as_str()
            .cmp(q.operation.as_str())
            .then_with(|| secs(p).cmp(&secs(q)))
            .then_with(|| p.manager.cmp(&q.manager))
            .then_with(|| p.api_version.cmp(&q.api_version))
            .then_with(|| p.subresource.cmp(&q.subresource))
    });
}

/// `isResetManagedFields`: an empty list, or a list of one empty entry, asks to clear
/// managedFields.
pub fn is_reset_managed_fields(entries: Option<&[ManagedFieldsEntry]>) -> bool {
    match entries {
        None => false,
        Some([]) => true,
        Some([only]) => *only == ManagedFieldsEntry::default(),
        Some(_) => false,
    }
}

/// `decodeLiveOrNew`: the managedFields a write starts from. Subresource writes keep
/// the live object's; a reset request starts empty; otherwise the request's own when
/// they decode and are not empty, else the live object's (so clients unaware of
/// managedFields do not drop them). Anything undecodable counts as empty.
pub fn decode_live_or_new(
    live: Option<&[ManagedFieldsEntry]>,
    new: Option<&[ManagedFieldsEntry]>,
    ignore_request: bool,
) -> Managed {
    let decode_live = || decode_managed_fields(live.unwrap_or_default()).unwrap_or_default();
    if ignore_request {
        return decode_live();
    }
    if is_reset_managed_fields(new) {
        return Managed::default();
    }
    match decode_managed_fields(new.unwrap_or_default()) {
        Ok(managed) if !managed.fields.is_empty() => managed,
        _ => decode_live(),
    }
}
