//! The errors of calls whose arguments fit no overload at run time, worded as cel-go's
//! dispatch paths word them.

use crate::cel::value::{EvalError, Value};

use super::type_name;

pub fn no_such_overload() -> EvalError {
    EvalError::new("no such overload")
}

/// The result of a call whose arguments fit none of its overloads' declared types.
/// cel-go binds the standard operators once per function (a singleton behind an operand
/// trait), so a few such calls still succeed: `-` of a duration, and orderings with a
/// NaN operand, which are false.
pub fn dispatch_fallback<'a>(function: &str, args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    match (function, args) {
        ("-_", [Value::Duration(d)]) => super::super::gotime::nanos(*d)
            .and_then(i64::checked_neg)
            .map(|n| Value::Duration(jiff::SignedDuration::from_nanos(n)))
            .ok_or_else(|| EvalError::new("integer overflow")),
        ("_<_" | "_<=_" | "_>_" | "_>=_", [a, b])
            if comparer(a)
                && [a, b]
                    .iter()
                    .any(|v| matches!(v, Value::Double(d) if d.is_nan())) =>
        {
            Ok(Value::Bool(false))
        }
        _ => Err(dispatch_failure(function, args)),
    }
}

/// The error of a call whose arguments fit none of its overloads at run time. For the
/// standard operators cel-go calls the singleton when the first operand has the
/// operator's trait (its own method then refuses the other operand: `no such
/// overload`), else asks the operand as a receiver (strings, durations and timestamps
/// refuse the same way), else names the function (`no such overload: _+_`). Some
/// functions check their operands themselves (`no such overload`); the others dispatch
/// by signature (`no such overload: f(int, string)`).
pub fn dispatch_failure(function: &str, args: &[Value<'_>]) -> EvalError {
    let Some(first) = args.first() else {
        return no_matching_overload(function, args);
    };
    let operand_trait: fn(&Value<'_>) -> bool = match function {
        "!_" | "@in" | "contains" | "startsWith" | "endsWith" => return no_such_overload(),
        "flatten" => return flatten_failure(args),
        "_+_" => |v| {
            matches!(
                v,
                Value::Int(_)
                    | Value::Uint(_)
                    | Value::Double(_)
                    | Value::String(_)
                    | Value::Bytes(_)
                    | Value::List(_)
                    | Value::Duration(_)
                    | Value::Timestamp(_)
            )
        },
        "_-_" => |v| {
            matches!(
                v,
                Value::Int(_)
                    | Value::Uint(_)
                    | Value::Double(_)
                    | Value::Duration(_)
                    | Value::Timestamp(_)
            )
        },
        "_*_" | "_/_" => |v| matches!(v, Value::Int(_) | Value::Uint(_) | Value::Double(_)),
        "_%_" => |v| matches!(v, Value::Int(_) | Value::Uint(_)),
        "-_" => |v| {
            matches!(
                v,
                Value::Int(_) | Value::Double(_) | Value::Duration(_) | Value::Bool(_)
            )
        },
        "_<_" | "_<=_" | "_>_" | "_>=_" => comparer,
        "matches" => |v| matches!(v, Value::String(_)),
        "size" => |v| {
            matches!(
                v,
                Value::String(_) | Value::Bytes(_) | Value::List(_) | Value::Map(_)
            )
        },
        _ => return no_matching_overload(function, args),
    };
    let receiver = matches!(
        first,
        Value::String(_) | Value::Duration(_) | Value::Timestamp(_)
    );
    if operand_trait(first) || receiver {
        no_such_overload()
    } else {
        EvalError::new(format!("no such overload: {function}"))
    }
}

/// cel-go's `traits.ComparerType`.
fn comparer(v: &Value<'_>) -> bool {
    matches!(
        v,
        Value::Int(_)
            | Value::Uint(_)
            | Value::Double(_)
            | Value::String(_)
            | Value::Bytes(_)
            | Value::Bool(_)
            | Value::Duration(_)
            | Value::Timestamp(_)
    )
}

/// ext lists' `flatten` checks its operands itself: `no such overload: int.flatten()`.
fn flatten_failure(args: &[Value<'_>]) -> EvalError {
    let names: Vec<&str> = args.iter().map(type_name).collect();
    match names.as_slice() {
        [list] => EvalError::new(format!("no such overload: {list}.flatten()")),
        [list, depth] => EvalError::new(format!("no such overload: {list}.flatten({depth})")),
        _ => no_such_overload(),
    }
}

/// cel-go's `no such overload: f(int, string)` from a failed run-time type guard.
pub fn no_matching_overload(function: &str, args: &[Value<'_>]) -> EvalError {
    let names: Vec<&str> = args.iter().map(type_name).collect();
    EvalError::new(format!(
        "no such overload: {function}({})",
        names.join(", ")
    ))
}
