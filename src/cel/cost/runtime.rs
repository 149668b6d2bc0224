//! The run-time cost of one call (cel-go `CostTracker.costCall`): the extensions' own
//! trackers by overload id first (lists v3, sets), then kube's `CallCost` by function
//! name, then cel-go's rules for strings, lists and regexes, else 1. The evaluator
//! counts idents, selects, constructions and comprehension steps itself.

use super::arith::{
    LIST_CREATE_BASE_COST, REGEX_STRING_LENGTH_COST_FACTOR, STRING_TRAVERSAL_COST_FACTOR, safe_add,
    safe_multiply, safe_multiply_by_factor,
};
use super::runtime_kube;
use crate::cel::value::{List, Map, Value};

/// The cost of one call of `function` by overload `overload_id`, with its arguments
/// (receiver first) and its result.
pub fn call_cost(function: &str, overload_id: &str, args: &[Value], result: &Value) -> u64 {
    if let Some(cost) = ext_tracker(overload_id, args, result) {
        return cost;
    }
    if let Some(cost) = runtime_kube::call_cost(function, overload_id, args, result) {
        return cost;
    }
    builtin(overload_id, args)
}

/// cel-go's `actualSize`: the size of strings (code points), bytes, lists and maps, of
/// sized library values (IPs, CIDRs), of a present optional's value; 1 otherwise.
pub fn actual_size(v: &Value) -> u64 {
    match v {
        Value::Optional(Some(inner)) => actual_size(inner),
        _ => sizer_size(v),
    }
}

/// The size of a `traits.Sizer`, 1 for anything else (kube's and the extensions'
/// `actualSize`, which do not look into optionals).
pub(super) fn sizer_size(v: &Value) -> u64 {
    let size = match v {
        Value::String(s) => s.as_str().chars().count(),
        Value::Bytes(b) => b.len(),
        Value::List(List::Json { items, .. }) => items.len(),
        Value::List(List::Owned(items)) => items.len(),
        Value::Map(Map::Json { fields, .. }) | Value::Map(Map::Untyped(fields)) => fields.len(),
        Value::Map(Map::Owned(entries)) => entries.len(),
        Value::Opaque(o) => return o.size().map_or(1, |n| n as u64),
        _ => return 1,
    };
    size as u64
}

fn arg_size(args: &[Value], i: usize) -> u64 {
    args.get(i).map_or(1, actual_size)
}

/// cel-go's own run-time costs of standard overloads.
fn builtin(overload_id: &str, args: &[Value]) -> u64 {
    let traversal = STRING_TRAVERSAL_COST_FACTOR;
    match overload_id {
        "starts_with_string" | "ends_with_string" => {
            safe_multiply_by_factor(arg_size(args, 1), traversal)
        }
        "string_to_bytes" | "bytes_to_string" | "strings_quote" | "string_format" => {
            safe_multiply_by_factor(arg_size(args, 0), traversal)
        }
        "in_list" => arg_size(args, 1),
        "less_string"
        | "greater_string"
        | "less_equals_string"
        | "greater_equals_string"
        | "less_bytes"
        | "greater_bytes"
        | "less_equals_bytes"
        | "greater_equals_bytes"
        | "equals"
        | "not_equals" => {
            let smaller = arg_size(args, 0).min(arg_size(args, 1));
            safe_multiply_by_factor(smaller, traversal)
        }
        "add_string" | "add_bytes" => {
            safe_multiply_by_factor(safe_add(arg_size(args, 0), arg_size(args, 1)), traversal)
        }
        "matches" | "matches_string" => {
            let str_cost = safe_multiply_by_factor(safe_add(1, arg_size(args, 0)), traversal);
            let re_cost =
                safe_multiply_by_factor(arg_size(args, 1), REGEX_STRING_LENGTH_COST_FACTOR);
            safe_multiply(str_cost, re_cost)
        }
        "contains_string" => {
            let str_cost = safe_multiply_by_factor(arg_size(args, 0), traversal);
            let sub_cost = safe_multiply_by_factor(arg_size(args, 1), traversal);
            safe_multiply(str_cost, sub_cost)
        }
        _ => 1,
    }
}

/// The trackers `ext.Lists(ListsVersion(3))` and `ext.Sets()` register.
fn ext_tracker(overload_id: &str, args: &[Value], result: &Value) -> Option<u64> {
    let size = |i: usize| args.get(i).map_or(1, sizer_size);
    let cost = match overload_id {
        "list_slice" | "lists_range" | "list_reverse" => allocating(1.0, sizer_size(result)),
        "list_distinct" => self_compare(args.first()?),
        "list_flatten" | "list_flatten_int" => {
            let depth = match args.get(1) {
                Some(Value::Int(d)) if args.len() == 2 => *d as f64,
                _ => 1.0,
            };
            allocating(depth, size(0))
        }
        "list_sets_contains_list" | "list_sets_intersects_list" => sets(size(0), size(1), 1.0),
        "list_sets_equivalent_list" => sets(size(0), size(1), 2.0),
        id if id.starts_with("list_") && id.ends_with("_sortByAssociatedKeys") => {
            self_compare(args.get(1)?)
        }
        id if id.starts_with("list_") && id.ends_with("_sort") => self_compare(args.first()?),
        _ => return None,
    };
    Some(cost)
}

fn sets(lhs: u64, rhs: u64, factor: f64) -> u64 {
    // Go multiplies the sizes without overflow checks, then truncates.
    safe_add(1, (lhs.wrapping_mul(rhs) as f64 * factor) as u64)
}

/// `trackListSelfCompare`: O(n²) comparisons, dearer for strings and bytes (by the
/// first element).
fn self_compare(list: &Value) -> u64 {
    let n = sizer_size(list);
    if n == 0 {
        return allocating(2.0, 0);
    }
    let text = match list {
        Value::List(List::Owned(items)) => {
            matches!(items.first(), Some(Value::String(_) | Value::Bytes(_)))
        }
        Value::List(List::Json { items, decl }) => {
            runtime_kube::json_list_starts_with_text(items, decl)
        }
        _ => false,
    };
    let factor = if text {
        2.0 + STRING_TRAVERSAL_COST_FACTOR
    } else {
        2.0
    };
    allocating(factor, safe_multiply(n, n))
}

/// `trackAllocatingListCall`: size × factor (truncated), the call and a list allocation.
fn allocating(factor: f64, size: u64) -> u64 {
    let factor = if factor < 0.0 { 1.0 } else { factor };
    safe_add(
        safe_add((size as f64 * factor) as u64, 1),
        LIST_CREATE_BASE_COST,
    )
}
