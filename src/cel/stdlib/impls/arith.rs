//! Arithmetic with cel-go's checked overflow (`integer overflow`, `unsigned integer
//! overflow`, `division by zero`, `modulus by zero`), concatenation of strings, bytes
//! and lists (kube's `set` / `map` list semantics on the left), and time arithmetic.

use std::rc::Rc;

use jiff::{SignedDuration, Timestamp};

use crate::cel::decl::DeclKind;
use crate::cel::eval::{gotime, ops};
use crate::cel::functions::{Impl, Outcome};
use crate::cel::schema::ListType;
use crate::cel::value::{EvalError, List, Value};

fn err<'a>(m: &str) -> Outcome<'a> {
    Err(EvalError::new(m))
}

fn int_overflow<'a>() -> Outcome<'a> {
    err("integer overflow")
}

fn uint_overflow<'a>() -> Outcome<'a> {
    err("unsigned integer overflow")
}

fn nso<'a>() -> Outcome<'a> {
    Err(ops::no_such_overload())
}

macro_rules! int_op {
    ($name:ident, $method:ident) => {
        fn $name<'a>(a: &Value<'a>, b: &Value<'a>) -> Outcome<'a> {
            match (a, b) {
                (Value::Int(x), Value::Int(y)) => x
                    .$method(*y)
                    .map_or_else(int_overflow, |v| Ok(Value::Int(v))),
                _ => nso(),
            }
        }
    };
}

macro_rules! uint_op {
    ($name:ident, $method:ident) => {
        fn $name<'a>(a: &Value<'a>, b: &Value<'a>) -> Outcome<'a> {
            match (a, b) {
                (Value::Uint(x), Value::Uint(y)) => x
                    .$method(*y)
                    .map_or_else(uint_overflow, |v| Ok(Value::Uint(v))),
                _ => nso(),
            }
        }
    };
}

macro_rules! double_op {
    ($name:ident, $op:tt) => {
        fn $name<'a>(a: &Value<'a>, b: &Value<'a>) -> Outcome<'a> {
            match (a, b) {
                (Value::Double(x), Value::Double(y)) => Ok(Value::Double(x $op y)),
                _ => nso(),
            }
        }
    };
}

int_op!(add_int64, checked_add);
int_op!(subtract_int64, checked_sub);
int_op!(multiply_int64, checked_mul);
uint_op!(add_uint64, checked_add);
uint_op!(subtract_uint64, checked_sub);
uint_op!(multiply_uint64, checked_mul);
double_op!(add_double, +);
double_op!(subtract_double, -);
double_op!(multiply_double, *);
double_op!(divide_double, /);

fn divide_int64<'a>(a: &Value<'a>, b: &Value<'a>) -> Outcome<'a> {
    match (a, b) {
        (Value::Int(_), Value::Int(0)) => err("division by zero"),
        (Value::Int(x), Value::Int(y)) => x
            .checked_div(*y)
            .map_or_else(int_overflow, |v| Ok(Value::Int(v))),
        _ => nso(),
    }
}

fn modulo_int64<'a>(a: &Value<'a>, b: &Value<'a>) -> Outcome<'a> {
    match (a, b) {
        (Value::Int(_), Value::Int(0)) => err("modulus by zero"),
        (Value::Int(x), Value::Int(y)) => x
            .checked_rem(*y)
            .map_or_else(int_overflow, |v| Ok(Value::Int(v))),
        _ => nso(),
    }
}

fn divide_uint64<'a>(a: &Value<'a>, b: &Value<'a>) -> Outcome<'a> {
    match (a, b) {
        (Value::Uint(_), Value::Uint(0)) => err("division by zero"),
        (Value::Uint(x), Value::Uint(y)) => Ok(Value::Uint(x / y)),
        _ => nso(),
    }
}

fn modulo_uint64<'a>(a: &Value<'a>, b: &Value<'a>) -> Outcome<'a> {
    match (a, b) {
        (Value::Uint(_), Value::Uint(0)) => err("modulus by zero"),
        (Value::Uint(x), Value::Uint(y)) => Ok(Value::Uint(x % y)),
        _ => nso(),
    }
}

fn negate_int64<'a>(a: &Value<'a>) -> Outcome<'a> {
    match a {
        Value::Int(x) => x
            .checked_neg()
            .map_or_else(int_overflow, |v| Ok(Value::Int(v))),
        _ => nso(),
    }
}

fn negate_double<'a>(a: &Value<'a>) -> Outcome<'a> {
    match a {
        Value::Double(x) => Ok(Value::Double(-x)),
        _ => nso(),
    }
}

fn add_string<'a>(a: &Value<'a>, b: &Value<'a>) -> Outcome<'a> {
    match (a, b) {
        (Value::String(x), Value::String(y)) => Ok(ops::string(&[x.as_str(), y.as_str()].concat())),
        _ => nso(),
    }
}

fn add_bytes<'a>(a: &Value<'a>, b: &Value<'a>) -> Outcome<'a> {
    match (a, b) {
        (Value::Bytes(x), Value::Bytes(y)) => Ok(Value::Bytes(Rc::from([&x[..], &y[..]].concat()))),
        _ => nso(),
    }
}

/// List concatenation; a schema list of type `set` keeps unique elements and one of
/// type `map` lets later elements replace those with the same keys (kube's values.go).
fn add_list<'a>(a: &Value<'a>, b: &Value<'a>) -> Outcome<'a> {
    let (Value::List(x), Value::List(y)) = (a, b) else {
        return nso();
    };
    let mut out = ops::list_items(x)?;
    let schema = match x {
        List::Json { decl, .. } => Some(*decl),
        List::Owned(items) => items.schema,
    };
    let list_type = schema.and_then(|decl| match &decl.kind {
        DeclKind::List {
            list_type: list_type @ (ListType::Set | ListType::Map),
            map_keys,
            ..
        } => Some((decl, *list_type, map_keys.as_slice())),
        _ => None,
    });
    for v in ops::list_items(y)? {
        match list_type {
            Some((_, ListType::Set, _)) => {
                if !contains(&out, &v)? {
                    out.push(v);
                }
            }
            Some((_, ListType::Map, keys)) => match position_by_keys(&out, &v, keys)? {
                Some(i) => out[i] = v,
                None => out.push(v),
            },
            _ => out.push(v),
        }
    }
    // The result keeps the set or map semantics (kube's values.go).
    Ok(match list_type {
        Some((decl, ..)) => Value::schema_list(out, decl),
        None => Value::list(out),
    })
}

fn contains(items: &[Value<'_>], v: &Value<'_>) -> Result<bool, EvalError> {
    for item in items {
        if ops::equal(item, v)? {
            return Ok(true);
        }
    }
    Ok(false)
}

fn key_of<'a>(item: &Value<'a>, keys: &[String]) -> Result<Vec<Option<Value<'a>>>, EvalError> {
    keys.iter()
        .map(|k| {
            let name = crate::cel::decl::escape(k).unwrap_or_else(|| k.clone());
            ops::find(item, &ops::string(&name))
        })
        .collect()
}

fn position_by_keys(
    items: &[Value<'_>],
    v: &Value<'_>,
    keys: &[String],
) -> Result<Option<usize>, EvalError> {
    let wanted = key_of(v, keys)?;
    for (i, item) in items.iter().enumerate() {
        let have = key_of(item, keys)?;
        let same = have.iter().zip(&wanted).all(|(a, b)| match (a, b) {
            (Some(a), Some(b)) => ops::equal(a, b).unwrap_or(false),
            (None, None) => true,
            _ => false,
        });
        if same {
            return Ok(Some(i));
        }
    }
    Ok(None)
}

fn duration_of<'a>(nanos: Option<i64>) -> Outcome<'a> {
    nanos.map_or_else(int_overflow, |n| {
        Ok(Value::Duration(SignedDuration::from_nanos(n)))
    })
}

fn timestamp_plus<'a>(t: Timestamp, d: SignedDuration) -> Outcome<'a> {
    let nanos = t.as_nanosecond() + d.as_nanos();
    let secs = nanos.div_euclid(1_000_000_000);
    if secs < i128::from(gotime::MIN_UNIX_SECONDS) || secs > i128::from(gotime::MAX_UNIX_SECONDS) {
        return err("timestamp overflow");
    }
    Timestamp::from_nanosecond(nanos)
        .map_or_else(|_| err("timestamp overflow"), |t| Ok(Value::Timestamp(t)))
}

fn add_duration_duration<'a>(a: &Value<'a>, b: &Value<'a>) -> Outcome<'a> {
    match (a, b) {
        (Value::Duration(x), Value::Duration(y)) => duration_of(
            gotime::nanos(*x)
                .zip(gotime::nanos(*y))
                .and_then(|(x, y)| x.checked_add(y)),
        ),
        _ => nso(),
    }
}

fn subtract_duration_duration<'a>(a: &Value<'a>, b: &Value<'a>) -> Outcome<'a> {
    match (a, b) {
        (Value::Duration(x), Value::Duration(y)) => duration_of(
            gotime::nanos(*x)
                .zip(gotime::nanos(*y))
                .and_then(|(x, y)| x.checked_sub(y)),
        ),
        _ => nso(),
    }
}

fn add_timestamp_duration<'a>(a: &Value<'a>, b: &Value<'a>) -> Outcome<'a> {
    match (a, b) {
        (Value::Timestamp(t), Value::Duration(d)) | (Value::Duration(d), Value::Timestamp(t)) => {
            timestamp_plus(*t, *d)
        }
        _ => nso(),
    }
}

fn subtract_timestamp_duration<'a>(a: &Value<'a>, b: &Value<'a>) -> Outcome<'a> {
    match (a, b) {
        (Value::Timestamp(t), Value::Duration(d)) => timestamp_plus(*t, -*d),
        _ => nso(),
    }
}

fn subtract_timestamp_timestamp<'a>(a: &Value<'a>, b: &Value<'a>) -> Outcome<'a> {
    match (a, b) {
        (Value::Timestamp(x), Value::Timestamp(y)) => {
            duration_of(i64::try_from(x.as_nanosecond() - y.as_nanosecond()).ok())
        }
        _ => nso(),
    }
}

pub(super) fn impls() -> Vec<(&'static str, Impl)> {
    vec![
        ("add_int64", Impl::Binary(add_int64)),
        ("add_uint64", Impl::Binary(add_uint64)),
        ("add_double", Impl::Binary(add_double)),
        ("add_string", Impl::Binary(add_string)),
        ("add_bytes", Impl::Binary(add_bytes)),
        ("add_list", Impl::Binary(add_list)),
        ("add_duration_duration", Impl::Binary(add_duration_duration)),
        (
            "add_timestamp_duration",
            Impl::Binary(add_timestamp_duration),
        ),
        (
            "add_duration_timestamp",
            Impl::Binary(add_timestamp_duration),
        ),
        ("subtract_int64", Impl::Binary(subtract_int64)),
        ("subtract_uint64", Impl::Binary(subtract_uint64)),
        ("subtract_double", Impl::Binary(subtract_double)),
        (
            "subtract_duration_duration",
            Impl::Binary(subtract_duration_duration),
        ),
        (
            "subtract_timestamp_duration",
            Impl::Binary(subtract_timestamp_duration),
        ),
        (
            "subtract_timestamp_timestamp",
            Impl::Binary(subtract_timestamp_timestamp),
        ),
        ("multiply_int64", Impl::Binary(multiply_int64)),
        ("multiply_uint64", Impl::Binary(multiply_uint64)),
        ("multiply_double", Impl::Binary(multiply_double)),
        ("divide_int64", Impl::Binary(divide_int64)),
        ("divide_uint64", Impl::Binary(divide_uint64)),
        ("divide_double", Impl::Binary(divide_double)),
        ("modulo_int64", Impl::Binary(modulo_int64)),
        ("modulo_uint64", Impl::Binary(modulo_uint64)),
        ("negate_int64", Impl::Unary(negate_int64)),
        ("negate_double", Impl::Unary(negate_double)),
    ]
}
