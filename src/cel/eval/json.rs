//! Values of the object under validation, read through its schema as k8s.io/apiserver
//! `pkg/cel/common/valuesunstructured.go` reads them: integers for `integer`, doubles
//! for `number`, timestamps, durations and bytes by `format`, int-or-string, objects
//! showing only declared properties (under escaped names), maps and lists; and kube's
//! equality of `set` and `map` lists.

use serde_json::{Map as JsonMap, Value as Json};

use crate::cel::decl::{DeclKind, DeclType, escape};
use crate::cel::value::{EvalError, List, Map, Str, Value};

use super::gotime;
use super::ops::{self, Outcome};

/// The CEL value of a JSON value under its declaration; a value kube could not convert
/// (which schema validation rules out before rules run) reads as `null`.
pub fn from_json<'a>(v: &'a Json, decl: &'a DeclType) -> Value<'a> {
    try_from_json(v, decl).unwrap_or(Value::Null)
}

/// [`from_json`] with kube's conversion errors (`invalid data, expected int, got ...`).
pub fn try_from_json<'a>(v: &'a Json, decl: &'a DeclType) -> Outcome<'a> {
    if v.is_null() {
        // Non-nullable nulls are refused by schema validation before any rule runs.
        return Ok(Value::Null);
    }
    match (&decl.kind, v) {
        (DeclKind::Dyn, v) => Ok(schemaless(v, decl)),
        (DeclKind::IntOrString, Json::String(s)) => Ok(Value::String(Str::Borrowed(s))),
        (DeclKind::IntOrString, Json::Number(n)) if n.is_i64() => {
            Ok(Value::Int(n.as_i64().unwrap_or_default()))
        }
        (DeclKind::IntOrString, _) => Err(EvalError::new(
            "invalid data, expected XIntOrString value to be either a string or integer",
        )),
        (DeclKind::Object { .. } | DeclKind::Map { .. }, Json::Object(fields)) => {
            Ok(Value::Map(Map::Json { fields, decl }))
        }
        (DeclKind::Object { .. } | DeclKind::Map { .. }, _) => Err(EvalError::new(
            "invalid data, expected a map for the provided schema with type=object",
        )),
        (DeclKind::List { .. }, Json::Array(items)) => Ok(Value::List(List::Json { items, decl })),
        (DeclKind::List { .. }, _) => Err(EvalError::new(
            "invalid data, expected an array for the provided schema with type=array",
        )),
        (DeclKind::String, Json::String(s)) => Ok(Value::String(Str::Borrowed(s))),
        (DeclKind::Duration, Json::String(s)) => gotime::parse_strfmt_duration(s)
            .map(Value::Duration)
            .map_err(|e| EvalError::new(format!("Invalid duration {s}: {e}"))),
        (DeclKind::Timestamp, Json::String(s)) => timestamp(s, decl),
        (DeclKind::Bytes, Json::String(s)) => {
            use base64::Engine;
            base64::engine::general_purpose::STANDARD
                .decode(s)
                .map(|b| Value::Bytes(b.into()))
                .map_err(|e| EvalError::new(format!("Invalid byte formatted string {s}: {e}")))
        }
        (DeclKind::Double, Json::Number(n)) => Ok(Value::Double(n.as_f64().unwrap_or_default())),
        (DeclKind::Int, Json::Number(n)) if n.is_i64() => {
            Ok(Value::Int(n.as_i64().unwrap_or_default()))
        }
        (DeclKind::Bool, Json::Bool(b)) => Ok(Value::Bool(*b)),
        (kind, other) => Err(EvalError::new(format!(
            "invalid data, expected {}, got {}",
            expected_name(kind),
            go_type(other)
        ))),
    }
}

/// A JSON value without schema, as cel-go's `NativeToValue` converts decoded JSON: Go
/// decodes integers that fit int64 as `int64`, other numbers as `float64`.
fn schemaless<'a>(v: &'a Json, decl: &'a DeclType) -> Value<'a> {
    match v {
        Json::Null => Value::Null,
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) => match n.as_i64() {
            Some(i) => Value::Int(i),
            None => Value::Double(n.as_f64().unwrap_or_default()),
        },
        Json::String(s) => Value::String(Str::Borrowed(s)),
        Json::Array(items) => Value::List(List::Json { items, decl }),
        Json::Object(fields) => Value::Map(Map::Json { fields, decl }),
    }
}

fn timestamp<'a>(s: &str, decl: &DeclType) -> Outcome<'a> {
    if decl.name == "timestamp" && decl.min_serialized_size == 12 {
        // format: date
        return gotime::parse_date(s)
            .map(Value::Timestamp)
            .map_err(|e| EvalError::new(format!("Invalid date formatted string {s}: {e}")));
    }
    gotime::parse_date_time(s)
        .map(Value::Timestamp)
        .map_err(|e| EvalError::new(format!("Invalid date-time formatted string {s}: {e}")))
}

fn expected_name(kind: &DeclKind) -> &'static str {
    match kind {
        DeclKind::Int => "int",
        DeclKind::Double => "float",
        DeclKind::Bool => "bool",
        _ => "string",
    }
}

/// The Go type name of decoded JSON (`%T`), for kube's conversion errors.
fn go_type(v: &Json) -> &'static str {
    match v {
        Json::Null => "<nil>",
        Json::Bool(_) => "bool",
        Json::Number(n) if n.is_i64() => "int64",
        Json::Number(_) => "float64",
        Json::String(_) => "string",
        Json::Array(_) => "[]interface {}",
        Json::Object(_) => "map[string]interface {}",
    }
}

/// A property of an object (by CEL name; absent or null is not found) or an entry of
/// an `additionalProperties` map.
pub fn map_find<'a>(
    fields: &'a JsonMap<String, Json>,
    decl: &'a DeclType,
    key: &str,
) -> Result<Option<Value<'a>>, EvalError> {
    match &decl.kind {
        DeclKind::Object { fields: props } => match props.get(key) {
            Some(field) => match fields.get(&field.json_name) {
                None | Some(Json::Null) => Ok(None),
                Some(v) => try_from_json(v, &field.decl).map(Some),
            },
            None => Ok(None),
        },
        DeclKind::Map { value } => match fields.get(key) {
            Some(v) => try_from_json(v, value).map(Some),
            None => Ok(None),
        },
        DeclKind::Dyn => Ok(fields.get(key).map(|v| schemaless(v, decl))),
        _ => Ok(None),
    }
}

/// The keys a comprehension sees: declared properties present (escaped), or every key.
pub fn map_keys<'a>(fields: &'a JsonMap<String, Json>, decl: &'a DeclType) -> Vec<Value<'a>> {
    match &decl.kind {
        DeclKind::Object { fields: props } => fields
            .keys()
            .filter_map(|k| escape(k))
            .filter(|k| props.contains_key(k))
            .map(|k| ops::string(&k))
            .collect(),
        DeclKind::Map { .. } | DeclKind::Dyn => fields
            .keys()
            .map(|k| Value::String(Str::Borrowed(k)))
            .collect(),
        _ => Vec::new(),
    }
}

pub fn map_entries<'a>(
    fields: &'a JsonMap<String, Json>,
    decl: &'a DeclType,
) -> Result<Vec<(Value<'a>, Value<'a>)>, EvalError> {
    let mut out = Vec::new();
    for key in map_keys(fields, decl) {
        let value = match &key {
            Value::String(k) => map_find(fields, decl, k.as_str())?,
            _ => None,
        };
        out.push((key, value.unwrap_or(Value::Null)));
    }
    Ok(out)
}

/// kube's `unstructuredMap.Equal`: declared properties compare as values (absent and
/// null alike), undeclared ones only against another JSON object.
pub fn object_equal(
    fields: &JsonMap<String, Json>,
    decl: &DeclType,
    other: &Map<'_>,
) -> Result<bool, EvalError> {
    for (json_name, raw) in fields {
        let declared = match &decl.kind {
            DeclKind::Object { fields: props } => {
                escape(json_name).filter(|k| props.contains_key(k))
            }
            DeclKind::Map { .. } => Some(json_name.clone()),
            _ => None,
        };
        match declared {
            Some(cel_name) => {
                let key = ops::string(&cel_name);
                let mine = map_find(fields, decl, &cel_name)?;
                let theirs = ops::map_find(other, &key)?;
                match (mine, theirs) {
                    (Some(a), Some(b)) if !ops::equal(&a, &b)? => return Ok(false),
                    (Some(_), None) | (None, Some(_)) => return Ok(false),
                    _ => {}
                }
            }
            None => match other {
                Map::Json { fields: theirs, .. } | Map::Untyped(theirs) => {
                    if theirs.get(json_name).is_some_and(|t| t != raw) {
                        return Ok(false);
                    }
                }
                Map::Owned(_) => return Err(ops::no_such_overload()),
            },
        }
    }
    Ok(true)
}

/// A scalar as Go's decoded JSON holds it, for the set-membership of `set` lists.
#[derive(PartialEq)]
enum Native<'v> {
    Int(i64),
    Float(f64),
    Str(&'v str),
    Bool(bool),
}

fn native_json(v: &Json) -> Option<Native<'_>> {
    match v {
        Json::Number(n) => Some(match n.as_i64() {
            Some(i) => Native::Int(i),
            None => Native::Float(n.as_f64()?),
        }),
        Json::String(s) => Some(Native::Str(s)),
        Json::Bool(b) => Some(Native::Bool(*b)),
        _ => None,
    }
}

fn native_value<'v>(v: &'v Value<'_>) -> Option<Native<'v>> {
    match v {
        Value::Int(i) => Some(Native::Int(*i)),
        Value::Double(d) => Some(Native::Float(*d)),
        Value::String(s) => Some(Native::Str(s.as_str())),
        Value::Bool(b) => Some(Native::Bool(*b)),
        _ => None,
    }
}

/// kube's `unstructuredSetList.Equal`: same size, and every element of the other list
/// is among this list's elements.
pub fn set_list_equal(items: &[Json], other: &List<'_>) -> Result<bool, EvalError> {
    let mine: Vec<Native<'_>> = items.iter().filter_map(native_json).collect();
    for v in ops::list_items(other)? {
        match native_value(&v) {
            Some(n) if mine.contains(&n) => {}
            _ => return Ok(false),
        }
    }
    Ok(true)
}

/// kube's `unstructuredMapList.Equal`: same size, and every element of the other list
/// equals this list's element with the same key.
pub fn map_list_equal(
    items: &[Json],
    elem: &DeclType,
    keys: &[String],
    other: &List<'_>,
) -> Result<bool, EvalError> {
    // kube indexes the raw elements by the escaped key names.
    let escaped: Vec<String> = keys
        .iter()
        .map(|k| escape(k).unwrap_or(k.clone()))
        .collect();
    let key_of = |o: &JsonMap<String, Json>| -> Vec<Json> {
        escaped
            .iter()
            .map(|k| o.get(k).cloned().unwrap_or(Json::Null))
            .collect()
    };
    for i in 0..ops::list_len(other) {
        let theirs = ops::list_get(other, i)?;
        let Value::Map(Map::Json { fields, .. } | Map::Untyped(fields)) = &theirs else {
            return Ok(false);
        };
        let key = key_of(fields);
        let mine = items
            .iter()
            .rev()
            .find(|item| item.as_object().is_some_and(|o| key_of(o) == key));
        match mine {
            Some(m) if ops::equal(&try_from_json(m, elem)?, &theirs)? => {}
            _ => return Ok(false),
        }
    }
    Ok(true)
}
