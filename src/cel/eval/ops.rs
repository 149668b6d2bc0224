//! Value operations the evaluator and the standard library share: CEL's heterogeneous
//! equality (cross-type numeric, kube's set and map list semantics), run-time type
//! names, indexing and field selection with cel-go's error texts, sizes, and Go's
//! `%v` / `%g` rendering of values inside messages.

use std::rc::Rc;

use crate::cel::decl::DeclKind;
use crate::cel::types::Type;
use crate::cel::value::{EvalError, List, Map, Value};
use crate::schema::ListType;

use super::json;

pub type Outcome<'a> = Result<Value<'a>, EvalError>;

pub fn no_such_overload() -> EvalError {
    EvalError::new("no such overload")
}

/// The error of a call whose arguments fit none of its overloads at run time. cel-go
/// binds the standard operators once per function behind an operand trait: when the
/// first operand has the trait its own method refuses the other (`no such overload`),
/// else the interpreter names the function (`no such overload: _+_`). Other functions
/// dispatch by signature (`no such overload: f(int, string)`).
pub fn dispatch_failure(function: &str, args: &[Value<'_>]) -> EvalError {
    let Some(first) = args.first() else {
        return no_matching_overload(function, args);
    };
    let has_trait = match function {
        "_+_" => matches!(
            first,
            Value::Int(_)
                | Value::Uint(_)
                | Value::Double(_)
                | Value::String(_)
                | Value::Bytes(_)
                | Value::List(_)
                | Value::Duration(_)
                | Value::Timestamp(_)
        ),
        "_-_" => matches!(
            first,
            Value::Int(_)
                | Value::Uint(_)
                | Value::Double(_)
                | Value::Duration(_)
                | Value::Timestamp(_)
        ),
        "_*_" | "_/_" => matches!(first, Value::Int(_) | Value::Uint(_) | Value::Double(_)),
        "_%_" => matches!(first, Value::Int(_) | Value::Uint(_)),
        "-_" => matches!(first, Value::Int(_) | Value::Double(_)),
        "_<_" | "_<=_" | "_>_" | "_>=_" => matches!(
            first,
            Value::Int(_)
                | Value::Uint(_)
                | Value::Double(_)
                | Value::String(_)
                | Value::Bytes(_)
                | Value::Bool(_)
                | Value::Duration(_)
                | Value::Timestamp(_)
        ),
        "size" => matches!(
            first,
            Value::String(_) | Value::Bytes(_) | Value::List(_) | Value::Map(_)
        ),
        _ => return no_matching_overload(function, args),
    };
    if has_trait {
        no_such_overload()
    } else {
        EvalError::new(format!("no such overload: {function}"))
    }
}

/// cel-go's `no such overload: f(int, string)` from a failed run-time type guard.
pub fn no_matching_overload(function: &str, args: &[Value<'_>]) -> EvalError {
    let names: Vec<&str> = args.iter().map(type_name).collect();
    EvalError::new(format!(
        "no such overload: {function}({})",
        names.join(", ")
    ))
}

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
    match t {
        Type::List(_) => "list".into(),
        Type::Map(..) | Type::Object(_) => "map".into(),
        Type::Optional(_) => "optional_type".into(),
        Type::Type(_) => "type".into(),
        other => other.to_string(),
    }
}

/// Whether a value may be passed where an overload declares `param` (cel-go's
/// `IsAssignableRuntimeType`: the type names agree; lists and maps check their first
/// element).
pub fn matches_param(param: &Type, value: &Value<'_>) -> bool {
    match (param, value) {
        (Type::Dyn | Type::Param(_), _) => true,
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
        (param, value) => type_runtime_name(param) == type_name(value),
    }
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
    match find(obj, key)? {
        Some(v) => Ok(v),
        None => Err(match obj {
            Value::List(_) => EvalError::new(format!("index out of bounds: {}", go_format(key))),
            _ => EvalError::new(format!("no such key: {}", go_format(key))),
        }),
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
        _ => Ok(None),
    }
}

/// cel-go's `actualSize`: the size of strings (code points), bytes, lists and maps, of
/// an optional's value, and 1 for anything else.
pub fn actual_size(value: &Value<'_>) -> u64 {
    match value {
        Value::String(s) => s.as_str().chars().count() as u64,
        Value::Bytes(b) => b.len() as u64,
        Value::List(l) => list_len(l) as u64,
        Value::Map(m) => map_len(m) as u64,
        Value::Optional(Some(v)) => actual_size(v),
        _ => 1,
    }
}

fn numeric_equal(a: &Value<'_>, b: &Value<'_>) -> Option<bool> {
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
    for i in 0..list_len(a) {
        if !equal(&list_get(a, i)?, &list_get(b, i)?)? {
            return Ok(false);
        }
    }
    Ok(true)
}

fn map_equal(a: &Map<'_>, b: &Map<'_>) -> Result<bool, EvalError> {
    if map_len(a) != map_len(b) {
        return Ok(false);
    }
    if let Map::Json { fields, decl } = a {
        return json::object_equal(fields, decl, b);
    }
    for (k, v) in map_entries(a)? {
        match map_find(b, &k)? {
            Some(other) if equal(&v, &other)? => {}
            _ => return Ok(false),
        }
    }
    Ok(true)
}

/// Go's `%v` of a value, as cel-go formats keys and indexes in messages.
pub fn go_format(value: &Value<'_>) -> String {
    match value {
        Value::String(s) => s.as_str().to_string(),
        Value::Int(i) => i.to_string(),
        Value::Uint(u) => u.to_string(),
        Value::Double(d) => format_g(*d),
        Value::Bool(b) => b.to_string(),
        Value::Null => "<nil>".to_string(),
        other => type_name(other).to_string(),
    }
}

/// Go's `%g`: the shortest digits that round-trip, in exponent form when the decimal
/// exponent is below -4 or at least 6 (Go's precision for shortest `%g`).
pub fn format_g(d: f64) -> String {
    if d.is_nan() {
        return "NaN".into();
    }
    if d.is_infinite() {
        return if d > 0.0 {
            "+Inf".into()
        } else {
            "-Inf".into()
        };
    }
    if d == 0.0 {
        return if d.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    // Shortest round-trip digits and decimal exponent from Rust's `{:e}`.
    let sci = format!("{:e}", d.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let sign = if d < 0.0 { "-" } else { "" };
    if !(-4..6).contains(&exp) {
        let (first, rest) = digits.split_at(1);
        let frac = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        let esign = if exp < 0 { '-' } else { '+' };
        return format!("{sign}{first}{frac}e{esign}{:02}", exp.abs());
    }
    if exp < 0 {
        let zeros = "0".repeat((-exp - 1) as usize);
        return format!("{sign}0.{zeros}{digits}");
    }
    let point = exp as usize + 1;
    if digits.len() <= point {
        format!("{sign}{digits}{}", "0".repeat(point - digits.len()))
    } else {
        format!("{sign}{}.{}", &digits[..point], &digits[point..])
    }
}

/// A string value.
pub fn string<'a>(s: &str) -> Value<'a> {
    Value::String(crate::cel::value::Str::Owned(Rc::from(s)))
}
