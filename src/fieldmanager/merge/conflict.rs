//! Apply conflicts (`merge.Conflict(s)`): a field another manager owns with a different
//! value than the one applied.

use std::fmt;

use crate::fieldmanager::fieldpath::{ManagedFields, Path};

/// One conflicting field and the manager that owns it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conflict {
    /// The manager's key in [`ManagedFields`] (kube's encoded manager identifier).
    pub manager: String,
    pub path: Path,
}

impl fmt::Display for Conflict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "conflict with {}: {}",
            crate::gofmt::quote(&self.manager),
            self.path
        )
    }
}

/// Every conflict of one apply, by manager (sorted), then by path.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Conflicts(pub Vec<Conflict>);

impl Conflicts {
    /// `ConflictsFromManagers`: each manager's conflicting paths.
    pub fn from_managers(sets: &ManagedFields) -> Conflicts {
        let mut out = Vec::new();
        for (manager, versioned) in sets.iter() {
            versioned.set.for_each_path(|path| {
                out.push(Conflict {
                    manager: manager.clone(),
                    path: path.clone(),
                });
            });
        }
        Conflicts(out)
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &Conflict> {
        self.0.iter()
    }

    /// Managers in sorted order, each with its paths (the grouping of upstream's texts).
    pub fn by_manager(&self) -> Vec<(&str, Vec<&Path>)> {
        let mut groups: std::collections::BTreeMap<&str, Vec<&Path>> = Default::default();
        for c in &self.0 {
            groups.entry(c.manager.as_str()).or_default().push(&c.path);
        }
        groups.into_iter().collect()
    }
}

impl fmt::Display for Conflicts {
    /// Upstream's `Conflicts.Error`: one conflict alone, else `conflicts with "m":` and
    /// `- <path>` lines per manager, managers sorted.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let [one] = self.0.as_slice() {
            return write!(f, "{one}");
        }
        let mut lines = Vec::new();
        for (manager, paths) in self.by_manager() {
            lines.push(format!("conflicts with {}:", crate::gofmt::quote(manager)));
            lines.extend(paths.iter().map(|p| format!("- {p}")));
        }
        f.write_str(&lines.join("\n"))
    }
}

impl std::error::Error for Conflicts {}
