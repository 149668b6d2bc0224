//! The mapping engine: compiled field mappings applied in order to a copy of the object
//! (fields at the same path in both versions are carried over as they are). Pure: plain
//! JSON in, plain JSON out.

use serde_json::Value;

use super::path::FieldPath;

/// One compiled mapping.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// The value at `from`, if any, goes to `to` through `codec`.
    Move {
        from: FieldPath,
        to: FieldPath,
        codec: Codec,
    },
    /// `path` becomes `value`.
    Set { path: FieldPath, value: Value },
    /// `path` becomes `value` when absent (or null).
    Default { path: FieldPath, value: Value },
    /// `path` is removed.
    Drop { path: FieldPath },
}

/// How a moved value crosses into or out of `metadata.labels` / `metadata.annotations`,
/// whose values are strings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Codec {
    /// As it is.
    Plain,
    /// Into a label or annotation: a value that is not a string becomes its JSON text.
    ToText,
    /// Out of a label or annotation into a field that is not a string: the text is read
    /// as JSON (text that is not JSON stays the string it is).
    FromText,
}

impl Codec {
    fn apply(self, value: Value) -> Value {
        match (self, value) {
            (Codec::ToText, Value::String(s)) => Value::String(s),
            (Codec::ToText, other) => Value::String(other.to_string()),
            (Codec::FromText, Value::String(s)) => {
                serde_json::from_str(&s).unwrap_or(Value::String(s))
            }
            (_, other) => other,
        }
    }
}

/// Applies `steps` in order to `object`.
pub fn apply(steps: &[Step], object: &mut Value) {
    for step in steps {
        match step {
            Step::Move { from, to, codec } => {
                if let Some(value) = from.take(object) {
                    to.set(object, codec.apply(value));
                }
            }
            Step::Set { path, value } => path.set(object, value.clone()),
            Step::Default { path, value } => {
                if path.get(object).is_none_or(Value::is_null) {
                    path.set(object, value.clone());
                }
            }
            Step::Drop { path } => {
                path.take(object);
            }
        }
    }
}
