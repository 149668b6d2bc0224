//! Field mappings checked against the versions' structural schemas and compiled into
//! the engine's steps: every path must be in its version's schema (or under
//! `x-kubernetes-preserve-unknown-fields`), may not go into list items, may not name
//! `apiVersion` or `kind`, and names `metadata` only through its labels or annotations.

use serde_json::Value;

use super::apply::{Codec, Step};
use super::path::FieldPath;
use super::spec::{Mapping, Op};
use crate::schema::{Additional, Schema, SchemaType};

/// Where a path lands in one version's objects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// A field of the schema, of this type (`Unset` for int-or-string and untyped).
    Field(SchemaType),
    /// Below `x-kubernetes-preserve-unknown-fields`: any value.
    Free,
    /// `metadata.labels` or `metadata.annotations` as a whole.
    MetadataMap,
    /// One label or annotation: a string.
    MetadataKey,
}

/// One version's side of a direction: its name and schema.
pub struct Side<'a> {
    pub version: &'a str,
    pub schema: &'a Schema,
}

/// Compiles the mappings of the direction `from` → `to`; the error starts with the
/// mapping as written.
pub fn mappings(list: &[Mapping], from: &Side, to: &Side) -> Result<Vec<Step>, String> {
    list.iter()
        .enumerate()
        .map(|(i, m)| step(m, from, to).map_err(|e| format!("mappings[{i}] {}: {e}", m.text)))
        .collect()
}

fn step(mapping: &Mapping, from: &Side, to: &Side) -> Result<Step, String> {
    Ok(match &mapping.op {
        Op::Move {
            from: source,
            to: target,
        } => {
            let read = resolve(source, from)?;
            let write = resolve(target, to)?;
            Step::Move {
                from: source.clone(),
                to: target.clone(),
                codec: codec(read, write),
            }
        }
        Op::Set { path, value } => Step::Set {
            value: constant(resolve(path, to)?, value),
            path: path.clone(),
        },
        Op::Default { path, value } => Step::Default {
            value: constant(resolve(path, to)?, value),
            path: path.clone(),
        },
        Op::Drop { path } => {
            resolve(path, from).or_else(|e| resolve(path, to).map_err(|_| e))?;
            Step::Drop { path: path.clone() }
        }
    })
}

/// How a value moves from `read` to `write`.
fn codec(read: Place, write: Place) -> Codec {
    match (read, write) {
        (Place::MetadataKey, Place::MetadataKey) => Codec::Plain,
        (_, Place::MetadataKey) => Codec::ToText,
        (Place::MetadataKey, Place::Field(t))
            if !matches!(t, SchemaType::String | SchemaType::Unset) =>
        {
            Codec::FromText
        }
        _ => Codec::Plain,
    }
}

/// A constant for a label or annotation is its text.
fn constant(place: Place, value: &Value) -> Value {
    match (place, value) {
        (Place::MetadataKey, Value::String(_)) => value.clone(),
        (Place::MetadataKey, other) => Value::String(other.to_string()),
        _ => value.clone(),
    }
}

/// Where `path` lands in `side`'s objects, or why it may not be mapped.
pub fn resolve(path: &FieldPath, side: &Side) -> Result<Place, String> {
    let segments = path.segments();
    match segments.first().map(String::as_str) {
        Some("apiVersion" | "kind") => Err(format!(
            "{path}: apiVersion and kind are set by the converter"
        )),
        Some("metadata") => metadata(path),
        _ => walk(path, side),
    }
}

fn metadata(path: &FieldPath) -> Result<Place, String> {
    match path.segments() {
        [_, map] if map == "labels" || map == "annotations" => Ok(Place::MetadataMap),
        [_, map, _] if map == "labels" || map == "annotations" => Ok(Place::MetadataKey),
        _ => Err(format!(
            "{path}: of metadata only labels and annotations may be mapped (metadata.labels, metadata.annotations['<key>']): the converter keeps the rest"
        )),
    }
}

fn walk(path: &FieldPath, side: &Side) -> Result<Place, String> {
    let mut node = side.schema;
    for (i, name) in path.segments().iter().enumerate() {
        if let Some(child) = node.properties.get(name) {
            node = child;
            continue;
        }
        if let Some(Additional::Schema(values)) = &node.additional_properties {
            node = values;
            continue;
        }
        if node.preserve_unknown_fields {
            return Ok(Place::Free);
        }
        let version = side.version;
        if node.type_ == SchemaType::Array {
            let list = FieldPath::from_segments(&path.segments()[..i]);
            return Err(format!(
                "{path} goes into the list {list} of version {version}: paths do not go into list items"
            ));
        }
        return Err(format!("{path} is not in the schema of version {version}"));
    }
    Ok(match node.int_or_string {
        true => Place::Field(SchemaType::Unset),
        false => Place::Field(node.type_),
    })
}
