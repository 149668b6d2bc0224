//! cel-go's sets extension (`ext.Sets()`, as kube enables it): `sets.contains`,
//! `sets.equivalent` and `sets.intersects` over lists, with membership as each list
//! kind implements `Contains`: a computed list asks the candidate (`x.Equal(elem)`,
//! errors unequal), a list of the object asks its element (`elem.Equal(x)`) and reports
//! the first error when nothing matched (kube's `unstructuredList`).

use super::elems::{equal, items, list_of};
use crate::cel::eval::ops::{list_get, list_len};
use crate::cel::functions::{Decl, Impl, Library, Outcome};
use crate::cel::lib::argv::no_such_overload;
use crate::cel::types::Type;
use crate::cel::value::{EvalError, List, Value};

/// The sets extension's overloads.
pub fn library() -> Library {
    let list = || Type::list(Type::Param("T"));
    let decls = vec![
        Decl::global(
            "list_sets_contains_list",
            "sets.contains",
            vec![list(), list()],
            Type::Bool,
        ),
        Decl::global(
            "list_sets_equivalent_list",
            "sets.equivalent",
            vec![list(), list()],
            Type::Bool,
        ),
        Decl::global(
            "list_sets_intersects_list",
            "sets.intersects",
            vec![list(), list()],
            Type::Bool,
        ),
    ];
    let impls = vec![
        ("list_sets_contains_list", Impl::Binary(sets_contains)),
        ("list_sets_equivalent_list", Impl::Binary(sets_equivalent)),
        ("list_sets_intersects_list", Impl::Binary(sets_intersects)),
    ];
    Library { decls, impls }
}

/// `Lister.Contains(x)`: true, false, or (object lists only) an error.
pub fn list_contains(list: &List<'_>, x: &Value<'_>) -> Result<bool, EvalError> {
    match list {
        List::Owned(elements) => Ok(elements.iter().any(|e| equal(x, e).unwrap_or(false))),
        List::Json { .. } => {
            let mut first_error = None;
            for i in 0..list_len(list) {
                let elem = list_get(list, i)?;
                match json_element_equal(&elem, x) {
                    Ok(true) => return Ok(true),
                    Ok(false) => {}
                    Err(e) => {
                        first_error.get_or_insert(e);
                    }
                }
            }
            first_error.map_or(Ok(false), Err)
        }
    }
}

/// `Equal` of a value read from the object: its lists and objects refuse to be compared
/// with anything but a list or a map (`no such overload`).
fn json_element_equal(elem: &Value<'_>, x: &Value<'_>) -> Result<bool, EvalError> {
    match (elem, x) {
        (Value::List(_), Value::List(_)) | (Value::Map(_), Value::Map(_)) => equal(elem, x),
        (Value::List(_) | Value::Map(_), _) => Err(no_such_overload()),
        _ => equal(elem, x),
    }
}

/// `setsContains`: every element of `sub` is in `list`; the first answer that is not
/// true (false or an error) is the result.
fn contains(list: &Value<'_>, sub: &Value<'_>) -> Result<bool, EvalError> {
    let list = list_of(list)?;
    for x in items(sub)? {
        if !list_contains(list, &x)? {
            return Ok(false);
        }
    }
    Ok(true)
}

fn sets_contains<'a>(list: &Value<'a>, sub: &Value<'a>) -> Outcome<'a> {
    contains(list, sub).map(Value::Bool)
}

fn sets_equivalent<'a>(a: &Value<'a>, b: &Value<'a>) -> Outcome<'a> {
    Ok(Value::Bool(contains(a, b)? && contains(b, a)?))
}

/// `setsIntersects`: errors count as not contained.
fn sets_intersects<'a>(a: &Value<'a>, b: &Value<'a>) -> Outcome<'a> {
    let b = list_of(b)?;
    for x in items(a)? {
        if list_contains(b, &x).unwrap_or(false) {
            return Ok(Value::Bool(true));
        }
    }
    Ok(Value::Bool(false))
}
