//! Size tracking of the static estimator (cel-go `computeSize`, `computeEntrySize` and
//! friends): sizes of literals, of calls' results, of schema values (by the size
//! estimator) and of list and map entries.

use super::arith::SizeEstimate;
use super::estimator::{Coster, Node};
use crate::cel::ast::{Expr, ExprKind, Id, Literal};
use crate::cel::types::Type;

/// The container of a list or map node's entries and their sizes
/// (cel-go `entrySizeEstimate`).
#[derive(Clone, Copy, Debug)]
pub(super) struct EntrySize {
    pub list: bool,
    pub key: SizeEstimate,
    pub val: SizeEstimate,
}

impl EntrySize {
    fn union(a: Option<EntrySize>, b: Option<EntrySize>) -> Option<EntrySize> {
        let (a, b) = (a?, b?);
        Some(EntrySize {
            list: a.list,
            key: a.key.union(b.key),
            val: a.val.union(b.val),
        })
    }
}

impl Coster<'_> {
    pub fn set_size(&mut self, id: Id, size: Option<SizeEstimate>) {
        if let Some(size) = size {
            self.sizes.insert(id, size);
        }
    }

    pub fn set_entry_size(&mut self, id: Id, entry: Option<EntrySize>) {
        if let Some(entry) = entry {
            self.entry_sizes.insert(id, entry);
        }
    }

    pub fn copy_size_estimates(&mut self, dst: &Expr, src: &Expr) {
        let size = self.compute_size(src);
        self.set_size(dst.id, size);
        let entry = self.compute_entry_size(src);
        self.set_entry_size(dst.id, entry);
    }

    pub fn size_or_unknown(&mut self, e: &Expr) -> SizeEstimate {
        self.compute_size(e).unwrap_or(SizeEstimate::UNKNOWN)
    }

    /// cel-go `computeSize`: recorded, literal, schema (kube's estimator), scalar type,
    /// then local variable sizes, in that order.
    pub fn compute_size(&mut self, e: &Expr) -> Option<SizeEstimate> {
        if let Some(size) = self.sizes.get(&e.id) {
            return Some(*size);
        }
        if let Some(size) = expr_size(e) {
            return Some(size);
        }
        let path = self.path(e);
        if let Some(size) = self.estimate_size(&path, self.checked.type_of(e.id)) {
            self.sizes.insert(e.id, size);
            return Some(size);
        }
        if is_scalar(self.checked.type_of(e.id)) {
            return Some(SizeEstimate::fixed(1));
        }
        if let ExprKind::Ident(name) = &e.kind {
            return self.peek_local(name).and_then(|v| v.size);
        }
        None
    }

    pub fn compute_entry_size(&self, e: &Expr) -> Option<EntrySize> {
        if let Some(entry) = self.entry_sizes.get(&e.id) {
            return Some(*entry);
        }
        if let ExprKind::Ident(name) = &e.kind {
            return self.peek_local(name).and_then(|v| v.entry);
        }
        None
    }

    pub fn union_entry_sizes(&self, a: &Expr, b: &Expr) -> Option<EntrySize> {
        EntrySize::union(self.compute_entry_size(a), self.compute_entry_size(b))
    }

    /// The size estimator's bound for a path (cel-go `EstimateSize`).
    pub fn estimate_size(&self, path: &[String], ty: &Type) -> Option<SizeEstimate> {
        self.sizer.estimate_size(path, ty)
    }

    /// kube's `sizeEstimate`: the computed size, else the schema bound, else unknown.
    pub fn node_size(&self, n: &Node) -> SizeEstimate {
        n.computed
            .or_else(|| self.estimate_size(&n.path, &n.ty))
            .unwrap_or(SizeEstimate::UNKNOWN)
    }
}

/// cel-go `computeExprSize`: the exact size of literals and literal lists and maps.
fn expr_size(e: &Expr) -> Option<SizeEstimate> {
    let size = match &e.kind {
        ExprKind::Literal(Literal::String(s)) => s.chars().count() as u64,
        ExprKind::Literal(Literal::Bytes(b)) => b.len() as u64,
        ExprKind::Literal(_) => 1,
        ExprKind::List { elements, .. } => elements.len() as u64,
        ExprKind::Map { entries } => entries.len() as u64,
        _ => return None,
    };
    Some(SizeEstimate::fixed(size))
}

/// cel-go `isScalar`: types of a constant size.
fn is_scalar(t: &Type) -> bool {
    match t {
        Type::Bool | Type::Double | Type::Duration | Type::Int | Type::Timestamp | Type::Uint => {
            true
        }
        Type::Optional(inner) => is_scalar(inner),
        _ => false,
    }
}
