//! The total order, equality and text of the JSON values that path elements carry, as
//! structured-merge-diff's `value.Compare`, `value.Equals` and `value.ToString` define them.

use std::cmp::Ordering;

use serde_json::{Number, Value};

use crate::gofmt;

/// A value's kind in upstream's order: float < int < string < bool < list < map < null.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Float,
    Int,
    String,
    Bool,
    List,
    Map,
    Null,
}

fn kind(v: &Value) -> Kind {
    match v {
        Value::Number(n) if is_float(n) => Kind::Float,
        Value::Number(_) => Kind::Int,
        Value::String(_) => Kind::String,
        Value::Bool(_) => Kind::Bool,
        Value::Array(_) => Kind::List,
        Value::Object(_) => Kind::Map,
        Value::Null => Kind::Null,
    }
}

fn is_float(n: &Number) -> bool {
    n.is_f64()
}

fn as_f64(n: &Number) -> f64 {
    n.as_f64().unwrap_or(0.0)
}

/// Integers compared exactly (u64 beyond i64 included); both operands are integers.
fn int_cmp(a: &Number, b: &Number) -> Ordering {
    let wide = |n: &Number| -> i128 {
        n.as_i64()
            .map(i128::from)
            .or_else(|| n.as_u64().map(i128::from))
            .unwrap_or(0)
    };
    wide(a).cmp(&wide(b))
}

fn float_cmp(a: f64, b: f64) -> Ordering {
    // Go's FloatCompare: neither greater nor less (NaN) is equal.
    a.partial_cmp(&b).unwrap_or(Ordering::Equal)
}

/// `value.Compare`: a total order over values of any kinds; ints and floats compare
/// numerically with each other.
pub fn compare(lhs: &Value, rhs: &Value) -> Ordering {
    match (lhs, rhs) {
        (Value::Number(a), Value::Number(b)) => {
            if is_float(a) || is_float(b) {
                float_cmp(as_f64(a), as_f64(b))
            } else {
                int_cmp(a, b)
            }
        }
        (Value::String(a), Value::String(b)) => a.cmp(b),
        (Value::Bool(a), Value::Bool(b)) => a.cmp(b),
        (Value::Array(a), Value::Array(b)) => compare_lists(a, b),
        (Value::Object(a), Value::Object(b)) => compare_maps(a, b),
        _ => kind(lhs).cmp(&kind(rhs)),
    }
}

fn compare_lists(a: &[Value], b: &[Value]) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        let c = compare(x, y);
        if c != Ordering::Equal {
            return c;
        }
    }
    a.len().cmp(&b.len())
}

/// `value.MapCompare`: walk the union of keys in lexical order; a key present on one side
/// only decides for the side that has it (it sorts earlier), a shorter map that ran out of
/// keys sorts first.
fn compare_maps(
    a: &serde_json::Map<String, Value>,
    b: &serde_json::Map<String, Value>,
) -> Ordering {
    let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
    keys.sort();
    keys.dedup();
    for (i, key) in keys.into_iter().enumerate() {
        let c = if i == a.len() {
            Ordering::Less
        } else if i == b.len() {
            Ordering::Greater
        } else {
            match (a.get(key), b.get(key)) {
                (None, _) => Ordering::Greater,
                (_, None) => Ordering::Less,
                (Some(x), Some(y)) => compare(x, y),
            }
        };
        if c != Ordering::Equal {
            return c;
        }
    }
    Ordering::Equal
}

/// `value.Equals`: deep equality where an int equals a float of the same value.
pub fn equals(lhs: &Value, rhs: &Value) -> bool {
    match (lhs, rhs) {
        (Value::Number(a), Value::Number(b)) => {
            if is_float(a) || is_float(b) {
                as_f64(a) == as_f64(b)
            } else {
                int_cmp(a, b) == Ordering::Equal
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| equals(x, y))
        }
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(k, x)| b.get(k).is_some_and(|y| equals(x, y)))
        }
        _ => lhs == rhs,
    }
}

/// `value.ToString`: `%v` numbers and bools, `%q` strings, `[a,b]` lists, `k=v` map entries
/// joined with nothing (keys sorted; Go's order is the map's), `null`.
pub fn to_string(v: &Value) -> String {
    match v {
        Value::Null => "null".to_string(),
        Value::Number(n) => gofmt::Num::of(n).go(),
        Value::String(s) => gofmt::quote(s),
        Value::Bool(b) => b.to_string(),
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().map(to_string).collect();
            format!("[{}]", parts.join(","))
        }
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            keys.into_iter()
                .map(|k| format!("{k}={}", map.get(k).map(to_string).unwrap_or_default()))
                .collect()
        }
    }
}

/// Numbers as Go's `encoding/json` decodes them into `interface{}`: every one a float64.
/// Path elements read from `fieldsV1` hold such values (and compare equal to ints).
pub fn to_float64_numbers(v: Value) -> Value {
    match v {
        Value::Number(n) => Number::from_f64(as_f64(&n)).map_or(Value::Number(n), Value::Number),
        Value::Array(items) => Value::Array(items.into_iter().map(to_float64_numbers).collect()),
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(k, x)| (k, to_float64_numbers(x)))
                .collect(),
        ),
        other => other,
    }
}

#[cfg(test)]
#[path = "value_tests.rs"]
mod tests;
