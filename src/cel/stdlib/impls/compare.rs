//! Ordering (`_<_`, `_<=_`, `_>_`, `_>=_` with cross-type numeric comparison),
//! `!_`, membership (`in`) and `size`.

use std::cmp::Ordering;

use crate::cel::eval::ops;
use crate::cel::functions::{Impl, Outcome};
use crate::cel::value::{EvalError, List, Value};

/// cel-go's `Compare`: NaN cannot be ordered.
fn compare(a: &Value<'_>, b: &Value<'_>) -> Result<Ordering, EvalError> {
    let nan = || EvalError::new("NaN values cannot be ordered");
    match (a, b) {
        (Value::Bool(x), Value::Bool(y)) => Ok(x.cmp(y)),
        (Value::Int(x), Value::Int(y)) => Ok(x.cmp(y)),
        (Value::Uint(x), Value::Uint(y)) => Ok(x.cmp(y)),
        (Value::Int(x), Value::Uint(y)) => Ok(match u64::try_from(*x) {
            Ok(x) => x.cmp(y),
            Err(_) => Ordering::Less,
        }),
        (Value::Uint(_), Value::Int(_)) => compare(b, a).map(Ordering::reverse),
        (Value::Double(x), Value::Double(y)) => x.partial_cmp(y).ok_or_else(nan),
        (Value::Int(i), Value::Double(d)) => int_double(*i, *d).ok_or_else(nan),
        (Value::Uint(u), Value::Double(d)) => uint_double(*u, *d).ok_or_else(nan),
        (Value::Double(_), Value::Int(_) | Value::Uint(_)) => compare(b, a).map(Ordering::reverse),
        (Value::String(x), Value::String(y)) => Ok(x.as_str().cmp(y.as_str())),
        (Value::Bytes(x), Value::Bytes(y)) => Ok(x.cmp(y)),
        (Value::Duration(x), Value::Duration(y)) => Ok(x.cmp(y)),
        (Value::Timestamp(x), Value::Timestamp(y)) => Ok(x.cmp(y)),
        _ => Err(ops::no_such_overload()),
    }
}

/// cel-go's `compareIntDouble`: doubles beyond the int range order outside it.
fn int_double(i: i64, d: f64) -> Option<Ordering> {
    if d.is_nan() {
        return None;
    }
    if d < -9.223_372_036_854_776e18 {
        return Some(Ordering::Greater);
    }
    if d > 9.223_372_036_854_776e18 {
        return Some(Ordering::Less);
    }
    (i as f64).partial_cmp(&d)
}

fn uint_double(u: u64, d: f64) -> Option<Ordering> {
    if d.is_nan() {
        return None;
    }
    if d < 0.0 {
        return Some(Ordering::Greater);
    }
    if d > 1.844_674_407_370_955_2e19 {
        return Some(Ordering::Less);
    }
    (u as f64).partial_cmp(&d)
}

/// cel-go's ordering operators: false when either operand is NaN, else `Compare`.
fn relation<'a>(a: &Value<'a>, b: &Value<'a>, holds: fn(Ordering) -> bool) -> Outcome<'a> {
    let nan = |v: &Value<'_>| matches!(v, Value::Double(d) if d.is_nan());
    if nan(a) || nan(b) {
        return Ok(Value::Bool(false));
    }
    compare(a, b).map(|o| Value::Bool(holds(o)))
}

fn less<'a>(a: &Value<'a>, b: &Value<'a>) -> Outcome<'a> {
    relation(a, b, |o| o == Ordering::Less)
}

fn less_equals<'a>(a: &Value<'a>, b: &Value<'a>) -> Outcome<'a> {
    relation(a, b, |o| o != Ordering::Greater)
}

fn greater<'a>(a: &Value<'a>, b: &Value<'a>) -> Outcome<'a> {
    relation(a, b, |o| o == Ordering::Greater)
}

fn greater_equals<'a>(a: &Value<'a>, b: &Value<'a>) -> Outcome<'a> {
    relation(a, b, |o| o != Ordering::Less)
}

fn logical_not<'a>(a: &Value<'a>) -> Outcome<'a> {
    match a {
        Value::Bool(b) => Ok(Value::Bool(!b)),
        _ => Err(ops::no_such_overload()),
    }
}

/// `x in list`. cel-go's own lists ask the needle's `Equal` and skip comparisons that
/// fail; kube's JSON lists ask each element's and report an error only when nothing
/// matched (`unstructuredList.Contains`).
fn in_list<'a>(v: &Value<'a>, list: &Value<'a>) -> Outcome<'a> {
    let Value::List(l) = list else {
        return Err(ops::no_such_overload());
    };
    if let List::Owned(items) = l {
        let found = items
            .iter()
            .any(|item| matches!(ops::equal(v, item), Ok(true)));
        return Ok(Value::Bool(found));
    }
    let mut err = None;
    for i in 0..ops::list_len(l) {
        match ops::list_get(l, i).and_then(|item| ops::equal(&item, v)) {
            Ok(true) => return Ok(Value::Bool(true)),
            Ok(false) => {}
            Err(e) => {
                err.get_or_insert(e);
            }
        }
    }
    err.map_or(Ok(Value::Bool(false)), Err)
}

fn in_map<'a>(k: &Value<'a>, map: &Value<'a>) -> Outcome<'a> {
    match map {
        Value::Map(m) => ops::map_find(m, k).map(|v| Value::Bool(v.is_some())),
        _ => Err(ops::no_such_overload()),
    }
}

fn size<'a>(v: &Value<'a>) -> Outcome<'a> {
    let n = match v {
        Value::String(s) => s.as_str().chars().count(),
        Value::Bytes(b) => b.len(),
        Value::List(l) => ops::list_len(l),
        Value::Map(m) => ops::map_len(m),
        _ => return Err(ops::no_such_overload()),
    };
    Ok(Value::Int(n as i64))
}

/// The four ordering overloads of each operand-type suffix.
macro_rules! relations {
    ($($suffix:literal),*) => {
        vec![$(
            (concat!("less_", $suffix), Impl::Binary(less)),
            (concat!("less_equals_", $suffix), Impl::Binary(less_equals)),
            (concat!("greater_", $suffix), Impl::Binary(greater)),
            (concat!("greater_equals_", $suffix), Impl::Binary(greater_equals)),
        )*]
    };
}

pub(super) fn impls() -> Vec<(&'static str, Impl)> {
    let mut all: Vec<(&'static str, Impl)> = relations!(
        "bool",
        "int64",
        "int64_double",
        "int64_uint64",
        "uint64",
        "uint64_double",
        "uint64_int64",
        "double",
        "double_int64",
        "double_uint64",
        "string",
        "bytes",
        "timestamp",
        "duration"
    );
    all.extend([
        ("logical_not", Impl::Unary(logical_not)),
        ("in_list", Impl::Binary(in_list)),
        ("in_map", Impl::Binary(in_map)),
    ]);
    for id in [
        "size_string",
        "string_size",
        "size_bytes",
        "bytes_size",
        "size_list",
        "list_size",
        "size_map",
        "map_size",
    ] {
        all.push((id, Impl::Unary(size)));
    }
    all
}
