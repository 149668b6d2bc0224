//! `Updater.Update` and the steps it shares with apply: managers' sets reconciled with
//! schema changes first, then ownership: fields that change leave the managers that
//! owned them (a conflict unless forced), removed fields leave everyone.

use std::collections::BTreeMap;

use serde_json::Value;

use super::{Conflicts, Error, Updater};
use crate::fieldmanager::fieldpath::{ManagedFields, VersionedSet};
use crate::fieldmanager::typed::{self, Comparison, TypeRef};

impl Updater<'_> {
    /// Ownership after `manager` replaced `live` with `new` at `version` (create, update,
    /// patch): the manager gains what it added or modified, every manager loses what was
    /// removed, and others lose what the manager changed.
    pub fn update(
        &self,
        live: &Value,
        new: &Value,
        version: &str,
        managers: ManagedFields,
        manager: &str,
    ) -> Result<ManagedFields, Error> {
        let mut managers = self.reconcile_with_schema_changes(live, version, managers)?;
        let compare = self.take_ownership(live, new, version, &mut managers, manager, true)?;
        let own = managers
            .get(manager)
            .map(|v| v.set.clone())
            .unwrap_or_default();
        let set = own
            .difference(&compare.removed)
            .union(&compare.modified)
            .union(&compare.added);
        let set = self.filter(version, set);
        if set.is_empty() {
            managers.remove(manager);
        } else {
            managers.insert(manager, VersionedSet::new(set, version, false));
        }
        Ok(managers)
    }

    /// `reconcileManagedFieldsWithSchemaChanges`: each manager's set reconciled with its
    /// version's current type (lists, maps and structs that became atomic are owned as
    /// one node). Managers at versions the converter does not know are left out (they
    /// would be dropped later anyway); a set that needs no change is kept as it is.
    pub(super) fn reconcile_with_schema_changes(
        &self,
        live: &Value,
        version: &str,
        managers: ManagedFields,
    ) -> Result<ManagedFields, Error> {
        // Each version's type once; upstream converts the live object per manager and
        // only uses the conversion's type (and its error).
        let mut types: BTreeMap<String, Option<&TypeRef>> = BTreeMap::new();
        let mut out = ManagedFields::new();
        for (name, mut entry) in managers.0 {
            let ty = match types.get(&entry.api_version) {
                Some(ty) => *ty,
                None => {
                    let at = self
                        .at(live, version, &entry.api_version)
                        .map_err(Error::Failed)?;
                    let ty = at.map(|at| at.ty);
                    types.insert(entry.api_version.clone(), ty);
                    ty
                }
            };
            let Some(ty) = ty else {
                continue;
            };
            let reconciled =
                typed::reconcile_field_set_with_schema(&entry.set, ty).map_err(|e| {
                    Error::Failed(format!("errors reconciling field set with schema: {e}"))
                })?;
            if let Some(set) = reconciled {
                entry.set = set;
            }
            out.insert(name, entry);
        }
        Ok(out)
    }

    /// Upstream's `update`: compares `old` with `new` in each manager's version; what
    /// `workflow` changed that another manager owns is a conflict (an error unless
    /// `force`, else taken from it), what was removed leaves every other manager, and
    /// managers left owning nothing are dropped. Returns the comparison at `version`.
    pub(super) fn take_ownership(
        &self,
        old: &Value,
        new: &Value,
        version: &str,
        managers: &mut ManagedFields,
        workflow: &str,
        force: bool,
    ) -> Result<Comparison, Error> {
        let ty = self.type_at(version)?;
        let compare = typed::compare(ty, old, new)
            .map_err(|e| Error::Failed(format!("failed to compare objects: {e}")))?;
        let compare = self.filtered(version, compare);
        let mut versions: BTreeMap<String, Comparison> = BTreeMap::new();
        let mut conflicts = ManagedFields::new();
        let mut removed = ManagedFields::new();
        let names: Vec<String> = managers.iter().map(|(m, _)| m.clone()).collect();
        for name in names {
            let Some(entry) = managers.get(&name).filter(|_| name != workflow) else {
                continue;
            };
            let other = entry.api_version.clone();
            let cmp = if other == version {
                &compare
            } else {
                if !versions.contains_key(&other) {
                    match self.compare_at(old, new, version, &other)? {
                        Some(c) => versions.insert(other.clone(), c),
                        None => {
                            // The manager's version is no longer served: drop it.
                            managers.remove(&name);
                            continue;
                        }
                    };
                }
                match versions.get(&other) {
                    Some(c) => c,
                    None => continue,
                }
            };
            let conflict = entry.set.intersection(&cmp.modified.union(&cmp.added));
            if !conflict.is_empty() {
                conflicts.insert(
                    name.clone(),
                    VersionedSet::new(conflict, other.clone(), false),
                );
            }
            if !cmp.removed.is_empty() {
                removed.insert(
                    name.clone(),
                    VersionedSet::new(cmp.removed.clone(), other, false),
                );
            }
        }
        if !force && !conflicts.is_empty() {
            return Err(Error::Conflicts(Conflicts::from_managers(&conflicts)));
        }
        for (name, lost) in conflicts.iter().chain(removed.iter()) {
            if let Some(entry) = managers.0.get_mut(name) {
                entry.set = entry.set.difference(&lost.set);
            }
        }
        managers.0.retain(|_, v| !v.set.is_empty());
        Ok(compare)
    }

    /// `old` and `new` compared at version `other`; `None` when it is not served.
    fn compare_at(
        &self,
        old: &Value,
        new: &Value,
        version: &str,
        other: &str,
    ) -> Result<Option<Comparison>, Error> {
        let old = self
            .at(old, version, other)
            .map_err(|e| Error::Failed(format!("failed to convert old object: {e}")))?;
        let new = self
            .at(new, version, other)
            .map_err(|e| Error::Failed(format!("failed to convert new object: {e}")))?;
        let (Some(old), Some(new)) = (old, new) else {
            return Ok(None);
        };
        let cmp = typed::compare(old.ty, &old.value, &new.value)
            .map_err(|e| Error::Failed(format!("failed to compare objects: {e}")))?;
        Ok(Some(self.filtered(other, cmp)))
    }

    /// The comparison without the fields `version`'s filter drops (`FilterFields`).
    fn filtered(&self, version: &str, mut cmp: Comparison) -> Comparison {
        if let Some(f) = self.ignore.get(version) {
            cmp.removed = f(&cmp.removed);
            cmp.modified = f(&cmp.modified);
            cmp.added = f(&cmp.added);
        }
        cmp
    }
}
