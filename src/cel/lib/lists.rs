//! kube's list library (k8s.io/apiserver `pkg/cel/library/lists.go`): `isSorted`, `sum`,
//! `min`, `max` over lists of comparable (summable) element types, and `indexOf` /
//! `lastIndexOf` over any list. Comparison errors between elements are ignored as kube
//! ignores them (only a result of exactly 1 or -1 counts).

#[cfg(test)]
mod tests;

use std::cmp::Ordering;

use jiff::SignedDuration;

use super::argv::no_such_overload;
use super::elems::{self, add, compare, equal, is_comparable, items};
use crate::cel::functions::{Decl, Impl, Library, Outcome};
use crate::cel::types::Type;
use crate::cel::value::{EvalError, Value};

/// kube's `comparableTypes`, in its order, with the names in the overload ids.
const COMPARABLE: [(&str, Type); 8] = [
    ("int", Type::Int),
    ("uint", Type::Uint),
    ("double", Type::Double),
    ("bool", Type::Bool),
    ("duration", Type::Duration),
    ("timestamp", Type::Timestamp),
    ("string", Type::String),
    ("bytes", Type::Bytes),
];

/// Overload ids are `&'static str`; kube's are built with `fmt.Sprintf`.
const IS_SORTED: [&str; 8] = [
    "list_int_is_sorted_bool",
    "list_uint_is_sorted_bool",
    "list_double_is_sorted_bool",
    "list_bool_is_sorted_bool",
    "list_duration_is_sorted_bool",
    "list_timestamp_is_sorted_bool",
    "list_string_is_sorted_bool",
    "list_bytes_is_sorted_bool",
];
const MAX: [&str; 8] = [
    "list_int_max_int",
    "list_uint_max_uint",
    "list_double_max_double",
    "list_bool_max_bool",
    "list_duration_max_duration",
    "list_timestamp_max_timestamp",
    "list_string_max_string",
    "list_bytes_max_bytes",
];
const MIN: [&str; 8] = [
    "list_int_min_int",
    "list_uint_min_uint",
    "list_double_min_double",
    "list_bool_min_bool",
    "list_duration_min_duration",
    "list_timestamp_min_timestamp",
    "list_string_min_string",
    "list_bytes_min_bytes",
];

/// The list library's overloads.
pub fn library() -> Library {
    let mut lib = Library::default();
    for (i, (_, t)) in COMPARABLE.iter().enumerate() {
        let list = Type::list(t.clone());
        lib.decls.push(Decl::member(
            IS_SORTED[i],
            "isSorted",
            vec![list.clone()],
            Type::Bool,
        ));
        lib.decls
            .push(Decl::member(MAX[i], "max", vec![list.clone()], t.clone()));
        lib.decls
            .push(Decl::member(MIN[i], "min", vec![list], t.clone()));
        lib.impls.push((IS_SORTED[i], Impl::Unary(is_sorted)));
        lib.impls.push((MAX[i], Impl::Unary(max)));
        lib.impls.push((MIN[i], Impl::Unary(min)));
    }
    let sums: [(&'static str, Type, Impl); 4] = [
        ("list_int_sum_int", Type::Int, Impl::Unary(sum_int)),
        ("list_uint_sum_uint", Type::Uint, Impl::Unary(sum_uint)),
        (
            "list_double_sum_double",
            Type::Double,
            Impl::Unary(sum_double),
        ),
        (
            "list_duration_sum_duration",
            Type::Duration,
            Impl::Unary(sum_duration),
        ),
    ];
    for (id, t, imp) in sums {
        lib.decls
            .push(Decl::member(id, "sum", vec![Type::list(t.clone())], t));
        lib.impls.push((id, imp));
    }
    let a = || Type::Param("A");
    let list_a = || Type::list(a());
    lib.decls.push(Decl::member(
        "list_a_index_of_int",
        "indexOf",
        vec![list_a(), a()],
        Type::Int,
    ));
    lib.decls.push(Decl::member(
        "list_a_last_index_of_int",
        "lastIndexOf",
        vec![list_a(), a()],
        Type::Int,
    ));
    lib.impls
        .push(("list_a_index_of_int", Impl::Binary(index_of)));
    lib.impls
        .push(("list_a_last_index_of_int", Impl::Binary(last_index_of)));
    lib
}

fn comparable<'v, 'a>(v: &'v Value<'a>) -> Result<&'v Value<'a>, EvalError> {
    if is_comparable(v) {
        Ok(v)
    } else {
        Err(no_such_overload())
    }
}

fn is_sorted<'a>(list: &Value<'a>) -> Outcome<'a> {
    let mut prev: Option<Value<'a>> = None;
    for next in items(list)? {
        comparable(&next)?;
        if let Some(p) = &prev
            && compare(p, &next).ok() == Some(Ordering::Greater)
        {
            return Ok(Value::Bool(false));
        }
        prev = Some(next);
    }
    Ok(Value::Bool(true))
}

fn sum<'a>(list: &Value<'a>, zero: Value<'a>) -> Outcome<'a> {
    items(list)?
        .iter()
        .try_fold(zero, |acc, next| add(&acc, next))
}

fn sum_int<'a>(list: &Value<'a>) -> Outcome<'a> {
    sum(list, Value::Int(0))
}

fn sum_uint<'a>(list: &Value<'a>) -> Outcome<'a> {
    sum(list, Value::Uint(0))
}

fn sum_double<'a>(list: &Value<'a>) -> Outcome<'a> {
    sum(list, Value::Double(0.0))
}

fn sum_duration<'a>(list: &Value<'a>) -> Outcome<'a> {
    sum(list, Value::Duration(SignedDuration::ZERO))
}

/// kube's `cmp`: the running result is replaced when it compares as `replace_when`
/// against the next element.
fn extreme<'a>(list: &Value<'a>, name: &str, replace_when: Ordering) -> Outcome<'a> {
    let mut result: Option<Value<'a>> = None;
    for next in items(list)? {
        comparable(&next)?;
        match &result {
            Some(r) if compare(r, &next).ok() != Some(replace_when) => {}
            _ => result = Some(next),
        }
    }
    result.ok_or_else(|| EvalError::new(format!("{name} called on empty list")))
}

fn min<'a>(list: &Value<'a>) -> Outcome<'a> {
    extreme(list, "min", Ordering::Greater)
}

fn max<'a>(list: &Value<'a>) -> Outcome<'a> {
    extreme(list, "max", Ordering::Less)
}

/// Whether element `i` equals the item (`Get(i).Equal(item) == True`).
fn matches_at(list: &Value<'_>, i: usize, item: &Value<'_>) -> Result<bool, EvalError> {
    let elem = crate::cel::eval::ops::list_get(elems::list_of(list)?, i)?;
    Ok(equal(&elem, item).unwrap_or(false))
}

fn index_of<'a>(list: &Value<'a>, item: &Value<'a>) -> Outcome<'a> {
    let len = crate::cel::eval::ops::list_len(elems::list_of(list)?);
    for i in 0..len {
        if matches_at(list, i, item)? {
            return Ok(Value::Int(i as i64));
        }
    }
    Ok(Value::Int(-1))
}

fn last_index_of<'a>(list: &Value<'a>, item: &Value<'a>) -> Outcome<'a> {
    let len = crate::cel::eval::ops::list_len(elems::list_of(list)?);
    for i in (0..len).rev() {
        if matches_at(list, i, item)? {
            return Ok(Value::Int(i as i64));
        }
    }
    Ok(Value::Int(-1))
}
