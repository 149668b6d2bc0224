//! Static estimates of the cel-go extensions kube enables that bring their own
//! (`checker.OverloadCostEstimate`): `ext.Lists(ListsVersion(3))` with its version-3
//! ("legacy") flatten, distinct and sort estimates, and `ext.Sets()`.

use std::ops::Add;

use super::arith::{
    CostEstimate, LIST_CREATE_BASE_COST, STRING_TRAVERSAL_COST_FACTOR, SizeEstimate,
};
use super::calls::{Call, CallEstimate};
use super::estimator::{Coster, Node};
use crate::cel::ast::{ExprKind, Literal};
use crate::cel::types::Type;

/// The estimate of an extension overload, `None` when it has none.
pub(super) fn estimate_call(c: &Coster, call: &Call) -> Option<CallEstimate> {
    let (target, args) = (call.target, call.args);
    match call.overload {
        "list_slice" => {
            let (target, [start, end]) = (target?, args) else {
                return None;
            };
            let sz = c.node_size(target);
            let start = literal_uint(start, 0);
            // Go's unsigned subtraction wraps when start > end.
            let end = literal_uint(end, sz.max);
            Some(allocating(
                1.0,
                SizeEstimate::fixed(end.wrapping_sub(start)),
            ))
        }
        "lists_range" => match (target, args) {
            (None, [n]) => Some(allocating(
                1.0,
                SizeEstimate::fixed(literal_uint(n, u64::MAX)),
            )),
            _ => None,
        },
        "list_reverse" if args.is_empty() => Some(allocating(1.0, c.node_size(target?))),
        "list_flatten" | "list_flatten_int" if args.len() <= 1 => {
            let target = target?;
            let depth = args.first().map_or(1, |d| literal_uint(d, u64::MAX));
            Some(allocating(depth as f64, c.node_size(target)))
        }
        "list_distinct" if args.is_empty() => {
            let target = target?;
            let sz = c.node_size(target);
            let elem_is_text = matches!(&target.ty, Type::List(e) if is_text(e));
            Some(allocating(
                self_compare_factor(elem_is_text),
                sz.multiply(sz),
            ))
        }
        "list_sets_contains_list" | "list_sets_intersects_list" => sets(c, args, 1.0),
        "list_sets_equivalent_list" => sets(c, args, 2.0),
        id => sort(c, id, target, args),
    }
}

/// `list_<T>_sort` and `list_<U>_sortByAssociatedKeys` (legacy): O(n²) comparisons of
/// the sorted list, or of the keys list.
fn sort(c: &Coster, id: &str, target: Option<&Node>, args: &[Node]) -> Option<CallEstimate> {
    let rest = id.strip_prefix("list_")?;
    let (type_name, node) = match (rest.strip_suffix("_sortByAssociatedKeys"), args) {
        (Some(name), [keys]) => (name, keys),
        (Some(_), _) => return None,
        (None, []) => (rest.strip_suffix("_sort")?, target?),
        (None, _) => return None,
    };
    target?;
    let sz = c.node_size(node);
    let text = matches!(type_name, "string" | "bytes");
    Some(allocating(self_compare_factor(text), sz.multiply(sz)))
}

fn sets(c: &Coster, args: &[Node], factor: f64) -> Option<CallEstimate> {
    let [a, b] = args else {
        return None;
    };
    let cost = c
        .node_size(a)
        .multiply(c.node_size(b))
        .multiply_by_cost_factor(factor)
        .add(CostEstimate::fixed(1));
    Some(CallEstimate::cost(cost))
}

fn self_compare_factor(text: bool) -> f64 {
    if text {
        2.0 + STRING_TRAVERSAL_COST_FACTOR
    } else {
        2.0
    }
}

fn is_text(t: &Type) -> bool {
    matches!(t, Type::String | Type::Bytes)
}

/// `estimateAllocatingListCall`: the result size times the factor, plus a list
/// allocation and the call.
fn allocating(factor: f64, size: SizeEstimate) -> CallEstimate {
    let cost = size
        .multiply_by_cost_factor(factor)
        .add(CostEstimate::fixed(LIST_CREATE_BASE_COST))
        .add(CostEstimate::fixed(1));
    CallEstimate::sized(cost, size)
}

/// `nodeAsUintValue`: an int literal's value (negative ones as 0), else the default.
fn literal_uint(node: &Node, default: u64) -> u64 {
    match node.expr.map(|e| &e.kind) {
        Some(ExprKind::Literal(Literal::Int(i))) => u64::try_from(*i).unwrap_or(0),
        _ => default,
    }
}
