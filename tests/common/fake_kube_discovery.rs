//! The fake kube-apiserver's discovery documents (`/api`, `/api/v1`, `/apis`, `/apis/<g>`,
//! `/apis/<g>/<v>`, the legacy unaggregated forms) listing every kind
//! `fake_kube_collections.rs` serves and the namespaces, so a client's REST mapper resolves
//! a paramKind.

use axum::body::Body;
use http::{Response, StatusCode};
use serde_json::{Value, json};

use super::collections::{Collections, Resource};
use super::wire::reply;

pub(super) fn api_versions() -> Value {
    json!({"kind": "APIVersions", "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1:443"}]})
}

pub(super) fn group_entry(name: &str, versions: &[&str]) -> Value {
    let versions: Vec<Value> = versions
        .iter()
        .map(|v| json!({"groupVersion": format!("{name}/{v}"), "version": v}))
        .collect();
    json!({"name": name, "versions": versions, "preferredVersion": versions[0]})
}

/// Each named group with its versions, in the order first served.
fn group_versions(collections: &Collections) -> Vec<(&'static str, Vec<&'static str>)> {
    let mut out: Vec<(&'static str, Vec<&'static str>)> = Vec::new();
    for r in collections
        .resources()
        .into_iter()
        .filter(|r| !r.group.is_empty())
    {
        match out.iter_mut().find(|(g, _)| *g == r.group) {
            Some((_, versions)) if !versions.contains(&r.version) => versions.push(r.version),
            Some(_) => {}
            None => out.push((r.group, vec![r.version])),
        }
    }
    out
}

pub(super) fn groups(collections: &Collections) -> Value {
    let groups: Vec<Value> = group_versions(collections)
        .iter()
        .map(|(g, v)| group_entry(g, v))
        .collect();
    json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})
}

pub(super) fn group_document(collections: &Collections, group: &str) -> Option<Response<Body>> {
    let all = group_versions(collections);
    let (name, versions) = all.iter().find(|(g, _)| *g == group)?;
    let mut body = group_entry(name, versions);
    body["kind"] = json!("APIGroup");
    body["apiVersion"] = json!("v1");
    Some(reply(StatusCode::OK, &body))
}

/// A kind's entry, and its `/status` subresource's when it has one.
fn status_too(resource: &Resource) -> Vec<Value> {
    let mut entries = vec![resource.discovery()];
    if resource.status {
        entries.push(
            json!({"name": format!("{}/status", resource.plural), "singularName": "",
            "namespaced": resource.namespaced, "kind": resource.kind,
            "verbs": ["get", "patch", "update"]}),
        );
    }
    entries
}

pub(super) fn resource_list(
    collections: &Collections,
    group: &str,
    version: &str,
) -> Option<Response<Body>> {
    let served: Vec<Value> = collections
        .resources()
        .iter()
        .filter(|r| r.group == group && r.version == version)
        .flat_map(status_too)
        .collect();
    if served.is_empty() || (group.is_empty() && version != "v1") {
        return None;
    }
    let group_version = match group {
        "" => version.to_string(),
        g => format!("{g}/{version}"),
    };
    let body = json!({"kind": "APIResourceList", "apiVersion": "v1",
        "groupVersion": group_version, "resources": served});
    Some(reply(StatusCode::OK, &body))
}
