//! kube's mutation types (k8s.io/apiserver `pkg/cel/mutation`): `Object{...}` and
//! `Object.<path>{...}` (dynamic object types accepting any field, kube's
//! `DynamicTypeResolver`), `JSONPatch{op, path, from, value}`, their run-time values and
//! the evaluated result as JSON. Available where the environment has kube's
//! `HasPatchTypes` on ([`crate::cel::env::Env::patch_types`]).

mod output;
mod program;
mod values;

#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use crate::cel::decl::{DeclKind, DeclType, Field};
use crate::cel::types::Type;

pub use output::{JsonPatchOp, json_patch_ops, object_json, to_json};
pub use program::Output;
#[cfg(test)]
pub use program::standalone::{MutationInput, MutationProgram};
pub use values::{JsonPatchVal, ObjectVal, construct};

/// kube's `ObjectTypeName`: `Object`, and `Object.<field>...` below it.
pub const OBJECT_TYPE_NAME: &str = "Object";
/// kube's `JSONPatchTypeName`.
pub const JSON_PATCH_TYPE_NAME: &str = "JSONPatch";

/// A type name the resolver knows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StructType {
    /// `Object` or `Object.<path>`, by its full name.
    Object(Arc<str>),
    JsonPatch,
}

/// kube's `DynamicTypeResolver.Resolve`.
pub fn resolve(name: &str) -> Option<StructType> {
    let name = name.strip_prefix('.').unwrap_or(name);
    if name == JSON_PATCH_TYPE_NAME {
        return Some(StructType::JsonPatch);
    }
    let object = name == OBJECT_TYPE_NAME
        || name
            .strip_prefix(OBJECT_TYPE_NAME)
            .is_some_and(|rest| rest.starts_with('.'));
    object.then(|| StructType::Object(Arc::from(name)))
}

impl StructType {
    /// The checker's type of a value of this type: an object type by its name; an
    /// `Object` type's fields are all `dyn` (a [`DeclKind::Dyn`] node).
    pub fn checked_type(&self) -> Type {
        match self {
            StructType::Object(name) => Type::Object(Arc::new(DeclType {
                name: name.to_string(),
                kind: DeclKind::Dyn,
                max_elements: crate::cel::decl::MAX_REQUEST_SIZE_BYTES - 2,
                min_serialized_size: 2,
            })),
            StructType::JsonPatch => Type::Object(json_patch_decl()),
        }
    }

    /// kube's `Field`: the declared type of a field (`Object`: any field, `dyn`;
    /// `JSONPatch`: `op`, `path`, `from` strings, anything else `dyn`).
    pub fn field_type(&self, field: &str) -> Type {
        match (self, field) {
            (StructType::JsonPatch, "op" | "path" | "from") => Type::String,
            _ => Type::Dyn,
        }
    }
}

/// Whether a checked object type is one of kube's dynamic `Object` types (its fields
/// are any names, of type `dyn`).
pub fn is_dynamic_object(decl: &DeclType) -> bool {
    matches!(decl.kind, DeclKind::Dyn) && resolve(&decl.name).is_some()
}

/// `JSONPatch` as an object type with its four fields.
fn json_patch_decl() -> Arc<DeclType> {
    static DECL: OnceLock<Arc<DeclType>> = OnceLock::new();
    Arc::clone(DECL.get_or_init(|| {
        let string = || Arc::new(DeclType::simple("string", DeclKind::String, 2, 0));
        let field = |json_name: &str, decl: Arc<DeclType>| Field {
            json_name: json_name.to_string(),
            decl,
            required: false,
        };
        let any = Arc::new(DeclType::simple("dyn", DeclKind::Dyn, 1, 0));
        let fields: BTreeMap<String, Field> = [
            ("op", field("op", string())),
            ("path", field("path", string())),
            ("from", field("from", string())),
            ("value", field("value", any)),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        Arc::new(DeclType {
            name: JSON_PATCH_TYPE_NAME.to_string(),
            kind: DeclKind::Object { fields },
            max_elements: 0,
            min_serialized_size: 2,
        })
    }))
}
