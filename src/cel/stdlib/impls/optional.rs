//! The optional types library's functions (`optional.of`, `optional.none`,
//! `optional.ofNonZeroValue`, `value()`, `hasValue()`, `or`, `orValue`,
//! `optional.unwrap`, `first()`, `last()`); `_?._` and `_[?_]` are evaluator steps.

use std::rc::Rc;

use crate::cel::eval::ops;
use crate::cel::functions::{Impl, Outcome};
use crate::cel::value::{EvalError, Value};

fn some<'a>(v: Value<'a>) -> Value<'a> {
    Value::Optional(Some(Rc::new(v)))
}

fn of<'a>(v: &Value<'a>) -> Outcome<'a> {
    Ok(some(v.clone()))
}

fn none<'a>(_: &[Value<'a>]) -> Outcome<'a> {
    Ok(Value::Optional(None))
}

/// cel-go's `IsZeroValue`.
fn is_zero(v: &Value<'_>) -> bool {
    match v {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Int(i) => *i == 0,
        Value::Uint(u) => *u == 0,
        Value::Double(d) => *d == 0.0,
        Value::String(s) => s.as_str().is_empty(),
        Value::Bytes(b) => b.is_empty(),
        Value::Duration(d) => d.is_zero(),
        // Go's zero `time.Time`: 0001-01-01T00:00:00Z.
        Value::Timestamp(t) => {
            t.as_second() == crate::cel::eval::gotime::MIN_UNIX_SECONDS
                && t.subsec_nanosecond() == 0
        }
        Value::List(l) => ops::list_len(l) == 0,
        Value::Map(m) => ops::map_len(m) == 0,
        Value::Opaque(o) => o.is_zero(),
        Value::Optional(_) | Value::Type(_) => false,
    }
}

fn of_non_zero<'a>(v: &Value<'a>) -> Outcome<'a> {
    Ok(if is_zero(v) {
        Value::Optional(None)
    } else {
        some(v.clone())
    })
}

fn value<'a>(v: &Value<'a>) -> Outcome<'a> {
    match v {
        Value::Optional(Some(inner)) => Ok(Value::clone(inner)),
        Value::Optional(None) => Err(EvalError::new("optional.none() dereference")),
        _ => Err(ops::no_such_overload()),
    }
}

fn has_value<'a>(v: &Value<'a>) -> Outcome<'a> {
    match v {
        Value::Optional(o) => Ok(Value::Bool(o.is_some())),
        _ => Err(ops::no_such_overload()),
    }
}

fn or<'a>(a: &Value<'a>, b: &Value<'a>) -> Outcome<'a> {
    match (a, b) {
        (Value::Optional(Some(_)), _) => Ok(a.clone()),
        (Value::Optional(None), Value::Optional(_)) => Ok(b.clone()),
        _ => Err(ops::no_such_overload()),
    }
}

fn or_value<'a>(a: &Value<'a>, b: &Value<'a>) -> Outcome<'a> {
    match a {
        Value::Optional(Some(inner)) => Ok(Value::clone(inner)),
        Value::Optional(None) => Ok(b.clone()),
        _ => Err(ops::no_such_overload()),
    }
}

fn unwrap<'a>(v: &Value<'a>) -> Outcome<'a> {
    let Value::List(l) = v else {
        return Err(ops::no_such_overload());
    };
    let mut out = Vec::new();
    for item in ops::list_items(l)? {
        match item {
            Value::Optional(Some(inner)) => out.push(Value::clone(&inner)),
            Value::Optional(None) => {}
            _ => return Err(ops::no_such_overload()),
        }
    }
    Ok(Value::list(out))
}

fn first<'a>(v: &Value<'a>) -> Outcome<'a> {
    match v {
        Value::List(l) if ops::list_len(l) == 0 => Ok(Value::Optional(None)),
        Value::List(l) => ops::list_get(l, 0).map(some),
        _ => Err(ops::no_such_overload()),
    }
}

fn last<'a>(v: &Value<'a>) -> Outcome<'a> {
    match v {
        Value::List(l) => match ops::list_len(l).checked_sub(1) {
            Some(i) => ops::list_get(l, i).map(some),
            None => Ok(Value::Optional(None)),
        },
        _ => Err(ops::no_such_overload()),
    }
}

pub(super) fn impls() -> Vec<(&'static str, Impl)> {
    vec![
        ("optional_of", Impl::Unary(of)),
        ("optional_none", Impl::Variadic(none)),
        ("optional_ofNonZeroValue", Impl::Unary(of_non_zero)),
        ("optional_value", Impl::Unary(value)),
        ("optional_hasValue", Impl::Unary(has_value)),
        ("optional_or_optional", Impl::Binary(or)),
        ("optional_orValue_value", Impl::Binary(or_value)),
        ("optional_unwrap", Impl::Unary(unwrap)),
        ("optional_unwrapOpt", Impl::Unary(unwrap)),
        ("list_first", Impl::Unary(first)),
        ("list_last", Impl::Unary(last)),
    ]
}
