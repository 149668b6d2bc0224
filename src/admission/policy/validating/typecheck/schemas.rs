//! Our served resources as the type checker's [`Schemas`]: kinds as kube's discovery
//! RESTMapper finds them (`DefaultRESTMapper.KindsFor`: plural or singular name, an
//! empty group or version matching any), and a kind's schema as kube's
//! `ClientDiscoveryResolver` reads it from our published OpenAPI v3 document (the
//! schema whose `x-kubernetes-group-version-kind` names it, references populated as
//! `PopulateRefs` does, so `metadata` is the full `ObjectMeta`), typed by the same
//! `SchemaDeclType` builder the CRD validation rules use.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Map, Value};

use super::Schemas;
use crate::admission::webhook::matching::Gvk;
use crate::cel::decl::DeclType;
use crate::crd::catalog::Catalog;

const REF_PREFIX: &str = "#/components/schemas/";
const EXT_GVK: &str = "x-kubernetes-group-version-kind";

impl Schemas for Catalog {
    fn kinds_for(&self, group: &str, version: &str, resource: &str) -> Vec<Gvk> {
        let resource = resource.to_lowercase();
        let mut kinds = Vec::new();
        let named = self
            .resources()
            .iter()
            .filter(|r| group.is_empty() || r.group == group)
            .filter(|r| r.plural == resource || r.singular == resource);
        for r in named {
            let versions = r.versions.iter().map(|v| &*v.name);
            for v in versions.filter(|v| version.is_empty() || *v == version) {
                kinds.push(Gvk {
                    group: r.group.clone(),
                    version: v.to_string(),
                    kind: r.kind.clone(),
                });
            }
        }
        kinds
    }

    fn decl_type(&self, gvk: &Gvk) -> Option<Arc<DeclType>> {
        let path = format!("apis/{}/{}", gvk.group, gvk.version);
        let document = self.openapi().v3(&path)?;
        let document: Value = serde_json::from_slice(document.bytes()).ok()?;
        let schemas = document.pointer("/components/schemas")?.as_object()?;
        let resolved = resolve_schema(schemas, gvk)?;
        decl_type(&resolved, &gvk.kind)
    }
}

/// kube's `SchemaDeclType(schema, true)` then `MaybeAssignTypeName(<kind><n>)`.
pub fn decl_type(resolved: &Value, kind: &str) -> Option<Arc<DeclType>> {
    let schema = crate::schema::Schema::parse(resolved);
    // kube's `WithTypeAndObjectMeta` keeps a root that already declares them.
    let resource_root = !has_type_and_object_meta(resolved);
    DeclType::from_schema(&schema, resource_root, &unique_type_name(kind))
}

/// kube's `generateUniqueTypeName`: the kind and a number (kube's the clock's
/// nanoseconds; here a counter), so two kinds' types never share a name.
fn unique_type_name(kind: &str) -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    format!("{kind}{}", NEXT.fetch_add(1, Ordering::Relaxed))
}

/// Whether `kind`, `apiVersion` are strings and `metadata` an object with string
/// `name` and `generateName` (kube's test in `WithTypeAndObjectMeta`).
fn has_type_and_object_meta(schema: &Value) -> bool {
    let is = |s: &Value, ty: &str| match &s["type"] {
        Value::String(t) => t == ty,
        Value::Array(types) => types.iter().any(|t| t == ty),
        _ => false,
    };
    let props = &schema["properties"];
    let meta = &props["metadata"]["properties"];
    is(&props["kind"], "string")
        && is(&props["apiVersion"], "string")
        && is(&props["metadata"], "object")
        && is(&meta["name"], "string")
        && is(&meta["generateName"], "string")
}

/// kube's `resolveRef` and `PopulateRefs`: the schema of `gvk`, references replaced.
pub fn resolve_schema(schemas: &Map<String, Value>, gvk: &Gvk) -> Option<Value> {
    let names = |s: &Value| -> bool {
        s[EXT_GVK].as_array().is_some_and(|gvks| {
            gvks.iter().any(|g| {
                g["group"] == gvk.group.as_str()
                    && g["version"] == gvk.version.as_str()
                    && g["kind"] == gvk.kind.as_str()
            })
        })
    };
    let (name, root) = schemas.iter().find(|(_, s)| names(s))?;
    let mut visited = vec![name.clone()];
    populate_refs(schemas, &mut visited, root)
}

/// kube's `populateRefs`: a reference (or an `allOf` wrapping one) is replaced by what
/// it names, a circular one by `{"type": "object"}`; properties, `additionalProperties`
/// and `items` are populated recursively. `None` when a reference names nothing.
fn populate_refs(
    schemas: &Map<String, Value>,
    visited: &mut Vec<String>,
    schema: &Value,
) -> Option<Value> {
    let reference = ref_of(schema);
    let mut result = match reference {
        Some(r) if visited.iter().any(|v| v == r) => {
            return Some(serde_json::json!({"type": "object"}));
        }
        Some(r) => {
            visited.push(r.to_string());
            schemas.get(r)?.clone()
        }
        None => schema.clone(),
    };
    let populated = populate_children(schemas, visited, &mut result);
    if reference.is_some() {
        visited.pop();
    }
    populated.then_some(result)
}

/// Populates `schema`'s properties, `additionalProperties` and `items` in place;
/// whether every reference was found.
fn populate_children(
    schemas: &Map<String, Value>,
    visited: &mut Vec<String>,
    schema: &mut Value,
) -> bool {
    let mut children: Vec<&mut Value> = Vec::new();
    let Some(object) = schema.as_object_mut() else {
        return true;
    };
    for (key, value) in object.iter_mut() {
        match key.as_str() {
            "properties" => children.extend(
                value
                    .as_object_mut()
                    .into_iter()
                    .flat_map(|p| p.values_mut()),
            ),
            "additionalProperties" | "items" if value.is_object() => children.push(value),
            _ => {}
        }
    }
    for child in children {
        match populate_refs(schemas, visited, child) {
            Some(populated) => *child = populated,
            None => return false,
        }
    }
    true
}

/// The referenced schema's name: `$ref`, or the first `allOf` entry's.
fn ref_of(schema: &Value) -> Option<&str> {
    let direct = schema["$ref"]
        .as_str()
        .and_then(|r| r.strip_prefix(REF_PREFIX));
    direct.or_else(|| {
        let all_of = schema["allOf"].as_array()?;
        all_of
            .iter()
            .find_map(|s| s["$ref"].as_str().and_then(|r| r.strip_prefix(REF_PREFIX)))
    })
}
