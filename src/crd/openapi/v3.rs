//! The OpenAPI v3 document of one group/version (apiextensions-apiserver `BuildOpenAPIV3`
//! for each served CRD version, merged like `MergeSpecsV3`): kube-openapi builder3's
//! paths, operations and request bodies, and `components.schemas` with every definition
//! the operations reach, references wrapped in `allOf` when they have siblings.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::params::Param;
use super::paths::{self, Operation, PRODUCES, PathItem};
use super::published::{self, Flavor};
use super::{ServedPair, library_closure};

const V2_PREFIX: &str = "#/definitions/";
const V3_PREFIX: &str = "#/components/schemas/";

/// The document of the served versions of one group/version.
pub(super) fn document(versions: &[ServedPair<'_>]) -> Value {
    let mut paths = Map::new();
    let mut schemas = BTreeMap::new();
    for (r, v) in versions {
        for (path, item) in paths::paths(r, v) {
            paths.insert(path, path_item(&item));
        }
        let kind = published::model_name(&r.group, &v.name, &r.kind);
        let list = published::model_name(&r.group, &v.name, &r.list_kind);
        schemas.insert(kind, published::kind_schema(r, v, Flavor::V3));
        schemas.insert(list, published::list_schema(r, v));
    }
    let scale = versions.iter().any(|(_, v)| v.scale.is_some());
    schemas.extend(library_closure(scale));
    let schemas: Map<String, Value> = schemas
        .into_iter()
        .map(|(name, mut schema)| {
            to_v3_refs(&mut schema);
            (name, schema)
        })
        .collect();
    json!({
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes CRD Swagger", "version": "v0.1.0"},
        "paths": paths,
        "components": {"schemas": schemas},
    })
}

fn path_item(item: &PathItem) -> Value {
    let mut out = Map::new();
    if !item.params.is_empty() {
        out.insert("parameters".into(), params(&item.params));
    }
    for op in &item.operations {
        out.insert(op.method.into(), operation(op));
    }
    Value::Object(out)
}

fn params(list: &[Param]) -> Value {
    let rendered: Vec<Value> = list.iter().map(parameter).collect();
    Value::Array(rendered)
}

/// builder3's parameter: `schema: {type, uniqueItems: true}`.
fn parameter(p: &Param) -> Value {
    let mut out = json!({
        "name": p.name, "in": p.location.as_str(), "description": p.description,
        "schema": {"type": p.type_, "uniqueItems": true},
    });
    if p.required() {
        out["required"] = json!(true);
    }
    out
}

fn reference(model: &str) -> Value {
    json!({"$ref": format!("{V3_PREFIX}{model}")})
}

fn operation(op: &Operation) -> Value {
    let mut responses = Map::new();
    for (code, message, model) in &op.responses {
        let content: Map<String, Value> = PRODUCES
            .iter()
            .map(|t| ((*t).to_string(), json!({"schema": reference(model)})))
            .collect();
        responses.insert(
            code.to_string(),
            json!({"description": message, "content": content}),
        );
    }
    responses.insert("401".into(), json!({"description": "Unauthorized"}));
    let mut out = json!({
        "description": op.description,
        "operationId": op.operation_id,
        "tags": [op.tag],
        "responses": responses,
        "x-kubernetes-action": op.action,
        "x-kubernetes-group-version-kind": op.group_version_kind,
    });
    if !op.params.is_empty() {
        out["parameters"] = params(&op.params);
    }
    if let Some(body) = &op.body {
        let content: Map<String, Value> = op
            .consumes
            .iter()
            .map(|t| ((*t).to_string(), json!({"schema": reference(&body.model)})))
            .collect();
        out["requestBody"] = json!({"content": content});
        if body.required {
            out["requestBody"]["required"] = json!(true);
        }
    }
    out
}

/// Rewrites `#/definitions/` references to `#/components/schemas/`, and wraps a
/// reference that has siblings (a description, a default) in `allOf` (builder3's
/// `WrapRefs`: v3 references may not have siblings).
pub(super) fn to_v3_refs(schema: &mut Value) {
    if let Some(map) = schema.as_object_mut()
        && let Some(Value::String(target)) = map.get_mut("$ref")
    {
        if let Some(model) = target.strip_prefix(V2_PREFIX) {
            *target = format!("{V3_PREFIX}{model}");
        }
        if map.len() > 1
            && let Some(target) = map.remove("$ref")
        {
            map.insert("allOf".into(), json!([{"$ref": target}]));
        }
    }
    published::for_each_subschema(schema, to_v3_refs);
}
