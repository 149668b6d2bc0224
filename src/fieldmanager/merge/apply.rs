//! `Updater.Apply`: merge the applied configuration into the live object, record what the
//! manager applied, and prune what it applied last time but no longer does (unless another
//! manager owns it).

use std::collections::BTreeMap;

use serde_json::Value;

use super::{Error, Updater};
use crate::fieldmanager::fieldpath::{ManagedFields, Set, VersionedSet};
use crate::fieldmanager::typed::{self, TypeRef, ensure_named_fields_are_members as named};
use crate::fieldmanager::value;

impl Updater<'_> {
    /// The object after `manager` applies `config` to `live` at `version`, and the new
    /// ownership. The object is `None` when nothing changed (unless
    /// `return_input_on_noop`). Fails with the conflicts unless `force`.
    pub fn apply(
        &self,
        live: &Value,
        config: &Value,
        version: &str,
        managers: ManagedFields,
        manager: &str,
        force: bool,
    ) -> Result<(Option<Value>, ManagedFields), Error> {
        let mut managers = self.reconcile_with_schema_changes(live, version, managers)?;
        let ty = self.type_at(version)?;
        let merged = typed::merge(ty, live, config)
            .map_err(|e| Error::Failed(format!("failed to merge config: {e}")))?;
        let last = managers.get(manager).cloned();
        let set = typed::to_field_set(ty, config)
            .map_err(|e| Error::Failed(format!("failed to get field set: {e}")))?;
        let set = self.filter(version, set);
        managers.insert(manager, VersionedSet::new(set, version, true));
        let new = self
            .prune(merged, version, &managers, last.as_ref())
            .map_err(|e| Error::Failed(format!("failed to prune fields: {e}")))?;
        self.take_ownership(live, &new, version, &mut managers, manager, force)?;
        if !self.return_input_on_noop && value::equals(live, &new) {
            return Ok((None, managers));
        }
        Ok((Some(new), managers))
    }

    /// Upstream's `prune`: removes what `last` (the manager's previous apply) has and the
    /// new apply does not, unless another manager (or this apply) owns it, and only what
    /// `last` owned (so unowned and updater-owned fields stay).
    fn prune(
        &self,
        merged: Value,
        version: &str,
        managers: &ManagedFields,
        last: Option<&VersionedSet>,
    ) -> Result<Value, String> {
        let Some(last) = last.filter(|l| !l.set.is_empty()) else {
            return Ok(merged);
        };
        let lv = last.api_version.as_str();
        let Some(at_last) = self.at(&merged, version, lv)? else {
            return Ok(merged);
        };
        let ty = at_last.ty;
        let merged_at_last = at_last.value.into_owned();
        let pruned = typed::remove_items(ty, &merged_at_last, &named(&last.set, ty));
        let (pruned, pruned_version) =
            self.add_back_owned(&merged_at_last, lv, pruned, managers)?;
        let pruned =
            self.add_back_dangling(&merged_at_last, lv, ty, pruned, &pruned_version, last)?;
        match self.at(&pruned, lv, version)? {
            Some(at) => Ok(at.value.into_owned()),
            None => Ok(pruned),
        }
    }

    /// Upstream's `addBackOwnedItems`: puts back what prune removed that some manager owns,
    /// version by version (the pruned version first). Returns the pruned object and the
    /// version it is now held at.
    fn add_back_owned(
        &self,
        merged: &Value,
        merged_version: &str,
        mut pruned: Value,
        managers: &ManagedFields,
    ) -> Result<(Value, String), String> {
        let mut by_version: BTreeMap<&str, Set> = BTreeMap::new();
        for (_, entry) in managers.iter() {
            by_version
                .entry(entry.api_version.as_str())
                .or_default()
                .union_with(&entry.set);
        }
        let mut order: Vec<&str> = Vec::new();
        if by_version.contains_key(merged_version) {
            order.push(merged_version);
        }
        order.extend(by_version.keys().filter(|v| **v != merged_version));
        let mut pruned_version = merged_version.to_string();
        for v in order {
            let Some(owned) = by_version.get(v) else {
                continue;
            };
            let (Some(m), Some(p)) = (
                self.at(merged, merged_version, v)?,
                self.at(&pruned, &pruned_version, v)?,
            ) else {
                continue;
            };
            let ty = m.ty;
            let merged_set = field_set(ty, &m.value, "merged", v)?;
            let pruned_set = field_set(ty, &p.value, "pruned", v)?;
            let keep = named(&pruned_set, ty).union(&named(owned, ty));
            pruned = typed::remove_items(ty, &m.value, &named(&merged_set, ty).difference(&keep));
            pruned_version = v.to_string();
        }
        Ok((pruned, pruned_version))
    }

    /// Upstream's `addBackDanglingItems`: of what prune removed, only what the manager
    /// owned last time is really removed; the rest (unowned, or owned by updaters) is
    /// put back.
    fn add_back_dangling(
        &self,
        merged: &Value,
        last_version: &str,
        ty: &TypeRef,
        pruned: Value,
        pruned_version: &str,
        last: &VersionedSet,
    ) -> Result<Value, String> {
        let Some(p) = self.at(&pruned, pruned_version, last_version)? else {
            return Ok(merged.clone());
        };
        let pruned_set = named(&field_set(ty, &p.value, "pruned", last_version)?, ty);
        let merged_set = named(&field_set(ty, merged, "merged", last_version)?, ty);
        let removed = merged_set
            .difference(&pruned_set)
            .intersection(&named(&last.set, ty));
        Ok(typed::remove_items(ty, merged, &removed))
    }
}

fn field_set(ty: &TypeRef, v: &Value, which: &str, version: &str) -> Result<Set, String> {
    typed::to_field_set(ty, v).map_err(|e| {
        format!("failed to create field set from {which} object at version {version}: {e}")
    })
}
