//! OpenAPI v3 documents per group/version, built once at load: the paths and operations
//! of every served resource (with `x-kubernetes-group-version-kind` and the query
//! parameters kube publishes, so kubectl detects server-side field validation and the
//! patch types custom resources accept) and each version's CRD schema.
//!
//! Partial until the schema issue: component schemas are the CRD's own
//! `openAPIV3Schema` with `apiVersion`/`kind`/`metadata` added, not kube's fully
//! expanded published schema.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::catalog::{ServedResource, ServedVersion};

/// The documents: `apis/<group>/<version>` → OpenAPI v3 document.
pub fn build(resources: &[std::sync::Arc<ServedResource>]) -> BTreeMap<String, Value> {
    let mut docs: BTreeMap<String, (Value, Value)> = BTreeMap::new();
    for r in resources {
        for v in &r.versions {
            let key = format!("apis/{}/{}", r.group, v.name);
            let entry = docs.entry(key).or_insert_with(|| (json!({}), json!({})));
            add_resource(&mut entry.0, &mut entry.1, r, v);
        }
    }
    docs.into_iter()
        .map(|(key, (paths, schemas))| {
            let doc = json!({
                "openapi": "3.0.0",
                "info": {"title": "crd-apiserver", "version": env!("CARGO_PKG_VERSION")},
                "paths": paths,
                "components": {"schemas": schemas},
            });
            (key, doc)
        })
        .collect()
}

/// The `/openapi/v3` discovery document pointing at each group/version document.
pub fn root(docs: &BTreeMap<String, Value>) -> Value {
    let mut paths = serde_json::Map::new();
    for (key, doc) in docs {
        let digest = ring::digest::digest(&ring::digest::SHA256, doc.to_string().as_bytes());
        let hash: String = digest
            .as_ref()
            .iter()
            .take(16)
            .map(|b| format!("{b:02X}"))
            .collect();
        paths.insert(
            key.clone(),
            json!({"serverRelativeURL": format!("/openapi/v3/{key}?hash={hash}")}),
        );
    }
    json!({"paths": paths})
}

/// `com.example.stable.v1.CronTab`: the group reversed, as kube names CRD schemas.
fn schema_name(r: &ServedResource, v: &ServedVersion, kind: &str) -> String {
    let reversed: Vec<&str> = r.group.split('.').rev().collect();
    format!("{}.{}.{kind}", reversed.join("."), v.name)
}

fn param(name: &str, location: &str, required: bool) -> Value {
    json!({"name": name, "in": location, "required": required, "schema": {"type": "string"}, "uniqueItems": true})
}

fn write_params() -> Vec<Value> {
    ["dryRun", "fieldManager", "fieldValidation"]
        .iter()
        .map(|n| param(n, "query", false))
        .collect()
}

fn response(schema_ref: &str) -> Value {
    json!({"200": {"description": "OK", "content": {"application/json": {"schema": {"$ref": schema_ref}}}}})
}

fn add_resource(paths: &mut Value, schemas: &mut Value, r: &ServedResource, v: &ServedVersion) {
    let gvk = json!({"group": r.group, "version": v.name, "kind": r.kind});
    let name = schema_name(r, v, &r.kind);
    let list_name = schema_name(r, v, &r.list_kind);
    let object_ref = format!("#/components/schemas/{name}");
    let list_ref = format!("#/components/schemas/{list_name}");
    schemas[&name] = object_schema(v, &gvk);
    schemas[&list_name] = json!({"type": "object", "required": ["items"], "properties": {
        "apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": {"type": "object"},
        "items": {"type": "array", "items": {"$ref": object_ref}}},
        "x-kubernetes-group-version-kind": [{"group": r.group, "version": v.name, "kind": r.list_kind}]});
    let base = if r.namespaced {
        format!(
            "/apis/{}/{}/namespaces/{{namespace}}/{}",
            r.group, v.name, r.plural
        )
    } else {
        format!("/apis/{}/{}/{}", r.group, v.name, r.plural)
    };
    let mut scope_params = vec![];
    if r.namespaced {
        scope_params.push(param("namespace", "path", true));
    }
    let body = |content_types: &[&str]| {
        let content: serde_json::Map<String, Value> = content_types
            .iter()
            .map(|t| ((*t).to_string(), json!({"schema": {"type": "object"}})))
            .collect();
        json!({"content": content, "required": true})
    };
    let op = |action: &str, id: &str, params: Vec<Value>, resp: &str| {
        json!({"operationId": id, "parameters": params, "responses": response(resp),
               "x-kubernetes-action": action, "x-kubernetes-group-version-kind": gvk})
    };
    let mut item_params = scope_params.clone();
    item_params.insert(0, param("name", "path", true));
    paths[&base] = json!({
        "get": op("list", &format!("list{}", r.kind), vec![], &list_ref),
        "post": op("post", &format!("create{}", r.kind), write_params(), &object_ref),
        "delete": op("deletecollection", &format!("deletecollection{}", r.kind), vec![], &list_ref),
        "parameters": scope_params,
    });
    let patch_types = [
        "application/json-patch+json",
        "application/merge-patch+json",
    ];
    let item = |kind_ref: &str, id_suffix: &str| {
        let mut patch = op(
            "patch",
            &format!("patch{}{id_suffix}", r.kind),
            write_params(),
            kind_ref,
        );
        patch["requestBody"] = body(&patch_types);
        json!({
            "get": op("get", &format!("read{}{id_suffix}", r.kind), vec![], kind_ref),
            "put": op("put", &format!("replace{}{id_suffix}", r.kind), write_params(), kind_ref),
            "patch": patch,
            "parameters": item_params,
        })
    };
    let mut main = item(&object_ref, "");
    main["delete"] = op(
        "delete",
        &format!("delete{}", r.kind),
        write_params(),
        &object_ref,
    );
    paths[&format!("{base}/{{name}}")] = main;
    if v.status_subresource {
        paths[&format!("{base}/{{name}}/status")] = item(&object_ref, "Status");
    }
    if v.scale.is_some() {
        let scale_ref = "#/components/schemas/io.k8s.api.autoscaling.v1.Scale";
        paths[&format!("{base}/{{name}}/scale")] = item(scale_ref, "Scale");
        schemas["io.k8s.api.autoscaling.v1.Scale"] = json!({"type": "object",
            "x-kubernetes-group-version-kind": [{"group": "autoscaling", "kind": "Scale", "version": "v1"}]});
    }
}

fn object_schema(v: &ServedVersion, gvk: &Value) -> Value {
    let mut schema = v
        .schema
        .clone()
        .unwrap_or_else(|| json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true}));
    if let Some(map) = schema.as_object_mut() {
        let props = map.entry("properties").or_insert_with(|| json!({}));
        props["apiVersion"] = json!({"type": "string"});
        props["kind"] = json!({"type": "string"});
        props["metadata"] = json!({"type": "object"});
        map.insert("x-kubernetes-group-version-kind".into(), json!([gvk]));
    }
    schema
}
