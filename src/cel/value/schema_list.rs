//! Equality of computed lists that kept a schema list's type (see [`super::Items`]):
//! kube's `unstructuredSetList.Equal` and `unstructuredMapList.Equal` with the computed
//! list on the left.

use serde_json::{Map as JsonMap, Value as Json};

use super::{EvalError, Items, List, Map, Value};
use crate::cel::decl::{DeclKind, escape};
use crate::cel::eval::ops;
use crate::cel::schema::ListType;

/// `Some(a == b)` when `a` keeps set or map list semantics (sizes already equal),
/// `None` for a plain list.
pub fn equal(a: &Items<'_>, b: &List<'_>) -> Option<Result<bool, EvalError>> {
    let DeclKind::List {
        list_type,
        map_keys,
        ..
    } = &a.schema?.kind
    else {
        return None;
    };
    match list_type {
        ListType::Set => Some(set_equal(a, b)),
        ListType::Map => Some(map_equal(a, map_keys, b)),
        ListType::Atomic => None,
    }
}

/// A scalar as Go holds it natively, which set membership compares (Go map keys: no
/// cross-type numeric equality).
#[derive(PartialEq)]
enum Native<'v> {
    Int(i64),
    Uint(u64),
    Float(f64),
    Str(&'v str),
    Bool(bool),
}

fn native<'v>(v: &'v Value<'_>) -> Option<Native<'v>> {
    match v {
        Value::Int(i) => Some(Native::Int(*i)),
        Value::Uint(u) => Some(Native::Uint(*u)),
        Value::Double(d) => Some(Native::Float(*d)),
        Value::String(s) => Some(Native::Str(s.as_str())),
        Value::Bool(b) => Some(Native::Bool(*b)),
        _ => None,
    }
}

/// Every element of `b` is one of `a`'s.
fn set_equal(a: &Items<'_>, b: &List<'_>) -> Result<bool, EvalError> {
    let mine: Vec<Native<'_>> = a.iter().filter_map(native).collect();
    for v in ops::list_items(b)? {
        match native(&v) {
            Some(n) if mine.contains(&n) => {}
            _ => return Ok(false),
        }
    }
    Ok(true)
}

/// Every element of `b` equals `a`'s element with the same key (the last one with it,
/// as kube indexes them). Keys are read from elements taken from the object only.
fn map_equal(a: &Items<'_>, keys: &[String], b: &List<'_>) -> Result<bool, EvalError> {
    let escaped: Vec<String> = keys
        .iter()
        .map(|k| escape(k).unwrap_or(k.clone()))
        .collect();
    let key_of = |v: &Value<'_>| -> Option<Vec<Json>> {
        let fields: &JsonMap<String, Json> = match v {
            Value::Map(Map::Json { fields, .. } | Map::Untyped(fields)) => fields,
            _ => return None,
        };
        Some(
            escaped
                .iter()
                .map(|k| fields.get(k).cloned().unwrap_or(Json::Null))
                .collect(),
        )
    };
    for theirs in ops::list_items(b)? {
        let Some(key) = key_of(&theirs) else {
            return Ok(false);
        };
        let mine = a.iter().rev().find(|m| key_of(m).as_ref() == Some(&key));
        match mine {
            Some(m) if ops::equal(m, &theirs)? => {}
            _ => return Ok(false),
        }
    }
    Ok(true)
}
