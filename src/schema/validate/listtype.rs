//! apiextensions' `listtype.ValidateListSetsAndMaps`: items of `x-kubernetes-list-type:
//! set` lists are unique, keys of `map` lists are unique (and items are objects). Each
//! repeated value is reported once, at its second occurrence.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::path::{Seg, Trail};
use super::sink::Errors;
use crate::error::{ErrorType, FieldError};
use crate::gofmt::{Num, field_value, marshal};
use crate::schema::{Additional, ListType, Schema};

/// Every list-type violation in `object` (a whole custom object); past the pass's error
/// budget it stops (see `sink`).
pub(super) fn check(schema: &Schema, object: &Value) -> Vec<FieldError> {
    let mut out = Errors::default();
    if let Value::Object(map) = object {
        object_fields(&mut Trail::new(), schema, map, &mut out);
    }
    out.into_vec()
}

fn object_fields<'v>(
    trail: &mut Trail<'v>,
    s: &'v Schema,
    map: &'v Map<String, Value>,
    out: &mut Errors,
) {
    if let Some(Additional::Schema(extra)) = &s.additional_properties {
        for (key, value) in map {
            trail.push(Seg::Addl(key));
            one_value(trail, extra, value, out);
            trail.pop();
        }
    }
    for (key, value) in map {
        if let Some(prop) = s.properties.get(key) {
            trail.push(Seg::Prop(key));
            one_value(trail, prop, value, out);
            trail.pop();
        }
    }
}

fn one_value<'v>(trail: &mut Trail<'v>, s: &'v Schema, value: &'v Value, out: &mut Errors) {
    if out.full() {
        return;
    }
    match value {
        Value::Array(items) => array(trail, s, items, out),
        Value::Object(map) => object_fields(trail, s, map, out),
        _ => {}
    }
}

fn array<'v>(trail: &mut Trail<'v>, s: &'v Schema, items: &'v [Value], out: &mut Errors) {
    match s.list_type {
        Some(ListType::Set) => {
            let keys: Vec<SetKey<'_>> = items.iter().map(SetKey::of).collect();
            for i in non_unique(&keys) {
                if out.full() {
                    break;
                }
                out.push(at_index(trail, i, duplicate(field_value(&items[i]))));
            }
        }
        Some(ListType::Map) => list_map(trail, &s.list_map_keys, items, out),
        _ => {}
    }
    if let Some(item_schema) = &s.items {
        for (i, item) in items.iter().enumerate() {
            trail.push(Seg::Index(i));
            one_value(trail, item_schema, item, out);
            trail.pop();
        }
    }
}

/// A value as `validateListSet` tells values apart: scalars by Go type and value,
/// compound values by their JSON.
#[derive(Debug, PartialEq, Eq, Hash)]
enum SetKey<'v> {
    Null,
    Bool(bool),
    Int(i64),
    Float(u64),
    Str(&'v str),
    Compound(String),
    /// A list-map item without the key field (or a null item).
    Unspecified,
}

impl<'v> SetKey<'v> {
    fn of(value: &'v Value) -> Self {
        match value {
            Value::Null => SetKey::Null,
            Value::Bool(b) => SetKey::Bool(*b),
            Value::Number(n) => match Num::of(n) {
                Num::Int(i) => SetKey::Int(i),
                Num::Float(f) => SetKey::Float(if f == 0.0 { 0 } else { f.to_bits() }),
            },
            Value::String(s) => SetKey::Str(s),
            compound => SetKey::Compound(marshal(compound)),
        }
    }
}

/// Indices of the second occurrence of each repeated key.
fn non_unique(keys: &[SetKey<'_>]) -> Vec<usize> {
    if keys.len() <= 1 {
        return Vec::new();
    }
    let mut seen: HashMap<&SetKey<'_>, usize> = HashMap::with_capacity(keys.len());
    let mut repeated = Vec::new();
    for (i, key) in keys.iter().enumerate() {
        let times = seen.entry(key).or_insert(0);
        *times += 1;
        if *times == 2 {
            repeated.push(i);
        }
    }
    repeated
}

fn duplicate(bad: String) -> (ErrorType, String) {
    (ErrorType::Duplicate, format!("Duplicate value: {bad}"))
}

fn at_index(trail: &mut Trail<'_>, i: usize, (reason, detail): (ErrorType, String)) -> FieldError {
    trail.push(Seg::Index(i));
    let field = trail.field_path();
    trail.pop();
    FieldError {
        reason,
        field,
        detail,
    }
}

fn list_map<'v>(trail: &mut Trail<'v>, keys: &[String], items: &'v [Value], out: &mut Errors) {
    if let Some(i) = items.iter().position(|x| !x.is_null() && !x.is_object()) {
        let detail = format!(
            "Invalid value: {}: must be an object for an array of list-type map",
            field_value(&items[i])
        );
        out.push(at_index(trail, i, (ErrorType::Invalid, detail)));
        return;
    }
    if items.len() <= 1 {
        return;
    }
    if let [key] = keys {
        let values: Vec<Option<&Value>> = items
            .iter()
            .map(|x| x.as_object().and_then(|m| m.get(key)))
            .collect();
        let set_keys: Vec<SetKey<'_>> = values
            .iter()
            .map(|v| v.map_or(SetKey::Unspecified, SetKey::of))
            .collect();
        for i in non_unique(&set_keys) {
            if out.full() {
                break;
            }
            let shown = match values[i] {
                None => "{}".to_string(),
                Some(v) => marshal(&Value::Object(Map::from_iter([(key.clone(), v.clone())]))),
            };
            out.push(at_index(trail, i, duplicate(shown)));
        }
        return;
    }
    let key_json: Vec<String> = items
        .iter()
        .map(|x| {
            let fields = keys.iter().filter_map(|k| {
                let v = x.as_object()?.get(k)?;
                Some((k.clone(), v.clone()))
            });
            marshal(&Value::Object(fields.collect()))
        })
        .collect();
    let set_keys: Vec<SetKey<'_>> = key_json
        .iter()
        .map(|j| SetKey::Compound(j.clone()))
        .collect();
    for i in non_unique(&set_keys) {
        if out.full() {
            break;
        }
        out.push(at_index(trail, i, duplicate(key_json[i].clone())));
    }
}
