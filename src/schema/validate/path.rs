//! Where a walk is in the object: a stack of borrowed segments, rendered to text only
//! when an error needs it (kube-openapi's path names or apimachinery's `field.Path`).

use std::fmt::Write as _;

/// One step from a parent value to a child.
#[derive(Clone, Copy, Debug)]
pub(super) enum Seg<'v> {
    /// A declared property (`properties`).
    Prop(&'v str),
    /// A key validated by the `additionalProperties` schema.
    Addl(&'v str),
    /// An array index.
    Index(usize),
}

/// The segments from the root to the current value.
#[derive(Debug, Default)]
pub(super) struct Trail<'v> {
    segs: Vec<Seg<'v>>,
}

impl<'v> Trail<'v> {
    pub(super) fn new() -> Self {
        Trail {
            segs: Vec::with_capacity(16),
        }
    }

    pub(super) fn push(&mut self, seg: Seg<'v>) {
        self.segs.push(seg);
    }

    pub(super) fn pop(&mut self) {
        self.segs.pop();
    }

    pub(super) fn is_root(&self) -> bool {
        self.segs.is_empty()
    }

    /// A copy of the current position, kept by an error until it is rendered.
    pub(super) fn snapshot(&self) -> Vec<Seg<'v>> {
        self.segs.clone()
    }

    /// apimachinery's `field.Path.String()` for a path built with `Child` (properties),
    /// `Key` (additionalProperties) and `Index`: `spec.labels[key].items[0]`.
    pub(super) fn field_path(&self) -> String {
        field_path(&self.segs)
    }

    /// `field_path()` of a child property of the current value.
    pub(super) fn child_field_path(&self, name: &str) -> String {
        let base = self.field_path();
        if base.is_empty() {
            name.to_string()
        } else {
            format!("{base}.{name}")
        }
    }
}

/// kube-openapi's path string: a property of the root is `spec`, of anything else
/// `parent.name`; an `additionalProperties` key is always `parent.key` (so `.key` at the
/// root); an item is `parent[i]`.
pub(super) fn openapi_name(segs: &[Seg<'_>]) -> String {
    let mut out = String::new();
    for seg in segs {
        match seg {
            Seg::Prop(name) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(name);
            }
            Seg::Addl(key) => {
                out.push('.');
                out.push_str(key);
            }
            Seg::Index(i) => {
                let _ = write!(out, "[{i}]");
            }
        }
    }
    out
}

/// See [`Trail::field_path`].
fn field_path(segs: &[Seg<'_>]) -> String {
    let mut out = String::new();
    for (n, seg) in segs.iter().enumerate() {
        match seg {
            // A child with an empty name prints as an empty subscript.
            Seg::Prop("") => out.push_str("[]"),
            Seg::Prop(name) => {
                if n > 0 {
                    out.push('.');
                }
                out.push_str(name);
            }
            Seg::Addl(key) => {
                let _ = write!(out, "[{key}]");
            }
            Seg::Index(i) => {
                let _ = write!(out, "[{i}]");
            }
        }
    }
    out
}
