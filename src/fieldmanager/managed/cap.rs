//! The cap on `Update` entries (`capManagersManager`): past the maximum, the oldest
//! update entries merge, per apiVersion, into an `ancient-changes` entry.

use std::collections::BTreeMap;

use super::decode::Managed;
use super::entry::{ManagedFieldsEntry, Operation, unix_seconds};
use super::identifier::build_manager_identifier;
use crate::fieldmanager::fieldpath::VersionedSet;

/// `DefaultMaxUpdateManagers`.
pub const DEFAULT_MAX_UPDATE_MANAGERS: usize = 10;

/// The manager name of the merged bucket entries.
pub const ANCIENT_CHANGES: &str = "ancient-changes";

/// `capUpdateManagers`: when more than `max` managers are not appliers, walk them oldest
/// first (time in seconds, then identifier); the first one seen per apiVersion stays
/// put until a second one of that version comes, then both go into that version's
/// `ancient-changes` bucket (which takes the newer one's time), until at most `max`
/// remain.
pub fn cap_update_managers(managed: &mut Managed, max: usize) {
    let secs = |m: &String| {
        managed
            .times
            .get(m)
            .copied()
            .flatten()
            .map_or(0, unix_seconds)
    };
    let mut updaters: Vec<(i64, String)> = managed
        .fields
        .iter()
        .filter(|(_, vs)| !vs.applied)
        .map(|(m, _)| (secs(m), m.clone()))
        .collect();
    if updaters.len() <= max {
        return;
    }
    updaters.sort();

    let mut first_of_version: BTreeMap<String, String> = BTreeMap::new();
    let mut length = updaters.len();
    for (_, manager) in updaters {
        if length <= max {
            break;
        }
        let Some(vs) = managed.fields.get(&manager).cloned() else {
            continue;
        };
        let time = managed.times.get(&manager).copied().flatten();
        let version = vs.api_version.clone();
        let bucket = build_manager_identifier(&ManagedFieldsEntry {
            manager: ANCIENT_CHANGES.to_string(),
            operation: Operation::Update,
            api_version: version.clone(),
            ..ManagedFieldsEntry::default()
        });
        let Some(first) = first_of_version.get(&version) else {
            first_of_version.insert(version, manager);
            continue;
        };
        if managed.fields.get(&bucket).is_none()
            && let Some(first_set) = managed.fields.remove(first)
        {
            managed.fields.insert(bucket.clone(), first_set);
        }
        let merged = match managed.fields.get(&bucket) {
            Some(existing) => vs.set.union(&existing.set),
            None => vs.set.clone(),
        };
        managed.fields.insert(
            bucket.clone(),
            VersionedSet::new(merged, vs.api_version.clone(), vs.applied),
        );
        managed.fields.remove(&manager);
        length -= 1;
        managed.times.insert(bucket, time);
    }
}
