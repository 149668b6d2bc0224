//! The start-up proof that a declarative conversion is lossless: for every ordered pair
//! of versions a → b, a sample object of a (every property present, then only the
//! required ones) is converted to b and pruned by b's schema, as a read at b serves it,
//! then converted back and pruned by a's schema; every field of the sample must come
//! back unchanged (fields the round trip adds are not a loss). The refusal names the
//! versions and the first lost or changed field.

use serde_json::Value;

use super::convert::Declarative;
use super::sample::{self, Shape};
use crate::schema::Schema;
use crate::schema::prune::prune_silently;

/// Proves every round trip, or says the first that fails.
pub fn prove(converter: &Declarative) -> Result<(), String> {
    for (a, schema_a) in &converter.versions {
        for (b, schema_b) in &converter.versions {
            if a == b {
                continue;
            }
            for shape in [Shape::Full, Shape::Required] {
                round_trip(converter, (a, schema_a), (b, schema_b), shape)?;
            }
        }
    }
    Ok(())
}

fn round_trip(
    converter: &Declarative,
    (a, schema_a): (&str, &Schema),
    (b, schema_b): (&str, &Schema),
    shape: Shape,
) -> Result<(), String> {
    let which = match shape {
        Shape::Full => "a sample object",
        Shape::Required => "a sample object with only its required fields",
    };
    let api_version = format!("{}/{a}", converter.group);
    let mut original = sample::object(schema_a, shape, &api_version, &converter.kind);
    prune_silently(&mut original, schema_a);
    let failed = |e: String| format!("the round trip {a} → {b} → {a} fails (on {which}): {e}");
    let mut there = converter
        .convert_object(original.clone(), a, b)
        .map_err(failed)?;
    prune_silently(&mut there, schema_b);
    let mut back = converter.convert_object(there, b, a).map_err(failed)?;
    prune_silently(&mut back, schema_a);
    match first_difference(&original, &back, &mut String::new()) {
        None => Ok(()),
        Some(difference) => Err(format!(
            "the round trip {a} → {b} → {a} {difference} (on {which})"
        )),
    }
}

/// The first field of `original` that `back` lost or changed, as `loses <path>` or
/// `changes <path> from <x> to <y>`.
pub fn first_difference(original: &Value, back: &Value, path: &mut String) -> Option<String> {
    match (original, back) {
        (Value::Object(want), Value::Object(got)) => {
            for (key, value) in want {
                let len = path.len();
                push_key(path, key);
                let found = match got.get(key) {
                    None => Some(format!("loses {path}")),
                    Some(other) => first_difference(value, other, path),
                };
                path.truncate(len);
                if found.is_some() {
                    return found;
                }
            }
            None
        }
        (Value::Array(want), Value::Array(got)) => {
            for (i, value) in want.iter().enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                let found = match got.get(i) {
                    None => Some(format!("loses {path}")),
                    Some(other) => first_difference(value, other, path),
                };
                path.truncate(len);
                if found.is_some() {
                    return found;
                }
            }
            None
        }
        _ if same(original, back) => None,
        _ => Some(format!("changes {path} from {original} to {back}")),
    }
}

/// Equal values; numbers by value (`1` and `1.0` are the same).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y || x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

/// Appends a key to a path as the annotation writes paths.
fn push_key(path: &mut String, key: &str) {
    if key.contains(['.', '[', ']', '/']) {
        path.push_str(&format!("['{key}']"));
    } else {
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(key);
    }
}
