//! The evaluator's side of run-time costs: literal creation constants of cel-go's
//! `common/cost.go`, and which calls cost a fixed 1 (the call costs themselves are
//! `crate::cel::cost::call_cost`).

use crate::cel::value::Value;

pub const LIST_CREATE_BASE_COST: u64 = 10;
pub const MAP_CREATE_BASE_COST: u64 = 30;
/// cel-go's `StructCreateBaseCost`.
pub const STRUCT_CREATE_BASE_COST: u64 = 40;

/// The cost of one call: the extensions' trackers, kube's `library.CostEstimator`, then
/// cel-go's defaults (`crate::cel::cost::call_cost`).
pub fn call_cost(function: &str, overload_id: &str, args: &[Value<'_>], result: &Value<'_>) -> u64 {
    crate::cel::cost::call_cost(function, overload_id, args, result)
}

/// Whether a call costs 1 whatever its arguments, so that [`call_cost`] need not run on
/// each evaluation: no tracker sizes comparisons other than of strings and bytes,
/// `size`, negations, numeric arithmetic, map membership or the comprehensions'
/// `@not_strictly_false`. Only for a known overload (one chosen at run time is costed
/// as it runs).
pub fn fixed_cost(function: &str, overload_id: &str) -> bool {
    let sized = ["_string", "_bytes", "_list"]
        .iter()
        .any(|t| overload_id.ends_with(t));
    match function {
        "_<_" | "_<=_" | "_>_" | "_>=_" | "_+_" | "_-_" | "_*_" | "_/_" | "_%_" => {
            !overload_id.is_empty() && !sized
        }
        "size" | "!_" | "-_" | "@not_strictly_false" => !overload_id.is_empty(),
        "@in" => overload_id == "in_map",
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::{call_cost, fixed_cost};
    use crate::cel::value::Value;

    #[test]
    fn fixed_cost_calls_cost_one_for_any_argument_size() {
        let long = Value::string("x".repeat(1000));
        let list = Value::list(vec![Value::Int(1); 100]);
        let calls = [
            ("_<_", "less_int64"),
            ("_<=_", "less_equals_double"),
            ("_>=_", "greater_equals_timestamp"),
            ("_+_", "add_int64"),
            ("_%_", "modulo_uint64"),
            ("size", "size_string"),
            ("size", "string_size"),
            ("size", "size_list"),
            ("!_", "logical_not"),
            ("-_", "negate_int64"),
            ("@in", "in_map"),
            ("@not_strictly_false", "not_strictly_false"),
        ];
        for (function, overload) in calls {
            assert!(fixed_cost(function, overload), "{overload}");
            for args in [[long.clone(), long.clone()], [list.clone(), list.clone()]] {
                assert_eq!(call_cost(function, overload, &args, &long), 1, "{overload}");
            }
        }
    }

    #[test]
    fn fixed_cost_excludes_sized_and_unknown_overloads() {
        let calls = [
            ("_<_", "less_string"),
            ("_<=_", "less_equals_bytes"),
            ("_+_", "add_string"),
            ("_+_", "add_list"),
            ("_<_", ""),
            ("size", ""),
            ("@in", "in_list"),
            ("contains", "contains_string"),
        ];
        for (function, overload) in calls {
            assert!(!fixed_cost(function, overload), "{overload}");
        }
    }
}
