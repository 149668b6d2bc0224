//! CEL declaration types derived from a schema node (seen through cel's own [`Schema`]
//! trait), as k8s.io/apiserver's `pkg/cel/common/schemas.go` (`SchemaDeclType`) derives
//! them: typed objects with escaped property names (`ident`), `additionalProperties`
//! maps, lists with their list type, int-or-string as dyn, formats as
//! timestamp/duration/bytes, and the size bounds (`max_elements`, `min_serialized_size`)
//! the cost estimator works from.

mod ident;

use std::collections::BTreeMap;
use std::sync::Arc;

pub use ident::escape;

use super::schema::{AdditionalProperties, ListType, Schema, SchemaType};
use super::types::Type;

/// kube's `celconfig.MaxRequestSizeBytes`: the bound on anything in one request.
pub const MAX_REQUEST_SIZE_BYTES: i64 = 3 * 1024 * 1024;
const MAX_DURATION_SIZE_JSON: i64 = 32;
const MAX_DATETIME_SIZE_JSON: i64 = 32;
const MIN_DURATION_SIZE_JSON: i64 = 3;
const JSON_DATE_SIZE: i64 = 12;
const MIN_DATETIME_SIZE_JSON: i64 = 21;
const MIN_STRING_SIZE: i64 = 2;
const MIN_BOOL_SIZE: i64 = 4;
const MIN_NUMBER_SIZE: i64 = 1;

/// One schema node as CEL sees it.
#[derive(Debug)]
pub struct DeclType {
    /// The type name in messages: `object` until a rule scope names it (kube names the
    /// scope's objects `selfType<n>`, `selfType<n>.spec`, ...).
    pub name: String,
    pub kind: DeclKind,
    /// Items of a list, properties of a map, bytes of a string (×4 of `maxLength`).
    pub max_elements: i64,
    /// The smallest JSON this node can serialize to.
    pub min_serialized_size: i64,
}

#[derive(Debug)]
pub enum DeclKind {
    Bool,
    Int,
    Double,
    String,
    Bytes,
    Duration,
    Timestamp,
    /// `x-kubernetes-int-or-string`: an int or a string at run time.
    IntOrString,
    List {
        elem: Arc<DeclType>,
        list_type: ListType,
        map_keys: Vec<String>,
    },
    /// `additionalProperties` with a schema: string keys.
    Map {
        value: Arc<DeclType>,
    },
    Object {
        fields: BTreeMap<String, Field>,
    },
    /// Any JSON value without a schema (`dyn`), read as cel-go's `DefaultTypeAdapter`
    /// reads decoded JSON (every key visible, a missing one `no such key`, a null one
    /// `null`): the values of admission's variables (`object`, `oldObject`, `request`,
    /// `namespaceObject`). Its lists' items and its maps' values are again of this kind.
    Dyn,
}

/// A property of an object: its CEL name is the map key, its JSON name here.
#[derive(Debug)]
pub struct Field {
    pub json_name: String,
    pub decl: Arc<DeclType>,
    pub required: bool,
}

impl DeclType {
    /// The declaration of a schema node; `None` where kube has none (a node without
    /// type, or an array without items), which makes rules there uncompilable.
    /// `resource_root` is the custom resource's root or an embedded resource. Objects
    /// are named `name` (and `name.field` below it) as kube's `MaybeAssignTypeName`
    /// names them; `"object"` leaves them unnamed, to be named per rule scope.
    pub fn from_schema(
        schema: &impl Schema,
        resource_root: bool,
        name: &str,
    ) -> Option<Arc<DeclType>> {
        from_schema(schema, resource_root).map(|d| Arc::new(d).scoped(name))
    }

    /// kube's `MaybeAssignTypeName`: unnamed objects (`object`) are named `name`, their
    /// object fields `name.field`, list items `name.@idx` and map values `name.@elem`,
    /// recursively; named objects are kept.
    pub fn scoped(self: &Arc<Self>, name: &str) -> Arc<DeclType> {
        if name == "object" {
            return Arc::clone(self);
        }
        let fields = match &self.kind {
            DeclKind::Object { fields } if self.name == "object" => fields,
            DeclKind::List { .. } | DeclKind::Map { .. } => return self.scoped_elements(name),
            _ => return Arc::clone(self),
        };
        let fields = fields
            .iter()
            .map(|(cel_name, field)| {
                let field = Field {
                    json_name: field.json_name.clone(),
                    decl: field.decl.scoped(&format!("{name}.{cel_name}")),
                    required: field.required,
                };
                (cel_name.clone(), field)
            })
            .collect();
        Arc::new(DeclType {
            name: name.to_string(),
            kind: DeclKind::Object { fields },
            max_elements: self.max_elements,
            min_serialized_size: self.min_serialized_size,
        })
    }

    /// A list or map whose item or value type is named `name.@idx` / `name.@elem`.
    fn scoped_elements(self: &Arc<Self>, name: &str) -> Arc<DeclType> {
        let kind = match &self.kind {
            DeclKind::List {
                elem,
                list_type,
                map_keys,
            } => {
                let scoped = elem.scoped(&format!("{name}.@idx"));
                if Arc::ptr_eq(&scoped, elem) {
                    return Arc::clone(self);
                }
                DeclKind::List {
                    elem: scoped,
                    list_type: *list_type,
                    map_keys: map_keys.clone(),
                }
            }
            DeclKind::Map { value } => {
                let scoped = value.scoped(&format!("{name}.@elem"));
                if Arc::ptr_eq(&scoped, value) {
                    return Arc::clone(self);
                }
                DeclKind::Map { value: scoped }
            }
            _ => return Arc::clone(self),
        };
        Arc::new(DeclType {
            name: self.name.clone(),
            kind,
            max_elements: self.max_elements,
            min_serialized_size: self.min_serialized_size,
        })
    }

    /// The CEL type of values of this node.
    pub fn cel_type(self: &Arc<Self>) -> Type {
        match &self.kind {
            DeclKind::Bool => Type::Bool,
            DeclKind::Int => Type::Int,
            DeclKind::Double => Type::Double,
            DeclKind::String => Type::String,
            DeclKind::Bytes => Type::Bytes,
            DeclKind::Duration => Type::Duration,
            DeclKind::Timestamp => Type::Timestamp,
            DeclKind::IntOrString | DeclKind::Dyn => Type::Dyn,
            DeclKind::List { elem, .. } => Type::list(elem.cel_type()),
            DeclKind::Map { value } => Type::map(Type::String, value.cel_type()),
            DeclKind::Object { .. } => Type::Object(Arc::clone(self)),
        }
    }

    /// A property by its CEL (escaped) name.
    pub fn field(&self, cel_name: &str) -> Option<&Field> {
        match &self.kind {
            DeclKind::Object { fields } => fields.get(cel_name),
            _ => None,
        }
    }

    /// The one schemaless declaration ([`DeclKind::Dyn`]).
    pub fn dyn_json() -> &'static DeclType {
        static DYN: std::sync::LazyLock<DeclType> = std::sync::LazyLock::new(|| {
            DeclType::simple(
                "dyn",
                DeclKind::Dyn,
                MIN_NUMBER_SIZE,
                MAX_REQUEST_SIZE_BYTES - 2,
            )
        });
        &DYN
    }

    pub(crate) fn simple(name: &str, kind: DeclKind, min_size: i64, max_elements: i64) -> DeclType {
        DeclType {
            name: name.to_string(),
            kind,
            max_elements,
            min_serialized_size: min_size,
        }
    }
}

fn zero_if_negative(n: i64) -> i64 {
    n.max(0)
}

fn from_schema<S: Schema>(s: &S, resource_root: bool) -> Option<DeclType> {
    if s.is_x_int_or_string() {
        // kube: the smallest serialized int-or-string is `0`; `maxLength` bounds it as
        // it bounds strings (×4 bytes per code point).
        let max = s.max_length().map_or(MAX_REQUEST_SIZE_BYTES - 2, |n| {
            zero_if_negative(n).saturating_mul(4)
        });
        return Some(DeclType::simple(
            "dyn",
            DeclKind::IntOrString,
            MIN_NUMBER_SIZE,
            max,
        ));
    }
    match s.type_() {
        SchemaType::Array => {
            let items = s.items()?;
            let elem = from_schema(items, items.is_x_embedded_resource())?;
            let max = match s.max_items() {
                Some(n) => zero_if_negative(n),
                None => (MAX_REQUEST_SIZE_BYTES - 2) / (elem.min_serialized_size + 1),
            };
            let kind = DeclKind::List {
                elem: Arc::new(elem),
                list_type: s.x_list_type().unwrap_or(ListType::Atomic),
                map_keys: s.x_list_map_keys().to_vec(),
            };
            Some(DeclType::simple("list", kind, 2, max))
        }
        SchemaType::Object => object(s, resource_root),
        SchemaType::String => Some(string(s)),
        SchemaType::Boolean => Some(DeclType::simple("bool", DeclKind::Bool, MIN_BOOL_SIZE, 0)),
        SchemaType::Number => Some(DeclType::simple(
            "double",
            DeclKind::Double,
            MIN_NUMBER_SIZE,
            0,
        )),
        SchemaType::Integer => Some(DeclType::simple("int", DeclKind::Int, MIN_NUMBER_SIZE, 0)),
        SchemaType::Unset => None,
    }
}

fn object<S: Schema>(s: &S, resource_root: bool) -> Option<DeclType> {
    if let Some(AdditionalProperties::Schema(values)) = s.additional_properties() {
        let value = from_schema(values, values.is_x_embedded_resource())?;
        let max = match s.max_properties() {
            Some(n) => zero_if_negative(n),
            None => (MAX_REQUEST_SIZE_BYTES - 2) / (value.min_serialized_size + 6),
        };
        let kind = DeclKind::Map {
            value: Arc::new(value),
        };
        return Some(DeclType::simple("map", kind, 2, max));
    }
    let declared = s
        .properties()
        .filter(|(k, _)| !resource_root || !matches!(*k, "apiVersion" | "kind" | "metadata"))
        .filter_map(|(name, prop)| {
            let decl = from_schema(prop, prop.is_x_embedded_resource())?;
            Some((name, decl, prop.has_default()))
        });
    let root_meta = resource_root.then(type_and_object_meta);
    let root_meta = root_meta
        .into_iter()
        .flatten()
        .map(|(n, decl)| (n, decl, false));
    let mut fields = BTreeMap::new();
    // Always at least `{}`; required properties without a default add to the minimum.
    let mut min_size = 2;
    for (prop_name, field_type, has_default) in declared.chain(root_meta) {
        let required = s.required().iter().any(|r| r == prop_name);
        if required && !has_default {
            min_size += prop_name.len() as i64 + field_type.min_serialized_size + 4;
        }
        if let Some(cel_name) = escape(prop_name) {
            fields.insert(cel_name, field(prop_name, field_type, required));
        }
    }
    Some(DeclType {
        name: "object".to_string(),
        kind: DeclKind::Object { fields },
        max_elements: 0,
        min_serialized_size: min_size,
    })
}

fn field(json_name: &str, decl: DeclType, required: bool) -> Field {
    Field {
        json_name: json_name.to_string(),
        decl: Arc::new(decl),
        required,
    }
}

/// `apiVersion`, `kind` and `metadata.{name,generateName}`: always visible at a resource
/// root, in place of whatever the schema says of them (kube's `WithTypeAndObjectMeta`):
/// plain strings, and an object of two plain strings.
fn type_and_object_meta() -> [(&'static str, DeclType); 3] {
    let string = || {
        let max = MAX_REQUEST_SIZE_BYTES - 2;
        DeclType::simple("string", DeclKind::String, MIN_STRING_SIZE, max)
    };
    let fields = ["name", "generateName"]
        .into_iter()
        .map(|name| (name.to_string(), field(name, string(), false)))
        .collect();
    let metadata = DeclType::simple("object", DeclKind::Object { fields }, 2, 0);
    [
        ("apiVersion", string()),
        ("kind", string()),
        ("metadata", metadata),
    ]
}

fn string(s: &impl Schema) -> DeclType {
    let per_request = || match s.format() {
        "duration" => MAX_DURATION_SIZE_JSON,
        "date" => JSON_DATE_SIZE,
        "date-time" => MAX_DATETIME_SIZE_JSON,
        _ => MAX_REQUEST_SIZE_BYTES - 2,
    };
    match s.format() {
        "byte" => {
            let max = s.max_length().map_or_else(per_request, zero_if_negative);
            return DeclType::simple("bytes", DeclKind::Bytes, MIN_STRING_SIZE, max);
        }
        "duration" => {
            let kind = DeclKind::Duration;
            return DeclType::simple("duration", kind, MIN_DURATION_SIZE_JSON, per_request());
        }
        "date" => {
            let kind = DeclKind::Timestamp;
            return DeclType::simple("timestamp", kind, JSON_DATE_SIZE, per_request());
        }
        "date-time" => {
            let kind = DeclKind::Timestamp;
            return DeclType::simple("timestamp", kind, MIN_DATETIME_SIZE_JSON, per_request());
        }
        _ => {}
    }
    // maxLength counts code points; sizes are bytes, up to 4 per code point.
    let max = match s.max_length() {
        Some(n) => zero_if_negative(n).saturating_mul(4),
        None if !s.enum_().is_empty() => s
            .enum_()
            .iter()
            .filter_map(|v| v.as_str())
            .map(|v| v.len() as i64)
            .max()
            .unwrap_or(0),
        None => per_request(),
    };
    DeclType::simple("string", DeclKind::String, MIN_STRING_SIZE, max)
}

#[cfg(test)]
mod tests;
