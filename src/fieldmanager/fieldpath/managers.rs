//! `ManagedFields`: what each manager owns, in which API version, and whether it applied
//! it (upstream's fieldpath/managers.go).

use std::collections::BTreeMap;
use std::fmt;

use super::Set;

/// The fields one manager owns, the API version they are expressed in, and whether the
/// manager applied them (operation `Apply`) rather than updated them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VersionedSet {
    pub set: Set,
    pub api_version: String,
    pub applied: bool,
}

impl VersionedSet {
    pub fn new(set: Set, api_version: impl Into<String>, applied: bool) -> VersionedSet {
        VersionedSet {
            set,
            api_version: api_version.into(),
            applied,
        }
    }
}

/// Manager identifier → what it owns. Keys are the encoded manager identifiers of
/// `managed::identifier` (name, operation, subresource, version for updates).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ManagedFields(pub BTreeMap<String, VersionedSet>);

impl ManagedFields {
    pub fn new() -> ManagedFields {
        ManagedFields::default()
    }

    pub fn get(&self, manager: &str) -> Option<&VersionedSet> {
        self.0.get(manager)
    }

    pub fn insert(&mut self, manager: impl Into<String>, set: VersionedSet) {
        self.0.insert(manager.into(), set);
    }

    pub fn remove(&mut self, manager: &str) -> Option<VersionedSet> {
        self.0.remove(manager)
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = (&String, &VersionedSet)> {
        self.0.iter()
    }

    /// The symmetric difference per manager (upstream's `ManagedFields.Difference`): a
    /// manager on one side only keeps its set (if not empty); a manager whose version
    /// differs keeps the right side's entry whole; otherwise the sets' symmetric
    /// difference in the right side's version, not applied, when not empty.
    pub fn difference(&self, rhs: &ManagedFields) -> ManagedFields {
        let mut diff = ManagedFields::new();
        for (manager, left) in &self.0 {
            let Some(right) = rhs.0.get(manager) else {
                if !left.set.is_empty() {
                    diff.insert(manager.clone(), left.clone());
                }
                continue;
            };
            if left.api_version != right.api_version {
                diff.insert(manager.clone(), right.clone());
                continue;
            }
            let sym = left
                .set
                .difference(&right.set)
                .union(&right.set.difference(&left.set));
            if !sym.is_empty() {
                diff.insert(
                    manager.clone(),
                    VersionedSet::new(sym, right.api_version.clone(), false),
                );
            }
        }
        for (manager, right) in &rhs.0 {
            if !self.0.contains_key(manager) && !right.set.is_empty() {
                diff.insert(manager.clone(), right.clone());
            }
        }
        diff
    }
}

impl fmt::Display for ManagedFields {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (manager, v) in &self.0 {
            writeln!(f, "{manager}:")?;
            writeln!(f, "- Applied: {}", v.applied)?;
            writeln!(f, "- APIVersion: {}", v.api_version)?;
            writeln!(f, "- Set: {}", v.set)?;
        }
        Ok(())
    }
}
