//! `Set`: a set of paths stored as a tree (members at this level, child sets per path
//! element), with upstream's set algebra.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use super::{Path, PathElement};

/// Upstream's `fieldpath.Set`. `members` are the paths of length one that belong to the
/// set; `children` hold the sets below an element. Being a child does not make an
/// element a member (`.spec.replicas` owned does not mean `.spec` is).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Set {
    pub(super) members: BTreeSet<PathElement>,
    pub(super) children: BTreeMap<PathElement, Set>,
}

impl Set {
    pub fn new() -> Set {
        Set::default()
    }

    /// A set of the given paths (`NewSet`).
    pub fn from_paths<'a>(paths: impl IntoIterator<Item = &'a Path>) -> Set {
        let mut s = Set::new();
        for p in paths {
            s.insert(p.elements());
        }
        s
    }

    /// Adds the path; its parents are not added. The empty path (the whole object) is
    /// never tracked.
    pub fn insert(&mut self, path: &[PathElement]) {
        match path {
            [] => {}
            [last] => {
                self.members.insert(last.clone());
            }
            [first, rest @ ..] => self.descend(first).insert(rest),
        }
    }

    /// Adds one member at this level.
    pub fn insert_member(&mut self, pe: PathElement) {
        self.members.insert(pe);
    }

    /// The child set under `pe`, created empty if missing (`SetNodeMap.Descend`).
    pub fn descend(&mut self, pe: &PathElement) -> &mut Set {
        self.children.entry(pe.clone()).or_default()
    }

    /// Sets the child set under `pe` (replacing any).
    pub fn set_child(&mut self, pe: PathElement, child: Set) {
        self.children.insert(pe, child);
    }

    /// Whether the path is a member; the empty path never is.
    pub fn has(&self, path: &[PathElement]) -> bool {
        match path {
            [] => false,
            [last] => self.members.contains(last),
            [first, rest @ ..] => self.children.get(first).is_some_and(|c| c.has(rest)),
        }
    }

    pub fn has_member(&self, pe: &PathElement) -> bool {
        self.members.contains(pe)
    }

    /// The child set under `pe`, if any.
    pub fn child(&self, pe: &PathElement) -> Option<&Set> {
        self.children.get(pe)
    }

    /// The subset of paths below `pe`, without `pe` (`WithPrefix`).
    pub fn with_prefix(&self, pe: &PathElement) -> Set {
        self.children.get(pe).cloned().unwrap_or_default()
    }

    /// This set moved under `prefix`: each path `p` becomes `prefix + p`.
    pub fn prefixed(self, prefix: &[PathElement]) -> Set {
        match prefix.split_last() {
            Some((last, init)) if !self.is_empty() => {
                let mut s = Set::new();
                s.children.insert(last.clone(), self);
                s.prefixed(init)
            }
            Some(_) => Set::new(),
            None => self,
        }
    }

    /// Members at this level, in order.
    pub fn members(&self) -> impl Iterator<Item = &PathElement> {
        self.members.iter()
    }

    /// Child sets at this level, in element order.
    pub fn children(&self) -> impl Iterator<Item = (&PathElement, &Set)> {
        self.children.iter()
    }

    /// Number of member paths (`Size`); child nodes alone do not count.
    pub fn size(&self) -> usize {
        self.members.len() + self.children.values().map(Set::size).sum::<usize>()
    }

    /// No member path anywhere (`Empty`).
    pub fn is_empty(&self) -> bool {
        self.members.is_empty() && self.children.values().all(Set::is_empty)
    }

    /// Calls `f` with each member path, preorder: this level's members, then each child's
    /// paths (`Iterate`).
    pub fn for_each_path(&self, mut f: impl FnMut(&Path)) {
        let mut prefix = Path::default();
        self.walk(&mut prefix, &mut f);
    }

    fn walk(&self, prefix: &mut Path, f: &mut impl FnMut(&Path)) {
        for pe in &self.members {
            prefix.push(pe.clone());
            f(prefix);
            prefix.0.pop();
        }
        for (pe, child) in &self.children {
            prefix.push(pe.clone());
            child.walk(prefix, f);
            prefix.0.pop();
        }
    }

    /// Every member path, in [`Set::for_each_path`] order.
    pub fn paths(&self) -> Vec<Path> {
        let mut out = Vec::new();
        self.for_each_path(|p| out.push(p.clone()));
        out
    }
}

impl fmt::Display for Set {
    /// Upstream's `Set.String`: one path per line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let lines: Vec<String> = self.paths().iter().map(Path::to_string).collect();
        f.write_str(&lines.join("\n"))
    }
}
