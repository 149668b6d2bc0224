//! Value operations the evaluator and the standard library share: CEL's heterogeneous
//! equality (cross-type numeric, kube's set and map list semantics), run-time type
//! names, indexing and field selection with cel-go's error texts, sizes, and Go's
//! `%v` / `%g` rendering of values inside messages.

use std::rc::Rc;

use crate::cel::decl::DeclKind;
use crate::cel::types::Type;
use crate::cel::value::{EvalError, List, Map, Value};

use super::json;

mod dispatch;
mod equality;
mod gofmt;

pub use dispatch::{dispatch_failure, dispatch_fallback, no_matching_overload, no_such_overload};
pub use equality::equal;
use equality::numeric_equal;
pub use gofmt::{format_g, go_format, go_type};

pub type Outcome<'a> = Result<Value<'a>, EvalError>;

/// cel-go's run-time type name of a value.
pub fn type_name<'v>(value: &'v Value<'_>) -> &'v str {
    match value {
        Value::Null => "null_type",
        Value::Bool(_) => "bool",
        Value::Int(_) => "int",
        Value::Uint(_) => "uint",
        Value::Double(_) => "double",
        Value::String(_) => "string",
        Value::Bytes(_) => "bytes",
        Value::Duration(_) => "google.protobuf.Duration",
        Value::Timestamp(_) => "google.protobuf.Timestamp",
        Value::List(_) => "list",
        Value::Map(_) => "map",
        Value::Type(_) => "type",
        Value::Optional(_) => "optional_type",
        Value::Opaque(o) => o.type_name(),
    }
}

/// The type value `type(v)` returns.
pub fn type_of(value: &Value<'_>) -> Type {
    match value {
        Value::Null => Type::Null,
        Value::Bool(_) => Type::Bool,
        Value::Int(_) => Type::Int,
        Value::Uint(_) => Type::Uint,
        Value::Double(_) => Type::Double,
        Value::String(_) => Type::String,
        Value::Bytes(_) => Type::Bytes,
        Value::Duration(_) => Type::Duration,
        Value::Timestamp(_) => Type::Timestamp,
        Value::List(_) => Type::list(Type::Dyn),
        Value::Map(_) => Type::map(Type::Dyn, Type::Dyn),
        Value::Type(_) => Type::type_of(Type::Dyn),
        Value::Optional(_) => Type::optional(Type::Dyn),
        Value::Opaque(o) => Type::Opaque(o.type_name()),
    }
}

/// The run-time name of a type value (type values compare by it, as in cel-go).
pub fn type_runtime_name(t: &Type) -> String {
    runtime_name(t).to_string()
}

/// [`type_runtime_name`] without allocating (overload guards run it on every call).
fn runtime_name(t: &Type) -> &'static str {
    match t {
        Type::List(_) => "list",
        Type::Map(..) | Type::Object(_) => "map",
        Type::Optional(_) => "optional_type",
        Type::Type(_) => "type",
        Type::Dyn => "dyn",
        Type::Null => "null_type",
        Type::Bool => "bool",
        Type::Int => "int",
        Type::Uint => "uint",
        Type::Double => "double",
        Type::String => "string",
        Type::Bytes => "bytes",
        Type::Duration => "google.protobuf.Duration",
        Type::Timestamp => "google.protobuf.Timestamp",
        Type::Opaque(name) | Type::Param(name) => name,
        Type::Error => "*error*",
    }
}

/// Whether a value may be passed where an overload declares `param` (cel-go's
/// `IsAssignableRuntimeType`: the type names agree; lists and maps check their first
/// element).
pub fn matches_param(param: &Type, value: &Value<'_>) -> bool {
    match (param, value) {
        (Type::Dyn | Type::Param(_), _) => true,
        // Any element or entry fits: none is read (nor converted).
        (Type::List(elem), Value::List(_)) if any_type(elem) => true,
        (Type::Map(k, v), Value::Map(_)) if any_type(k) && any_type(v) => true,
        (Type::List(elem), Value::List(l)) => match list_len(l) {
            0 => true,
            _ => list_get(l, 0).is_ok_and(|v| matches_param(elem, &v)),
        },
        (Type::Map(k, v), Value::Map(m)) => match map_entries(m) {
            Ok(entries) => entries
                .first()
                .is_none_or(|(key, val)| matches_param(k, key) && matches_param(v, val)),
            Err(_) => false,
        },
        (Type::Opaque(name), Value::Opaque(o)) => *name == o.type_name(),
        (Type::Optional(_), Value::Optional(_)) | (Type::Type(_), Value::Type(_)) => true,
        (Type::Object(_), _) => false,
        (param, value) => runtime_name(param) == type_name(value),
    }
}

fn any_type(t: &Type) -> bool {
    matches!(t, Type::Dyn | Type::Param(_))
}

pub fn list_len(list: &List<'_>) -> usize {
    match list {
        List::Json { items, .. } => items.len(),
        List::Owned(items) => items.len(),
    }
}

/// The element at `i` (in bounds).
pub fn list_get<'a>(list: &List<'a>, i: usize) -> Outcome<'a> {
    match list {
        List::Json { items, decl } => match (items.get(i), &decl.kind) {
            (Some(item), DeclKind::List { elem, .. }) => json::try_from_json(item, elem),
            (Some(item), DeclKind::Dyn) => json::try_from_json(item, decl),
            _ => Err(EvalError::new(format!("index out of bounds: {i}"))),
        },
        List::Owned(items) => items
            .get(i)
            .cloned()
            .ok_or_else(|| EvalError::new(format!("index out of bounds: {i}"))),
    }
}

pub fn list_items<'a>(list: &List<'a>) -> Result<Vec<Value<'a>>, EvalError> {
    (0..list_len(list)).map(|i| list_get(list, i)).collect()
}

/// cel-go's map size: a JSON object counts every property present.
pub fn map_len(map: &Map<'_>) -> usize {
    match map {
        Map::Json { fields, .. } | Map::Untyped(fields) => fields.len(),
        Map::Owned(entries) => entries.len(),
    }
}

/// The entries a comprehension or an equality sees: a typed object shows its declared
/// properties under their CEL names.
pub fn map_entries<'a>(map: &Map<'a>) -> Result<Vec<(Value<'a>, Value<'a>)>, EvalError> {
    match map {
        Map::Json { fields, decl } => json::map_entries(fields, decl),
        Map::Untyped(_) => Ok(Vec::new()),
        Map::Owned(entries) => Ok(entries.to_vec()),
    }
}

pub fn map_keys<'a>(map: &Map<'a>) -> Result<Vec<Value<'a>>, EvalError> {
    match map {
        Map::Json { fields, decl } => Ok(json::map_keys(fields, decl)),
        _ => Ok(map_entries(map)?.into_iter().map(|(k, _)| k).collect()),
    }
}

/// A map entry by key (`None` when absent).
pub fn map_find<'a>(map: &Map<'a>, key: &Value<'_>) -> Result<Option<Value<'a>>, EvalError> {
    match map {
        Map::Json { fields, decl } => match key {
            Value::String(k) => json::map_find(fields, decl, k.as_str()),
            _ => Err(no_such_overload()),
        },
        Map::Untyped(_) => Ok(None),
        Map::Owned(entries) => Ok(entries
            .iter()
            .find(|(k, _)| key_equal(k, key))
            .map(|(_, v)| v.clone())),
    }
}

/// Map keys compare with numeric cross-type equality.
fn key_equal(a: &Value<'_>, b: &Value<'_>) -> bool {
    match (a, b) {
        (Value::String(x), Value::String(y)) => x.as_str() == y.as_str(),
        (Value::Bool(x), Value::Bool(y)) => x == y,
        _ => numeric_equal(a, b).unwrap_or(false),
    }
}

/// A list index as cel-go's `IndexOrError` reads it.
fn list_index(key: &Value<'_>) -> Result<i64, EvalError> {
    match key {
        Value::Int(i) => Ok(*i),
        Value::Double(d)
            if d.fract() == 0.0
                && *d >= -9.223_372_036_854_776e18
                && *d < 9.223_372_036_854_776e18 =>
        {
            Ok(*d as i64)
        }
        Value::Uint(u) if i64::try_from(*u).is_ok() => Ok(*u as i64),
        Value::Double(_) | Value::Uint(_) => Err(EvalError::new(format!(
            "unsupported index value {} in list",
            go_format(key)
        ))),
        other => Err(EvalError::new(format!(
            "unsupported index type '{}' in list",
            type_name(other)
        ))),
    }
}

/// `obj[key]` / `obj.key`: cel-go's `refQualify` (`no such key: k`, `index out of bounds: i`).
pub fn index<'a>(obj: &Value<'a>, key: &Value<'_>) -> Outcome<'a> {
    if let Some((_, v)) = struct_field(obj, key) {
        return Ok(v);
    }
    match find(obj, key)? {
        Some(v) => Ok(v),
        None => Err(match obj {
            Value::List(_) => EvalError::new(format!("index out of bounds: {}", go_format(key))),
            _ => EvalError::new(format!("no such key: {}", go_format(key))),
        }),
    }
}

/// A computed key as cel-go's `NewQualifier` takes it: values of kinds it has no
/// qualifier for are refused (`invalid qualifier type: types.Null`).
pub fn qualifier_key(key: Value<'_>) -> Outcome<'_> {
    match key {
        Value::Null
        | Value::Bytes(_)
        | Value::Duration(_)
        | Value::Timestamp(_)
        | Value::Type(_)
        | Value::Optional(_) => Err(EvalError::new(format!(
            "invalid qualifier type: {}",
            go_type(&key)
        ))),
        key => Ok(key),
    }
}

/// `obj[?key]` and presence tests: the entry if present.
pub fn find<'a>(obj: &Value<'a>, key: &Value<'_>) -> Result<Option<Value<'a>>, EvalError> {
    match obj {
        Value::Map(m) => map_find(m, key),
        Value::List(l) => {
            let i = list_index(key)?;
            match usize::try_from(i) {
                Ok(i) if i < list_len(l) => list_get(l, i).map(Some),
                _ => Ok(None),
            }
        }
        Value::Opaque(_) => Ok(struct_field(obj, key).and_then(|(set, v)| set.then_some(v))),
        _ => Ok(None),
    }
}

/// A field of a library value with fields, by name (see [`crate::cel::value::Opaque::field`]).
fn struct_field(obj: &Value<'_>, key: &Value<'_>) -> Option<(bool, Value<'static>)> {
    match (obj, key) {
        (Value::Opaque(o), Value::String(name)) => o.field(name.as_str()),
        _ => None,
    }
}

/// A string value.
pub fn string<'a>(s: &str) -> Value<'a> {
    Value::String(crate::cel::value::Str::Owned(Rc::from(s)))
}
