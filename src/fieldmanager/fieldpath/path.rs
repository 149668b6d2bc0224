//! `Path`: a sequence of path elements selecting a nested field, ordered lexically.

use std::fmt;

use super::PathElement;

/// Upstream's `fieldpath.Path`. The derived order is upstream's `Path.Compare`: element by
/// element, a prefix sorting first.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Path(pub Vec<PathElement>);

impl Path {
    pub fn new(elements: Vec<PathElement>) -> Path {
        Path(elements)
    }

    pub fn elements(&self) -> &[PathElement] {
        &self.0
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn push(&mut self, pe: PathElement) {
        self.0.push(pe);
    }

    /// This path followed by `pe`.
    pub fn child(&self, pe: PathElement) -> Path {
        let mut out = self.clone();
        out.push(pe);
        out
    }
}

impl From<Vec<PathElement>> for Path {
    fn from(elements: Vec<PathElement>) -> Path {
        Path(elements)
    }
}

impl fmt::Display for Path {
    /// Upstream's `Path.String`: the elements' texts concatenated (`.spec.ports[port=80]`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for pe in &self.0 {
            write!(f, "{pe}")?;
        }
        Ok(())
    }
}
