//! The `kube` crate as a user's controller uses it, against the real dev server over TLS:
//! `Discovery` finds the example resources, and `Api<DynamicObject>` does CRUD, status and
//! scale. (Watchers and reflectors: tests/kube_client_watch.rs.) Expected error texts are
//! the reference apiextensions-apiserver 0.36.4's answers to the same requests.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;
#[path = "common/kube.rs"]
mod kube_support;

use common::Server;
use k8s_openapi::api::autoscaling::v1::{Scale, ScaleSpec};
use kube::api::{Api, ApiResource, DeleteParams, DynamicObject, ListParams, Patch, PatchParams};
use kube::discovery::{ApiCapabilities, Discovery, Scope};
use kube_support::{crontab, crontabs, discover, kube_client, patch_params, post_params};
use serde_json::{Value, json};

/// A resource and its capabilities as JSON: scope, verbs, and each subresource's.
fn described(ar: &ApiResource, caps: &ApiCapabilities) -> Value {
    let scope = match caps.scope {
        Scope::Namespaced => "Namespaced",
        Scope::Cluster => "Cluster",
    };
    let subresources: Vec<Value> = caps
        .subresources
        .iter()
        .map(|(sub, caps)| described(sub, caps))
        .collect();
    json!({"resource": ar, "scope": scope, "verbs": caps.operations, "subresources": subresources})
}

/// Every version of a group with its resources, described.
fn group_described(discovery: &Discovery, name: &str) -> Value {
    let group = discovery.get(name).unwrap();
    let versions: Vec<Value> = group
        .versions()
        .map(|v| {
            let resources: Vec<Value> = group
                .versioned_resources(v)
                .iter()
                .map(|(ar, caps)| described(ar, caps))
                .collect();
            json!({"version": v, "resources": resources})
        })
        .collect();
    json!({"preferred": group.preferred_version(), "versions": versions})
}

const CRUD: [&str; 8] = [
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "create",
    "update",
    "watch",
];

#[tokio::test]
async fn discovery_finds_example_groups_versions_resources_and_subresources() {
    let server = Server::start();
    let client = kube_client(&server, server.addr).await;
    let discovery = discover(&client).await;
    let mut groups: Vec<&str> = discovery.groups().map(|g| g.name()).collect();
    groups.sort();
    assert_eq!(groups, ["example.org", "stable.example.com"]);
    let sub = |plural: &str, group: &str, kind: &str| {
        // kube-rs names a legacy-discovery subresource by its own group/version, but keeps
        // the list's groupVersion as apiVersion.
        json!({"resource": {"group": group, "version": "v1", "api_version": "stable.example.com/v1",
                            "kind": kind, "plural": plural},
               "scope": "Namespaced", "verbs": ["get", "patch", "update"], "subresources": []})
    };
    let crontab = json!({
        "resource": {"group": "stable.example.com", "version": "v1", "api_version": "stable.example.com/v1",
                     "kind": "CronTab", "plural": "crontabs"},
        "scope": "Namespaced", "verbs": CRUD,
        "subresources": [sub("status", "stable.example.com", "CronTab"), sub("scale", "autoscaling", "Scale")]});
    assert_eq!(
        group_described(&discovery, "stable.example.com"),
        json!({"preferred": "v1", "versions": [{"version": "v1", "resources": [crontab]}]})
    );
    let widget = |version: &str| {
        json!({"resource": {"group": "example.org", "version": version,
                            "api_version": format!("example.org/{version}"), "kind": "Widget", "plural": "widgets"},
               "scope": "Cluster", "verbs": CRUD, "subresources": []})
    };
    assert_eq!(
        group_described(&discovery, "example.org"),
        json!({"preferred": "v1", "versions": [
            {"version": "v1", "resources": [widget("v1")]},
            {"version": "v1beta1", "resources": [widget("v1beta1")]}]})
    );

    // Aggregated discovery (2 requests) finds the same resources; kube-rs names its
    // subresources by the parent's group/version.
    let aggregated = Discovery::new(client.clone())
        .exclude(&[""])
        .run_aggregated()
        .await
        .unwrap();
    let mut expected = group_described(&discovery, "stable.example.com");
    expected["versions"][0]["resources"][0]["subresources"][1]["resource"]["group"] =
        json!("stable.example.com");
    assert_eq!(group_described(&aggregated, "stable.example.com"), expected);
    assert_eq!(
        group_described(&aggregated, "example.org"),
        group_described(&discovery, "example.org")
    );
}

#[tokio::test]
async fn discovery_without_filter_fails_on_the_core_group_as_standalone_kube_does() {
    let server = Server::start();
    let client = kube_client(&server, server.addr).await;
    // kube-rs's unfiltered discovery reads /api, which a standalone apiextensions-apiserver
    // answers 404 too (in a cluster, kube-apiserver serves it through the aggregator).
    let Err(kube::Error::Api(status)) = Discovery::new(client).run().await else {
        panic!("discovery without /api succeeded")
    };
    assert_eq!(status.code, 404, "{status:?}");
}

/// The Status of a failed call, as JSON.
fn api_error<T: std::fmt::Debug>(result: kube::Result<T>) -> Value {
    match result {
        Err(kube::Error::Api(status)) => serde_json::to_value(status).unwrap(),
        other => panic!("expected an API error, got {other:?}"),
    }
}

/// kube's 409 for a write with a stale resourceVersion.
fn conflict(name: &str) -> Value {
    json!({"status": "Failure", "metadata": {}, "code": 409, "reason": "Conflict",
           "message": format!("Operation cannot be fulfilled on crontabs.stable.example.com \"{name}\": the object has been modified; please apply your changes to the latest version and try again"),
           "details": {"name": name, "group": "stable.example.com", "kind": "crontabs"}})
}

/// `manager operation [subresource]` of each managedFields entry, sorted.
fn managers(object: &DynamicObject) -> Vec<String> {
    let mut managers: Vec<_> = object
        .metadata
        .managed_fields
        .iter()
        .flatten()
        .map(|e| {
            let fields = [&e.manager, &e.operation, &e.subresource];
            let fields = fields.iter().filter_map(|f| f.as_deref());
            fields.collect::<Vec<_>>().join(" ")
        })
        .collect();
    managers.sort();
    managers
}

fn names(objects: &[DynamicObject]) -> Vec<&str> {
    objects
        .iter()
        .map(|o| o.metadata.name.as_deref().unwrap())
        .collect()
}

#[tokio::test]
async fn dynamic_api_creates_gets_lists_replaces_patches_and_deletes() {
    let server = Server::start();
    let client = kube_client(&server, server.addr).await;
    let ar = crontabs(&client).await;
    let api: Api<DynamicObject> = Api::namespaced_with(client, "default", &ar);

    let object = crontab(&ar, "crud", 1, "a");
    let created = api.create(&post_params(), &object).await.unwrap();
    assert_eq!(created.types, object.types);
    assert_eq!(created.metadata.name.as_deref(), Some("crud"));
    assert_eq!(created.metadata.namespace.as_deref(), Some("default"));
    assert_eq!(created.metadata.labels, object.metadata.labels);
    assert_eq!(created.metadata.generation, Some(1));
    assert!(created.metadata.uid.as_ref().is_some_and(|u| u.len() == 36));
    assert!(created.metadata.resource_version.is_some());
    assert!(created.metadata.creation_timestamp.is_some());
    assert_eq!(created.data, object.data);
    assert_eq!(managers(&created), ["controller Update"]);
    assert_eq!(api.get("crud").await.unwrap(), created);

    let other = api
        .create(&post_params(), &crontab(&ar, "other", 2, "b"))
        .await
        .unwrap();
    let selected = api
        .list(&ListParams::default().labels("app=a"))
        .await
        .unwrap();
    assert_eq!(selected.items, std::slice::from_ref(&created));
    assert!(selected.metadata.resource_version.is_some());
    let all = api.list(&ListParams::default()).await.unwrap();
    assert_eq!(all.items, [created.clone(), other]);
    let none = ListParams::default().labels("app in (c, d)");
    assert!(api.list(&none).await.unwrap().items.is_empty());

    let mut changed = created.clone();
    changed.data["spec"]["image"] = json!("busybox");
    let replaced = api.replace("crud", &post_params(), &changed).await.unwrap();
    assert_eq!(replaced.data["spec"], changed.data["spec"]);
    assert_eq!(replaced.metadata.generation, Some(2));
    assert_ne!(
        replaced.metadata.resource_version,
        created.metadata.resource_version
    );
    assert_eq!(replaced.metadata.uid, created.metadata.uid);
    let stale = api.replace("crud", &post_params(), &changed).await;
    assert_eq!(api_error(stale), conflict("crud"));

    let merge = Patch::Merge(json!({"spec": {"replicas": 3}}));
    let merged = api.patch("crud", &patch_params(), &merge).await.unwrap();
    assert_eq!(
        merged.data["spec"],
        json!({"cronSpec": "*/5 * * * *", "image": "busybox", "replicas": 3})
    );
    assert_eq!(merged.metadata.generation, Some(3));

    let apply = Patch::Apply(
        json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
                                    "metadata": {"name": "crud"}, "spec": {"replicas": 4}}),
    );
    let conflicting = api
        .patch("crud", &PatchParams::apply("applier"), &apply)
        .await;
    let status = api_error(conflicting);
    assert_eq!(
        (&status["code"], &status["reason"], &status["message"]),
        (
            &json!(409),
            &json!("Conflict"),
            &json!(
                "Apply failed with 1 conflict: conflict with \"controller\" using stable.example.com/v1: .spec.replicas"
            )
        )
    );
    let forced = PatchParams::apply("applier").force();
    let applied = api.patch("crud", &forced, &apply).await.unwrap();
    assert_eq!(applied.data["spec"]["replicas"], 4);
    assert_eq!(applied.data["spec"]["image"], "busybox");
    assert_eq!(managers(&applied), ["applier Apply", "controller Update"]);

    let deleted = api.delete("crud", &DeleteParams::default()).await.unwrap();
    let status = deleted
        .right()
        .expect("kube answers a custom resource's delete with a Status");
    assert_eq!(
        serde_json::to_value(status).unwrap(),
        json!({"status": "Success", "metadata": {}, "details": {"name": "crud",
               "group": "stable.example.com", "kind": "crontabs", "uid": created.metadata.uid}})
    );
    assert_eq!(
        api_error(api.get("crud").await),
        json!({"status": "Failure", "metadata": {}, "code": 404, "reason": "NotFound",
               "message": "crontabs.stable.example.com \"crud\" not found",
               "details": {"name": "crud", "group": "stable.example.com", "kind": "crontabs"}})
    );
    let left = api.list(&ListParams::default()).await.unwrap();
    assert_eq!(names(&left.items), ["other"]);
}

#[tokio::test]
async fn dynamic_api_status_and_scale_subresources_read_and_write() {
    let server = Server::start();
    let client = kube_client(&server, server.addr).await;
    let ar = crontabs(&client).await;
    let api: Api<DynamicObject> = Api::namespaced_with(client, "default", &ar);
    let created = api
        .create(&post_params(), &crontab(&ar, "sub", 1, "sub"))
        .await
        .unwrap();

    // The status subresource writes status only, and leaves the generation.
    let mut body = created.clone();
    body.data["status"] = json!({"replicas": 1, "labelSelector": "app=sub"});
    body.data["spec"]["replicas"] = json!(99);
    let replaced = api
        .replace_status("sub", &post_params(), &body)
        .await
        .unwrap();
    assert_eq!(replaced.data["status"], body.data["status"]);
    assert_eq!(replaced.data["spec"], created.data["spec"]);
    assert_eq!(replaced.metadata.generation, Some(1));
    let stale = api.replace_status("sub", &post_params(), &body).await;
    assert_eq!(api_error(stale), conflict("sub"));
    let merge = Patch::Merge(json!({"status": {"replicas": 2}, "spec": {"replicas": 98}}));
    let patched = api
        .patch_status("sub", &patch_params(), &merge)
        .await
        .unwrap();
    assert_eq!(
        patched.data["status"],
        json!({"replicas": 2, "labelSelector": "app=sub"})
    );
    assert_eq!(patched.data["spec"], created.data["spec"]);
    let apply = Patch::Apply(
        json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
                                    "metadata": {"name": "sub"}, "status": {"labelSelector": "app=sub"}}),
    );
    let status_params = PatchParams::apply("status-applier");
    let applied = api
        .patch_status("sub", &status_params, &apply)
        .await
        .unwrap();
    assert_eq!(applied.data["status"], patched.data["status"]);
    assert_eq!(
        managers(&applied),
        [
            "controller Update",
            "controller Update status",
            "status-applier Apply status"
        ]
    );
    assert_eq!(api.get_status("sub").await.unwrap(), applied);

    // The scale subresource reads and writes spec.replicas through the CRD's paths.
    let scale = api.get_scale("sub").await.unwrap();
    assert_eq!(scale.metadata.name.as_deref(), Some("sub"));
    assert_eq!(scale.metadata.namespace.as_deref(), Some("default"));
    assert_eq!(scale.metadata.uid, created.metadata.uid);
    assert_eq!(
        scale.metadata.resource_version,
        applied.metadata.resource_version
    );
    assert_eq!(
        serde_json::to_value((&scale.spec, &scale.status)).unwrap(),
        json!([{"replicas": 1}, {"replicas": 2, "selector": "app=sub"}])
    );
    let merge = Patch::Merge(json!({"spec": {"replicas": 5}}));
    let patched = api
        .patch_scale("sub", &patch_params(), &merge)
        .await
        .unwrap();
    assert_eq!(patched.spec, Some(ScaleSpec { replicas: Some(5) }));
    let object = api.get("sub").await.unwrap();
    assert_eq!(object.data["spec"]["replicas"], 5);
    assert_eq!(object.metadata.generation, Some(2));

    let wanted = Scale {
        spec: Some(ScaleSpec { replicas: Some(7) }),
        ..patched.clone()
    };
    let replaced = api
        .replace_scale("sub", &post_params(), &wanted)
        .await
        .unwrap();
    assert_eq!(replaced.spec, wanted.spec);
    assert_eq!(replaced.status, patched.status);
    let stale = api.replace_scale("sub", &post_params(), &wanted).await;
    assert_eq!(api_error(stale), conflict("sub"));

    // Applying a Scale that changes replicas fails as kube's does (the Scale meets the
    // custom resource's converter); applying the current replicas co-owns them.
    let scale_apply = |replicas: i64| {
        Patch::Apply(json!({"apiVersion": "autoscaling/v1", "kind": "Scale",
                            "metadata": {"name": "sub"}, "spec": {"replicas": replicas}}))
    };
    let scaler = PatchParams::apply("scaler").force();
    let refused = api.patch_scale("sub", &scaler, &scale_apply(9)).await;
    assert_eq!(
        api_error(refused),
        json!({"status": "Failure", "metadata": {}, "code": 500,
               "message": "failed to convert new object (/sub; autoscaling/v1, Kind=Scale) to proper version: request to convert CR to an invalid group/version: autoscaling/v1"})
    );
    let applied = api.patch_scale("sub", &scaler, &scale_apply(7)).await;
    assert_eq!(applied.unwrap().spec, wanted.spec);
    let object = api.get("sub").await.unwrap();
    assert_eq!(object.data["spec"]["replicas"], 7);
    assert_eq!(
        managers(&object),
        [
            "controller Update",
            "controller Update scale",
            "controller Update status",
            "scaler Apply scale",
            "status-applier Apply status"
        ]
    );
}
