//! The steps of kube's manager chain around the structured merge that need no schema:
//! the time rule (`managedFieldsUpdater`) and the metadata fields no manager may own
//! (`stripMetaManager`).

use std::sync::LazyLock;

use jiff::Timestamp;

use super::decode::Managed;
use crate::fieldmanager::fieldpath::{PathElement, Set, VersionedSet};

/// The identifier an update runs under, so that only the fields it changed are
/// attributed to it (`managedFieldsUpdater.Update`).
pub const CURRENT_OPERATION: &str = "current-operation";

/// After an update ran as [`CURRENT_OPERATION`]: if it took any fields, they join the
/// manager's entry (its set, united with the previous one, in the update's version) and
/// the manager's time becomes `now`; an update that changed nothing leaves the entry and
/// its time alone.
pub fn finish_update(managed: &mut Managed, manager: &str, now: Timestamp) {
    let Some(current) = managed.fields.remove(CURRENT_OPERATION) else {
        return;
    };
    let merged = match managed.fields.get(manager) {
        Some(previous) => VersionedSet::new(
            current.set.union(&previous.set),
            current.api_version,
            current.applied,
        ),
        None => current,
    };
    managed.fields.insert(manager, merged);
    managed.times.insert(manager.to_string(), Some(now));
}

/// After an apply (`managedFieldsUpdater.Apply`): the applier's time becomes `now`
/// unless the apply changed nothing (the merge returned no object).
pub fn finish_apply(managed: &mut Managed, manager: &str, changed: bool, now: Timestamp) {
    if changed {
        managed.times.insert(manager.to_string(), Some(now));
    }
}

/// The fields `stripMetaManager` removes from a manager's set: apiVersion, kind,
/// metadata itself and its server-owned fields. Built once: every write strips them.
pub fn strip_set() -> &'static Set {
    static STRIP: LazyLock<Set> = LazyLock::new(build_strip_set);
    &STRIP
}

fn build_strip_set() -> Set {
    let mut s = Set::new();
    for top in ["apiVersion", "kind", "metadata"] {
        s.insert(&[PathElement::field(top)]);
    }
    for field in [
        "name",
        "namespace",
        "creationTimestamp",
        "selfLink",
        "uid",
        "clusterName",
        "generation",
        "managedFields",
        "resourceVersion",
    ] {
        s.insert(&[PathElement::field("metadata"), PathElement::field(field)]);
    }
    s
}

/// `stripMetaManager.stripFields`: the manager's set without [`strip_set`]; a manager
/// left with nothing is dropped.
pub fn strip_fields(managed: &mut Managed, manager: &str) {
    let Some(vs) = managed.fields.get(manager) else {
        return;
    };
    let stripped = vs.set.difference(strip_set());
    if stripped.is_empty() {
        managed.fields.remove(manager);
    } else {
        let vs = VersionedSet::new(stripped, vs.api_version.clone(), vs.applied);
        managed.fields.insert(manager, vs);
    }
}
