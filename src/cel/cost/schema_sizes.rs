//! kube's size estimator for CRD rules (apiextensions-apiserver `compilation.go`
//! `sizeEstimator`): a path's bound is the `MaxElements` of the schema node it reaches.

use super::SizeEstimator;
use super::arith::SizeEstimate;
use crate::cel::decl::{DeclKind, DeclType};
use crate::cel::types::Type;

/// Sizes from the rule's scope declaration.
pub struct SchemaSizes<'a> {
    root: Option<&'a DeclType>,
}

impl<'a> SchemaSizes<'a> {
    pub fn new(root: Option<&'a DeclType>) -> SchemaSizes<'a> {
        SchemaSizes { root }
    }
}

impl SizeEstimator for SchemaSizes<'_> {
    /// The first path element is skipped whatever it names (kube always starts at the
    /// scope); `@items`/`@values` step to elements, `@keys` to map keys (kube's plain
    /// string type: no bound, nothing below), names to properties.
    fn estimate_size(&self, path: &[String], _ty: &Type) -> Option<SizeEstimate> {
        let (_, rest) = path.split_first()?;
        let mut node = self.root?;
        let mut keys = false;
        for name in rest {
            if keys {
                return None;
            }
            node = match (name.as_str(), &node.kind) {
                ("@items" | "@values", DeclKind::List { elem, .. }) => elem,
                ("@items" | "@values", DeclKind::Map { value }) => value,
                ("@keys", DeclKind::Map { .. }) => {
                    keys = true;
                    continue;
                }
                (field, _) => &node.field(field)?.decl,
            };
        }
        let max = if keys {
            0
        } else {
            node.max_elements.max(0) as u64
        };
        Some(SizeEstimate { min: 0, max })
    }
}
