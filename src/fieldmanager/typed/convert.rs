//! A CRD version's structural schema as structured-merge-diff's schema, as the
//! apiextensions-apiserver builds it for field management: its OpenAPI builder adds
//! `apiVersion`, `kind` and `metadata` (ObjectMeta) to the root and to embedded resources,
//! then kube-openapi's `schemaconv` turns each node into an atom.

use std::collections::BTreeMap;

use serde_json::Value;

use super::atom::{Atom, Field, List, Map, Scalar, TypeRef};
use crate::schema::{Additional, ListType, MapType, Schema, SchemaType};

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

/// `apiVersion`, `kind` (TypeMeta's strings) and `metadata` (ObjectMeta), which replace
/// whatever the schema says about them.
fn add_type_meta(map: &mut Map) {
    for name in ["apiVersion", "kind"] {
        map.fields.insert(name.to_string(), plain(Scalar::String));
    }
    map.fields.insert(
        "metadata".to_string(),
        Field {
            ty: TypeRef::inline(object_meta()),
            default: None,
        },
    );
}

fn plain(s: Scalar) -> Field {
    Field {
        ty: TypeRef::inline(scalar(s)),
        default: None,
    }
}

fn with_default(s: Scalar, default: Value) -> Field {
    Field {
        ty: TypeRef::inline(scalar(s)),
        default: Some(default),
    }
}

fn struct_of(fields: Vec<(&str, Field)>, atomic: bool) -> Atom {
    Atom {
        map: Some(Box::new(Map {
            atomic,
            fields: fields
                .into_iter()
                .map(|(n, f)| (n.to_string(), f))
                .collect(),
            element: None,
        })),
        ..Atom::default()
    }
}

fn field(atom: Atom) -> Field {
    Field {
        ty: TypeRef::inline(atom),
        default: None,
    }
}

/// `io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta` as kube's generated OpenAPI defines
/// it: string maps for labels and annotations, finalizers a set, ownerReferences a
/// list-map keyed by `uid` of atomic items, managedFields atomic.
pub(super) fn object_meta() -> Atom {
    let string_map = || Atom {
        map: Some(Box::new(Map {
            atomic: false,
            fields: BTreeMap::new(),
            element: Some(TypeRef::inline(scalar(Scalar::String))),
        })),
        ..Atom::default()
    };
    let owner_reference = struct_of(
        vec![
            ("apiVersion", with_default(Scalar::String, Value::from(""))),
            ("kind", with_default(Scalar::String, Value::from(""))),
            ("name", with_default(Scalar::String, Value::from(""))),
            ("uid", with_default(Scalar::String, Value::from(""))),
            ("controller", plain(Scalar::Boolean)),
            ("blockOwnerDeletion", plain(Scalar::Boolean)),
        ],
        true,
    );
    let list_of = |atomic: bool, keys: &[&str], element: Atom| Atom {
        list: Some(Box::new(List {
            atomic,
            keys: keys.iter().map(|k| k.to_string()).collect(),
            element: TypeRef::inline(element),
        })),
        ..Atom::default()
    };
    let mut fields: Vec<(&str, Field)> = [
        "name",
        "generateName",
        "namespace",
        "selfLink",
        "uid",
        "resourceVersion",
    ]
    .into_iter()
    .map(|n| (n, plain(Scalar::String)))
    .collect();
    fields.extend([
        ("generation", plain(Scalar::Numeric)),
        ("deletionGracePeriodSeconds", plain(Scalar::Numeric)),
        ("creationTimestamp", plain(Scalar::Untyped)),
        ("deletionTimestamp", plain(Scalar::Untyped)),
        ("labels", field(string_map())),
        ("annotations", field(string_map())),
        (
            "ownerReferences",
            field(list_of(false, &["uid"], owner_reference)),
        ),
        (
            "finalizers",
            field(list_of(false, &[], scalar(Scalar::String))),
        ),
        (
            "managedFields",
            Field {
                ty: TypeRef::inline(Atom {
                    list: Some(Box::new(List {
                        atomic: true,
                        keys: Vec::new(),
                        element: TypeRef::UntypedAtomic,
                    })),
                    ..Atom::default()
                }),
                default: None,
            },
        ),
    ]);
    struct_of(fields, false)
}
