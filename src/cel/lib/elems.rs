//! List elements as cel-go's traits see them, for the list libraries: the elements of a
//! list, `Compare` (`traits.Comparer`), `Equal` with the element as receiver, and `Add`
//! of the summable types. Ordering mirrors the standard library's (`stdlib/impls/compare.rs`,
//! private there).

use std::cmp::Ordering;

use jiff::SignedDuration;

use super::argv::no_such_overload;
use crate::cel::eval::ops;
use crate::cel::value::{EvalError, List, Value};

pub(super) fn items<'a>(list: &Value<'a>) -> Result<Vec<Value<'a>>, EvalError> {
    match list {
        Value::List(l) => ops::list_items(l),
        _ => Err(no_such_overload()),
    }
}

pub(super) fn list_of<'v, 'a>(list: &'v Value<'a>) -> Result<&'v List<'a>, EvalError> {
    match list {
        Value::List(l) => Ok(l),
        _ => Err(no_such_overload()),
    }
}

/// Whether the value implements `traits.Comparer`.
pub(super) fn is_comparable(v: &Value<'_>) -> bool {
    matches!(
        v,
        Value::Bool(_)
            | Value::Int(_)
            | Value::Uint(_)
            | Value::Double(_)
            | Value::String(_)
            | Value::Bytes(_)
            | Value::Duration(_)
            | Value::Timestamp(_)
    )
}

/// `a.Compare(b)`: numbers across types, NaN unordered, other mixes `no such overload`.
pub(super) fn compare(a: &Value<'_>, b: &Value<'_>) -> Result<Ordering, EvalError> {
    let nan = || EvalError::new("NaN values cannot be ordered");
    match (a, b) {
        (Value::Bool(x), Value::Bool(y)) => Ok(x.cmp(y)),
        (Value::Int(x), Value::Int(y)) => Ok(x.cmp(y)),
        (Value::Uint(x), Value::Uint(y)) => Ok(x.cmp(y)),
        (Value::Int(x), Value::Uint(y)) => {
            Ok(u64::try_from(*x).map_or(Ordering::Less, |x| x.cmp(y)))
        }
        (Value::Uint(_), Value::Int(_)) => compare(b, a).map(Ordering::reverse),
        (Value::Double(x), Value::Double(y)) => x.partial_cmp(y).ok_or_else(nan),
        (Value::Int(i), Value::Double(d)) => double_cmp(
            *i as f64,
            *d,
            -9.223_372_036_854_776e18,
            9.223_372_036_854_776e18,
        )
        .ok_or_else(nan),
        (Value::Uint(u), Value::Double(d)) => {
            double_cmp(*u as f64, *d, 0.0, 1.844_674_407_370_955_2e19).ok_or_else(nan)
        }
        (Value::Double(_), Value::Int(_) | Value::Uint(_)) => compare(b, a).map(Ordering::reverse),
        (Value::String(x), Value::String(y)) => Ok(x.as_str().cmp(y.as_str())),
        (Value::Bytes(x), Value::Bytes(y)) => Ok(x.cmp(y)),
        (Value::Duration(x), Value::Duration(y)) => Ok(x.cmp(y)),
        (Value::Timestamp(x), Value::Timestamp(y)) => Ok(x.cmp(y)),
        _ => Err(no_such_overload()),
    }
}

/// An integer (as a float) against a double: doubles beyond the integer range order
/// outside it (cel-go's `compareIntDouble`, `compareUintDouble`).
fn double_cmp(n: f64, d: f64, min: f64, max: f64) -> Option<Ordering> {
    if d.is_nan() {
        return None;
    }
    if d < min {
        return Some(Ordering::Greater);
    }
    if d > max {
        return Some(Ordering::Less);
    }
    n.partial_cmp(&d)
}

/// `a.Equal(b)`: kube's library types refuse operands they do not accept (an error
/// the list functions treat as unequal); everything else is CEL equality.
pub(super) fn equal(a: &Value<'_>, b: &Value<'_>) -> Result<bool, EvalError> {
    match (a, b) {
        (Value::Opaque(x), Value::Opaque(y)) => x.try_equals(Some(&**y)),
        (Value::Opaque(x), _) => x.try_equals(None),
        _ => ops::equal(a, b),
    }
}

/// `a.Add(b)` for the summable types, with cel-go's overflow errors.
pub(super) fn add<'a>(a: &Value<'a>, b: &Value<'a>) -> Result<Value<'a>, EvalError> {
    let int_overflow = || EvalError::new("integer overflow");
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => {
            x.checked_add(*y).map(Value::Int).ok_or_else(int_overflow)
        }
        (Value::Uint(x), Value::Uint(y)) => x
            .checked_add(*y)
            .map(Value::Uint)
            .ok_or_else(|| EvalError::new("unsigned integer overflow")),
        (Value::Double(x), Value::Double(y)) => Ok(Value::Double(x + y)),
        (Value::Duration(x), Value::Duration(y)) => {
            // Go durations are int64 nanoseconds.
            let nanos = |d: &SignedDuration| i64::try_from(d.as_nanos()).ok();
            let sum = nanos(x).zip(nanos(y)).and_then(|(x, y)| x.checked_add(y));
            sum.map(|n| Value::Duration(SignedDuration::from_nanos(n)))
                .ok_or_else(int_overflow)
        }
        _ => Err(no_such_overload()),
    }
}
