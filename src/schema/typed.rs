//! A CRD version's structural schema as structured-merge-diff's schema, as the
//! apiextensions-apiserver builds it for field management: its OpenAPI builder adds
//! `apiVersion`, `kind` and `metadata` (ObjectMeta) to the root and to embedded resources,
//! then kube-openapi's `schemaconv` turns each node into an atom. The schema-free parts
//! (TypeMeta and ObjectMeta's types) live with the engine, in `fieldmanager::typed`.

use std::collections::BTreeMap;

use super::{Additional, ListType, MapType, Schema, SchemaType};
use crate::fieldmanager::typed::{Atom, Field, List, Map, Scalar, TypeRef, add_type_meta};

/// The type of a custom resource whose version has schema `root`.
pub fn resource_type(root: &Schema) -> TypeRef {
    let mut atom = node(root, false);
    if let Some(map) = atom.map.as_deref_mut() {
        add_type_meta(map);
    }
    TypeRef::inline(atom)
}

/// The type of a value with schema `schema`, without the resource's added fields (for
/// walking a subtree, and for tests written against upstream's plain schemas).
pub fn schema_type(schema: &Schema) -> TypeRef {
    TypeRef::inline(node(schema, false))
}

/// `convert.parseSchema`; `preserve` is inherited: a node with
/// `x-kubernetes-preserve-unknown-fields` opts all its descendants in.
fn node(schema: &Schema, preserve: bool) -> Atom {
    let preserve = preserve || schema.preserve_unknown_fields;
    match schema.type_ {
        SchemaType::Unset => Atom {
            scalar: Some(Scalar::Untyped),
            list: Some(Box::new(list(schema, preserve))),
            map: Some(Box::new(object(schema, preserve))),
        },
        SchemaType::Object => Atom {
            map: Some(Box::new(object(schema, preserve))),
            ..Atom::default()
        },
        SchemaType::Array => Atom {
            list: Some(Box::new(list(schema, preserve))),
            ..Atom::default()
        },
        SchemaType::Integer | SchemaType::Number => scalar(Scalar::Numeric),
        SchemaType::Boolean => scalar(Scalar::Boolean),
        // `convertPrimitive`: only plain and `byte` strings are strings; any other format
        // (date-time, int-or-string, ...) admits any scalar.
        SchemaType::String => match schema.format.as_str() {
            "" | "byte" => scalar(Scalar::String),
            _ => scalar(Scalar::Untyped),
        },
    }
}

fn scalar(s: Scalar) -> Atom {
    Atom {
        scalar: Some(s),
        ..Atom::default()
    }
}

/// `convert.parseList`: atomic unless `x-kubernetes-list-type` is `set` or `map`.
fn list(schema: &Schema, preserve: bool) -> List {
    let (atomic, keys) = match schema.list_type {
        Some(ListType::Set) => (false, Vec::new()),
        Some(ListType::Map) => (false, schema.list_map_keys.clone()),
        Some(ListType::Atomic) | None => (true, Vec::new()),
    };
    let element = match &schema.items {
        Some(items) => TypeRef::inline(node(items, preserve)),
        None => TypeRef::UntypedAtomic,
    };
    List {
        atomic,
        keys,
        element,
    }
}

/// `convert.parseObject`, with the builder's embedded-resource fields added.
fn object(schema: &Schema, preserve: bool) -> Map {
    let fields: BTreeMap<String, Field> = schema
        .properties
        .iter()
        .map(|(name, prop)| {
            let field = Field {
                ty: TypeRef::inline(node(prop, preserve)),
                default: prop.default.clone(),
            };
            (name.clone(), field)
        })
        .collect();
    let element = match &schema.additional_properties {
        // An object without properties is free-form; with properties, unknown fields
        // are only allowed under preserve-unknown-fields.
        None if preserve || fields.is_empty() && !schema.embedded_resource => {
            Some(TypeRef::Deduced)
        }
        None | Some(Additional::Allowed(false)) => None,
        Some(Additional::Allowed(true)) => Some(TypeRef::Deduced),
        Some(Additional::Schema(s)) => Some(TypeRef::inline(node(s, preserve))),
    };
    let mut map = Map {
        atomic: schema.map_type == Some(MapType::Atomic),
        fields,
        element,
    };
    if schema.embedded_resource {
        add_type_meta(&mut map);
    }
    map
}

#[cfg(test)]
mod tests;
