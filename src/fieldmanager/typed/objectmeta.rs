//! TypeMeta and ObjectMeta as structured-merge-diff types, as kube's generated OpenAPI
//! defines them: the fields the apiextensions-apiserver's OpenAPI builder adds to a custom
//! resource's root and to its embedded resources, and that `/scale`'s Scale carries.

use std::collections::BTreeMap;

use serde_json::Value;

use super::atom::{Atom, Field, List, Map, Scalar, TypeRef};

/// `apiVersion`, `kind` (TypeMeta's strings) and `metadata` (ObjectMeta), which replace
/// whatever the schema says about them.
pub fn add_type_meta(map: &mut Map) {
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

fn scalar(s: Scalar) -> Atom {
    Atom {
        scalar: Some(s),
        ..Atom::default()
    }
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
pub fn object_meta() -> Atom {
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
