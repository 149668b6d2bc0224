//! Discovery: `/apis` (APIGroupList or aggregated `apidiscovery.k8s.io/v2`), `/apis/<group>`,
//! `/apis/<group>/<version>` (APIResourceList). OpenAPI is served by [`super::openapi`].

use serde_json::{Value, json};

use crate::crd::catalog::{Catalog, ServedResource, ServedVersion};
use crate::error::ApiError;
use crate::handlers::{Call, Reply};
use crate::request::negotiate::{Representation, Target, negotiate};

const RESOURCE_VERBS: [&str; 8] = [
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "create",
    "update",
    "watch",
];
const SUBRESOURCE_VERBS: [&str; 3] = ["get", "patch", "update"];

fn group_version(group: &str, version: &str) -> Value {
    json!({"groupVersion": format!("{group}/{version}"), "version": version})
}

fn api_group(group: &str, versions: &[&str]) -> Value {
    let list: Vec<Value> = versions.iter().map(|v| group_version(group, v)).collect();
    let preferred = list.first().cloned().unwrap_or(Value::Null);
    json!({"name": group, "versions": list, "preferredVersion": preferred})
}

pub fn groups(call: &Call) -> Result<Reply, ApiError> {
    let representation = negotiate(call.header("accept"), Target::Discovery)?;
    if representation == Representation::DiscoveryV2 {
        return Ok(Reply::ok(aggregated(&call.catalog), representation));
    }
    let groups: Vec<Value> = call
        .catalog
        .groups()
        .iter()
        .map(|g| api_group(g.group, &g.versions))
        .collect();
    Ok(Reply::ok(
        json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}),
        representation,
    ))
}

pub fn group(call: &Call, group: &str) -> Result<Reply, ApiError> {
    let representation = negotiate(call.header("accept"), Target::Discovery)?;
    let groups = call.catalog.groups();
    let found = groups
        .iter()
        .find(|g| g.group == group)
        .ok_or(ApiError::PathNotFound)?;
    let mut body = api_group(found.group, &found.versions);
    body["kind"] = json!("APIGroup");
    body["apiVersion"] = json!("v1");
    Ok(Reply::ok(body, representation))
}

pub fn resources(call: &Call, group: &str, version: &str) -> Result<Reply, ApiError> {
    let representation = negotiate(call.header("accept"), Target::Discovery)?;
    let mut list = Vec::new();
    for r in call.catalog.in_group_version(group, version) {
        if let Some(v) = r.version(version) {
            list.extend(api_resources(r, v));
        }
    }
    if list.is_empty() {
        return Err(ApiError::PathNotFound);
    }
    Ok(Reply::ok(
        json!({"kind": "APIResourceList", "apiVersion": "v1",
               "groupVersion": format!("{group}/{version}"), "resources": list}),
        representation,
    ))
}

/// kube's storageVersionHash: base64 of the first 8 bytes of sha256("group/version/kind").
fn storage_version_hash(r: &ServedResource) -> String {
    use base64::Engine;
    let text = format!("{}/{}/{}", r.group, r.storage_version, r.kind);
    let digest = ring::digest::digest(&ring::digest::SHA256, text.as_bytes());
    base64::engine::general_purpose::STANDARD.encode(&digest.as_ref()[..8])
}

fn api_resources(r: &ServedResource, v: &ServedVersion) -> Vec<Value> {
    let mut main = json!({
        "name": r.plural, "singularName": r.singular, "namespaced": r.namespaced,
        "kind": r.kind, "verbs": RESOURCE_VERBS, "storageVersionHash": storage_version_hash(r),
    });
    if !r.short_names.is_empty() {
        main["shortNames"] = json!(r.short_names);
    }
    if !r.categories.is_empty() {
        main["categories"] = json!(r.categories);
    }
    let mut out = vec![main];
    if v.status_subresource {
        out.push(
            json!({"name": format!("{}/status", r.plural), "singularName": "",
            "namespaced": r.namespaced, "kind": r.kind, "verbs": SUBRESOURCE_VERBS}),
        );
    }
    if v.scale.is_some() {
        out.push(
            json!({"name": format!("{}/scale", r.plural), "singularName": "",
            "namespaced": r.namespaced, "group": "autoscaling", "version": "v1",
            "kind": "Scale", "verbs": SUBRESOURCE_VERBS}),
        );
    }
    out
}

/// `apidiscovery.k8s.io/v2` APIGroupDiscoveryList for every served group.
pub fn aggregated(catalog: &Catalog) -> Value {
    let items: Vec<Value> = catalog
        .groups()
        .iter()
        .map(|g| {
            let versions: Vec<Value> = g
                .versions
                .iter()
                .map(|version| {
                    let resources: Vec<Value> = catalog
                        .in_group_version(g.group, version)
                        .filter_map(|r| r.version(version).map(|v| discovery_resource(r, v)))
                        .collect();
                    json!({"version": version, "resources": resources, "freshness": "Current"})
                })
                .collect();
            json!({"metadata": {"name": g.group, "creationTimestamp": null}, "versions": versions})
        })
        .collect();
    json!({"kind": "APIGroupDiscoveryList", "apiVersion": "apidiscovery.k8s.io/v2",
           "metadata": {}, "items": items})
}

fn discovery_resource(r: &ServedResource, v: &ServedVersion) -> Value {
    let kind = json!({"group": r.group, "version": &*v.name, "kind": r.kind});
    let mut subresources = Vec::new();
    if v.status_subresource {
        subresources.push(
            json!({"subresource": "status", "responseKind": kind, "verbs": SUBRESOURCE_VERBS}),
        );
    }
    if v.scale.is_some() {
        subresources.push(json!({"subresource": "scale",
            "responseKind": {"group": "autoscaling", "version": "v1", "kind": "Scale"},
            "verbs": SUBRESOURCE_VERBS}));
    }
    let mut out = json!({
        "resource": r.plural, "responseKind": kind,
        "scope": if r.namespaced { "Namespaced" } else { "Cluster" },
        "singularResource": r.singular, "verbs": RESOURCE_VERBS,
    });
    if !r.short_names.is_empty() {
        out["shortNames"] = json!(r.short_names);
    }
    if !r.categories.is_empty() {
        out["categories"] = json!(r.categories);
    }
    if !subresources.is_empty() {
        out["subresources"] = json!(subresources);
    }
    out
}
