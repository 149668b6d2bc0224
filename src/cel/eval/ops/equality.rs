//! CEL equality (`_==_`) with cel-go's and kube's semantics: cross-type numbers, each
//! operand kind's own `Equal`, kube's set and map lists.

use crate::cel::decl::DeclKind;
use crate::cel::schema::ListType;
use crate::cel::value::{EvalError, List, Map, Value};

use super::super::json;
use super::{list_get, list_len, map_entries, map_find, map_len, type_runtime_name};

pub(super) fn numeric_equal(a: &Value<'_>, b: &Value<'_>) -> Option<bool> {
    const I64_MIN_F: f64 = -9.223_372_036_854_776e18;
    const I64_MAX_F: f64 = 9.223_372_036_854_776e18;
    const U64_MAX_F: f64 = 1.844_674_407_370_955_2e19;
    Some(match (a, b) {
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::Uint(x), Value::Uint(y)) => x == y,
        (Value::Double(x), Value::Double(y)) => x == y,
        (Value::Int(i), Value::Uint(u)) | (Value::Uint(u), Value::Int(i)) => {
            u64::try_from(*i).is_ok_and(|i| i == *u)
        }
        (Value::Int(i), Value::Double(d)) | (Value::Double(d), Value::Int(i)) => {
            (I64_MIN_F..I64_MAX_F).contains(d) && (*i as f64) == *d
        }
        (Value::Uint(u), Value::Double(d)) | (Value::Double(d), Value::Uint(u)) => {
            (0.0..U64_MAX_F).contains(d) && (*u as f64) == *d
        }
        _ => return None,
    })
}

/// CEL equality (`_==_`): values of different kinds are unequal, numbers compare across
/// types, and a schema list of type `set` or `map` on the left compares as kube's
/// `unstructuredSetList` / `unstructuredMapList` do.
pub fn equal(a: &Value<'_>, b: &Value<'_>) -> Result<bool, EvalError> {
    if let Some(eq) = numeric_equal(a, b) {
        return Ok(eq);
    }
    // cel-go's `types.Equal` answers for null before asking either operand.
    if matches!(a, Value::Null) || matches!(b, Value::Null) {
        return Ok(matches!((a, b), (Value::Null, Value::Null)));
    }
    Ok(match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::String(x), Value::String(y)) => x.as_str() == y.as_str(),
        (Value::Bytes(x), Value::Bytes(y)) => x == y,
        (Value::Duration(x), Value::Duration(y)) => x == y,
        (Value::Timestamp(x), Value::Timestamp(y)) => x == y,
        (Value::Type(x), Value::Type(y)) => type_runtime_name(x) == type_runtime_name(y),
        (Value::Optional(x), Value::Optional(y)) => match (x, y) {
            (None, None) => true,
            (Some(x), Some(y)) => equal(x, y)?,
            _ => false,
        },
        // The left operand's own Equal decides, as in cel-go (a Quantity refuses others).
        (Value::Opaque(x), y) => x.try_equals(match y {
            Value::Opaque(o) => Some(&**o),
            _ => None,
        })?,
        (Value::List(x), Value::List(y)) => list_equal(x, y)?,
        (Value::Map(x), Value::Map(y)) => map_equal(x, y)?,
        _ => false,
    })
}

fn list_equal(a: &List<'_>, b: &List<'_>) -> Result<bool, EvalError> {
    if list_len(a) != list_len(b) {
        return Ok(false);
    }
    if let List::Json { items, decl } = a
        && let DeclKind::List {
            elem,
            list_type,
            map_keys,
        } = &decl.kind
    {
        match list_type {
            ListType::Set => return json::set_list_equal(items, b),
            ListType::Map => return json::map_list_equal(items, elem, map_keys, b),
            ListType::Atomic => {}
        }
    }
    if let List::Owned(items) = a
        && let Some(eq) = crate::cel::value::schema_list::equal(items, b)
    {
        return eq;
    }
    // cel-go's own lists (and schemaless JSON, which cel-go adapts as its own) skip
    // element comparisons that fail; kube's JSON lists fail.
    let owned = match a {
        List::Owned(_) => true,
        List::Json { decl, .. } => matches!(decl.kind, DeclKind::Dyn),
    };
    for i in 0..list_len(a) {
        match equal(&list_get(a, i)?, &list_get(b, i)?) {
            Ok(false) => return Ok(false),
            Err(e) if !owned => return Err(e),
            _ => {}
        }
    }
    Ok(true)
}

fn map_equal(a: &Map<'_>, b: &Map<'_>) -> Result<bool, EvalError> {
    if map_len(a) != map_len(b) {
        return Ok(false);
    }
    if let Map::Json { fields, decl } = a
        && !matches!(decl.kind, DeclKind::Dyn)
    {
        return json::object_equal(fields, decl, b);
    }
    // As lists: cel-go's own maps (schemaless JSON too) skip value comparisons that fail.
    for (k, v) in map_entries(a)? {
        match map_find(b, &k)? {
            Some(other) if !matches!(equal(&v, &other), Ok(false)) => {}
            _ => return Ok(false),
        }
    }
    Ok(true)
}
