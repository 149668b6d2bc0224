//! Set algebra on [`Set`]: union, intersection, difference, recursive difference, leaves.

use std::collections::BTreeMap;

use super::Set;

impl Set {
    /// Paths in either set.
    pub fn union(&self, other: &Set) -> Set {
        let mut out = self.clone();
        out.union_with(other);
        out
    }

    /// Adds every path of `other` to this set.
    pub fn union_with(&mut self, other: &Set) {
        self.members.extend(other.members.iter().cloned());
        for (pe, child) in &other.children {
            match self.children.get_mut(pe) {
                Some(mine) => mine.union_with(child),
                None => {
                    self.children.insert(pe.clone(), child.clone());
                }
            }
        }
    }

    /// Paths in both sets; child nodes left empty are dropped.
    pub fn intersection(&self, other: &Set) -> Set {
        let members = self.members.intersection(&other.members).cloned().collect();
        let mut children = BTreeMap::new();
        for (pe, child) in &self.children {
            if let Some(theirs) = other.children.get(pe) {
                let both = child.intersection(theirs);
                if !both.is_empty() {
                    children.insert(pe.clone(), both);
                }
            }
        }
        Set { members, children }
    }

    /// Paths of this set not in `other`. A parent minus its child keeps the parent; a
    /// child minus its parent keeps the child (membership is per path).
    pub fn difference(&self, other: &Set) -> Set {
        let members = self.members.difference(&other.members).cloned().collect();
        let mut children = BTreeMap::new();
        for (pe, child) in &self.children {
            match other.children.get(pe) {
                None => {
                    children.insert(pe.clone(), child.clone());
                }
                Some(theirs) => {
                    let diff = child.difference(theirs);
                    if !diff.is_empty() {
                        children.insert(pe.clone(), diff);
                    }
                }
            }
        }
        Set { members, children }
    }

    /// Like [`Set::difference`], but a member of `other` also removes everything below it
    /// (`a.b.c` minus `a.b` leaves nothing under `a.b`).
    pub fn recursive_difference(&self, other: &Set) -> Set {
        let members = self.members.difference(&other.members).cloned().collect();
        let mut children = BTreeMap::new();
        for (pe, child) in &self.children {
            if other.members.contains(pe) {
                continue;
            }
            match other.children.get(pe) {
                None => {
                    children.insert(pe.clone(), child.clone());
                }
                Some(theirs) => {
                    let diff = child.recursive_difference(theirs);
                    if !diff.is_empty() {
                        children.insert(pe.clone(), diff);
                    }
                }
            }
        }
        Set { members, children }
    }

    /// Only the leaf paths: members that have no children of their own.
    pub fn leaves(&self) -> Set {
        let members = self
            .members
            .iter()
            .filter(|pe| !self.children.contains_key(*pe))
            .cloned()
            .collect();
        let children = self
            .children
            .iter()
            .map(|(pe, child)| (pe.clone(), child.leaves()))
            .collect();
        Set { members, children }
    }
}
