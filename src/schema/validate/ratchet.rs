//! Validation ratcheting (apiextensions `ratcheting.go`, apiserver `cel/common`'s
//! `CorrelatedObject` and `MapList`): how an old value is found for a new one — by key
//! for object fields that have a schema, by list-map keys for `x-kubernetes-list-type:
//! map`, never by index — and when a correlated value counts as unchanged.

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::gofmt::Num;
use crate::schema::{ListType, Schema, SchemaType};

/// The old value of field `key` of an object with schema `s`: present in both old and
/// new, with a property or additionalProperties schema. The root's `kind` and
/// `apiVersion` are never correlated.
pub(crate) fn key_corr<'v>(
    s: &Schema,
    old: &'v Value,
    key: &str,
    at_root: bool,
) -> Option<&'v Value> {
    if at_root && (key == "kind" || key == "apiVersion") {
        return None;
    }
    let old = old.as_object()?.get(key)?;
    s.property(key).map(|_| old)
}

/// One scalar of a list-map key, compared as Go compares it (int64 1 is not float64 1).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum KeyPart<'v> {
    Bool(bool),
    Int(i64),
    /// A float of a single-key map (compared as a Go map key).
    FloatBits(u64),
    /// A float of a multi-key map (compared by its `%f` text).
    FloatText(String),
    Str(&'v str),
}

fn key_part<'v>(value: &'v Value, single: bool) -> Option<KeyPart<'v>> {
    Some(match value {
        Value::Bool(b) => KeyPart::Bool(*b),
        Value::String(s) => KeyPart::Str(s),
        Value::Number(n) => match Num::of(n) {
            Num::Int(i) => KeyPart::Int(i),
            Num::Float(f) if single => KeyPart::FloatBits(if f == 0.0 { 0 } else { f.to_bits() }),
            Num::Float(f) => KeyPart::FloatText(format!("{f:.6}")),
        },
        _ => return None,
    })
}

/// The composite key of a list-map element; `None` when a key is missing or not scalar.
fn element_key<'v>(keys: &[String], element: &'v Map<String, Value>) -> Option<Vec<KeyPart<'v>>> {
    let single = keys.len() == 1;
    keys.iter()
        .map(|k| element.get(k).and_then(|v| key_part(v, single)))
        .collect()
}

/// The old items of a list-map by key (the first element with a key wins).
pub(crate) struct ListIndex<'v, 's> {
    keys: &'s [String],
    by_key: HashMap<Vec<KeyPart<'v>>, &'v Value>,
}

impl<'v, 's> ListIndex<'v, 's> {
    /// The index over `old` when the list is correlatable (`x-kubernetes-list-type: map`
    /// with keys, an array schema and a non-empty old list), else `None`.
    pub(crate) fn new(s: &'s Schema, old: &'v Value) -> Option<Self> {
        let old = old.as_array()?;
        if s.list_type != Some(ListType::Map)
            || s.type_ != SchemaType::Array
            || s.list_map_keys.is_empty()
            || old.is_empty()
        {
            return None;
        }
        let mut by_key = HashMap::with_capacity(old.len());
        for item in old {
            if let Some(key) = item
                .as_object()
                .and_then(|m| element_key(&s.list_map_keys, m))
            {
                by_key.entry(key).or_insert(item);
            }
        }
        Some(ListIndex {
            keys: &s.list_map_keys,
            by_key,
        })
    }

    /// The old element with the same key as the new `item`.
    pub(crate) fn get(&self, item: &Value) -> Option<&'v Value> {
        let key = element_key(self.keys, item.as_object()?)?;
        self.by_key.get(&key).copied()
    }
}

/// `CorrelatedObject.CachedDeepEqual`: whether a correlated value is unchanged. Objects
/// compare field by field through their schema (a field without one is a change),
/// list-maps element by key (an element without an old match is a change), other lists
/// as a whole, scalars exactly (int64 1 differs from float64 1).
pub(crate) fn deep_equal(s: &Schema, new: &Value, old: &Value) -> bool {
    match (new, old) {
        (Value::Null, Value::Null) => true,
        (Value::Array(n), Value::Array(o)) => {
            if n.len() != o.len() {
                return false;
            }
            if n.is_empty() {
                return true;
            }
            let Some(items) = s.items.as_deref() else {
                return s.list_type != Some(ListType::Map) && n == o;
            };
            if s.list_type != Some(ListType::Map) {
                return n == o;
            }
            let Some(index) = ListIndex::new(s, old) else {
                return false;
            };
            n.iter().all(|item| {
                index
                    .get(item)
                    .is_some_and(|old_item| deep_equal(items, item, old_item))
            })
        }
        (Value::Object(n), Value::Object(o)) => {
            n.len() == o.len()
                && n.iter()
                    .all(|(key, value)| match (o.get(key), s.property(key)) {
                        (Some(old_value), Some(schema)) => deep_equal(schema, value, old_value),
                        _ => false,
                    })
        }
        (Value::Array(_) | Value::Object(_), _) | (_, Value::Array(_) | Value::Object(_)) => false,
        _ => new == old,
    }
}
