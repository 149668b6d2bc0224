//! The `kube` crate as a user's controller uses it, against the real dev server over TLS:
//! `Discovery` finds the example resources, `Api<DynamicObject>` does CRUD, status and scale,
//! and a `kube::runtime` watcher keeps a reflector's `Store` equal to a fresh LIST across a
//! server restart, a compaction (410 Gone, relist) and a streaming list. Expected error
//! texts are the reference apiextensions-apiserver 0.36.4's answers to the same requests.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;

use common::Server;
use futures::StreamExt;
use k8s_openapi::api::autoscaling::v1::{Scale, ScaleSpec};
use kube::ResourceExt;
use kube::api::{
    Api, ApiResource, DeleteParams, DynamicObject, ListParams, PartialObjectMeta, Patch,
    PatchParams, PostParams,
};
use kube::config::{Config, KubeConfigOptions, Kubeconfig};
use kube::discovery::{ApiCapabilities, Discovery, Scope};
use kube::runtime::reflector::{self, Store, store::Writer};
use kube::runtime::{WatchStreamExt, watcher};
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

const WITHIN: Duration = Duration::from_secs(60);

/// A fixed local address in front of the server, which `Server::restart` brings back on a
/// new port (tests/common starts it on port 0, and `--secure-port` cannot be given twice):
/// a TCP relay, as a Service in front of a restarting pod. TLS passes through untouched.
/// Every retarget cuts the open connections; with no upstream, new ones are closed at once.
struct Relay {
    addr: SocketAddr,
    upstream: watch::Sender<Option<SocketAddr>>,
    accept: tokio::task::JoinHandle<()>,
}

impl Relay {
    async fn start(upstream: SocketAddr) -> Relay {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (upstream, targets) = watch::channel(Some(upstream));
        let accept = tokio::spawn(async move {
            while let Ok((mut client, _)) = listener.accept().await {
                let mut targets = targets.clone();
                let Some(target) = *targets.borrow_and_update() else {
                    continue; // dropped: the client sees its connection closed
                };
                tokio::spawn(async move {
                    let Ok(mut server) = TcpStream::connect(target).await else {
                        return;
                    };
                    tokio::select! {
                        _ = tokio::io::copy_bidirectional(&mut client, &mut server) => {}
                        _ = targets.changed() => {}
                    }
                });
            }
        });
        Relay {
            addr,
            upstream,
            accept,
        }
    }

    fn point_to(&self, upstream: Option<SocketAddr>) {
        self.upstream.send_replace(upstream);
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.accept.abort();
    }
}

/// A kube client from the server's dev kubeconfig, talking to `addr` (the server or a relay).
async fn kube_client(server: &Server, addr: SocketAddr) -> kube::Client {
    let path = server.kubeconfig();
    let kubeconfig = common::eventually(Duration::from_secs(10), "the dev kubeconfig", || {
        let read = Kubeconfig::read_from(&path).ok();
        async move { read.filter(|k| !k.clusters.is_empty() && !k.auth_infos.is_empty()) }
    })
    .await;
    let mut config = Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default())
        .await
        .unwrap();
    config.cluster_url = format!("https://{addr}").parse().unwrap();
    kube::Client::try_from(config).unwrap()
}

/// The example groups only: standalone, like the reference server, we serve no `/api`.
async fn discover(client: &kube::Client) -> Discovery {
    Discovery::new(client.clone())
        .exclude(&[""])
        .run()
        .await
        .unwrap()
}

/// CronTab's ApiResource, as discovery reports it.
async fn crontabs(client: &kube::Client) -> ApiResource {
    let group = discover(client).await;
    let (ar, _) = group
        .get("stable.example.com")
        .and_then(|g| g.recommended_kind("CronTab"))
        .unwrap();
    ar
}

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

const CT: &str = "/apis/stable.example.com/v1/namespaces/default/crontabs";

/// A CronTab named `name` with `spec.replicas` and the label `app=<app>`.
fn crontab(ar: &ApiResource, name: &str, replicas: i64, app: &str) -> DynamicObject {
    let mut object = DynamicObject::new(name, ar)
        .within("default")
        .data(json!({"spec": {"cronSpec": "*/5 * * * *", "replicas": replicas}}));
    object.metadata.labels = Some([("app".to_string(), app.to_string())].into());
    object
}

/// Writes by `controller`, as a controller names itself.
fn post_params() -> PostParams {
    PostParams {
        field_manager: Some("controller".into()),
        ..PostParams::default()
    }
}

fn patch_params() -> PatchParams {
    PatchParams {
        field_manager: Some("controller".into()),
        ..PatchParams::default()
    }
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

/// What a reflector holds: whole objects, or their PartialObjectMetadata.
trait Reflectable:
    kube::Resource<DynamicType = ApiResource>
    + Clone
    + serde::de::DeserializeOwned
    + serde::Serialize
    + std::fmt::Debug
    + Send
    + Sync
    + 'static
{
}

impl Reflectable for DynamicObject {}
impl Reflectable for PartialObjectMeta<DynamicObject> {}

/// A reflector's store, fed by a `kube::runtime` watcher with kube-rs's default backoff,
/// and the watcher's events as lines (for failure messages and the recovery checks).
struct Reflected<K: Reflectable> {
    store: Store<K>,
    log: Arc<Mutex<Vec<String>>>,
    task: tokio::task::JoinHandle<()>,
}

impl<K: Reflectable> Reflected<K> {
    fn start(api: &Api<K>, ar: &ApiResource, config: watcher::Config) -> Reflected<K> {
        let writer = Writer::new(ar.clone());
        let store = writer.as_reader();
        let log = Arc::new(Mutex::new(Vec::new()));
        let events = reflector::reflector(writer, watcher(api.clone(), config).default_backoff());
        let lines = log.clone();
        let task = tokio::spawn(async move {
            let mut events = std::pin::pin!(events);
            while let Some(event) = events.next().await {
                lines.lock().unwrap().push(logged(&event));
            }
        });
        Reflected { store, log, task }
    }

    fn log(&self) -> Vec<String> {
        self.log.lock().unwrap().clone()
    }

    /// Waits until the store holds exactly a fresh LIST's items; returns them by name, as JSON.
    async fn synced(&self, api: &Api<K>, after: &str) -> Vec<Value> {
        let deadline = tokio::time::Instant::now() + WITHIN;
        let json = |o: &K| serde_json::to_value(o).unwrap();
        loop {
            let listed = api.list(&ListParams::default()).await;
            let listed = listed.map(|l| l.items.iter().map(json).collect::<Vec<_>>());
            let mut stored: Vec<Value> = self.store.state().iter().map(|o| json(o)).collect();
            stored.sort_by(|a, b| {
                a["metadata"]["name"]
                    .to_string()
                    .cmp(&b["metadata"]["name"].to_string())
            });
            if listed.as_ref().is_ok_and(|l| *l == stored) {
                return stored;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "store not in sync {after}:\nstore {stored:#?}\nlist {listed:#?}\nwatcher {:#?}",
                self.log()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

impl<K: Reflectable> Drop for Reflected<K> {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn logged<K: Reflectable>(event: &Result<watcher::Event<K>, watcher::Error>) -> String {
    let named = |what: &str, o: &K| {
        let rv = o.resource_version().unwrap_or_default();
        format!("{what} {} {rv}", o.name_any())
    };
    match event {
        Ok(watcher::Event::Init) => "Init".into(),
        Ok(watcher::Event::InitApply(o)) => named("InitApply", o),
        Ok(watcher::Event::InitDone) => "InitDone".into(),
        Ok(watcher::Event::Apply(o)) => named("Apply", o),
        Ok(watcher::Event::Delete(o)) => named("Delete", o),
        Err(watcher::Error::WatchError(status)) => format!("WatchError {} {status}", status.code),
        Err(e) => format!("Err {e}"),
    }
}

/// `(name, spec.replicas)` of each object.
fn replicas(objects: &[Value]) -> Vec<(&str, i64)> {
    fn pair(o: &Value) -> (&str, i64) {
        let name = o["metadata"]["name"].as_str().unwrap();
        (name, o["spec"]["replicas"].as_i64().unwrap())
    }
    objects.iter().map(pair).collect()
}

/// Writes from another client straight to the server (the relay's client cannot reach it):
/// creates `created`, sets a's replicas to 10, deletes `deleted`.
async fn write_directly(server: &Server, created: (&str, i64), deleted: &str) {
    let c = server.client();
    let body = json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
                      "metadata": {"name": created.0}, "spec": {"replicas": created.1}});
    let posted = c.post(server.url(CT)).json(&body).send().await.unwrap();
    assert_eq!(posted.status(), 201);
    let patched = c
        .patch(server.url(&format!("{CT}/a")))
        .header("content-type", "application/merge-patch+json")
        .body(json!({"spec": {"replicas": 10}}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(patched.status(), 200);
    let gone = c.delete(server.url(&format!("{CT}/{deleted}"))).send();
    assert_eq!(gone.await.unwrap().status(), 200);
}

async fn create(api: &Api<DynamicObject>, ar: &ApiResource, name: &str, replicas: i64) {
    let object = crontab(ar, name, replicas, "sync");
    api.create(&post_params(), &object).await.unwrap();
}

async fn set_replicas(api: &Api<DynamicObject>, name: &str, replicas: i64) {
    let merge = Patch::Merge(json!({"spec": {"replicas": replicas}}));
    api.patch(name, &patch_params(), &merge).await.unwrap();
}

#[tokio::test]
async fn reflector_stays_in_sync_across_server_restart() {
    let server = Server::start();
    let relay = Relay::start(server.addr).await;
    let client = kube_client(&server, relay.addr).await;
    let ar = crontabs(&client).await;
    let api: Api<DynamicObject> = Api::namespaced_with(client, "default", &ar);
    for (name, replicas) in [("a", 1), ("b", 2), ("c", 3)] {
        create(&api, &ar, name, replicas).await;
    }
    let reflected = Reflected::start(&api, &ar, watcher::Config::default());
    let items = reflected.synced(&api, "after the initial list").await;
    assert_eq!(replicas(&items), [("a", 1), ("b", 2), ("c", 3)]);

    set_replicas(&api, "b", 20).await;
    api.delete("c", &DeleteParams::default()).await.unwrap();
    create(&api, &ar, "d", 4).await;
    let items = reflected.synced(&api, "after watched changes").await;
    assert_eq!(replicas(&items), [("a", 1), ("b", 20), ("d", 4)]);

    // The server restarts on a new port; the relay keeps the client's address. Others
    // write before the watcher can reach the server again. kube-rs resumes its watch from
    // its resourceVersion (our storage keeps history across restarts; kube's watch cache
    // would answer 410 and make it relist, as the compaction test shows): either way the
    // store must end equal to a fresh LIST.
    relay.point_to(None);
    let server = server.restart();
    write_directly(&server, ("e", 5), "b").await;
    relay.point_to(Some(server.addr));
    let items = reflected.synced(&api, "after the restart").await;
    assert_eq!(replicas(&items), [("a", 10), ("d", 4), ("e", 5)]);

    // The same client and watcher go on.
    create(&api, &ar, "f", 6).await;
    set_replicas(&api, "d", 40).await;
    let items = reflected
        .synced(&api, "after writes through the same client")
        .await;
    assert_eq!(replicas(&items), [("a", 10), ("d", 40), ("e", 5), ("f", 6)]);
}

#[tokio::test]
async fn reflector_relists_when_its_revision_is_compacted() {
    let server = Server::start_with(&["--etcd-compaction-interval", "1s"]);
    let relay = Relay::start(server.addr).await;
    let client = kube_client(&server, relay.addr).await;
    let ar = crontabs(&client).await;
    let api: Api<DynamicObject> = Api::namespaced_with(client, "default", &ar);
    for (name, replicas) in [("a", 1), ("b", 2)] {
        create(&api, &ar, name, replicas).await;
    }
    let reflected = Reflected::start(&api, &ar, watcher::Config::default());
    reflected.synced(&api, "after the initial list").await;
    let listed = api.list(&ListParams::default()).await.unwrap();
    let seen: u64 = listed.metadata.resource_version.unwrap().parse().unwrap();

    // Cut off, the watcher misses three writes, and compaction passes its revision.
    relay.point_to(None);
    write_directly(&server, ("g", 7), "b").await;
    let c = server.client();
    let exact = format!(
        "{CT}?resourceVersion={}&resourceVersionMatch=Exact",
        seen + 1
    );
    common::eventually(WITHIN, "compaction past the watcher's revision", || {
        let exact = c.get(server.url(&exact)).send();
        async move { (exact.await.ok()?.status() == 410).then_some(()) }
    })
    .await;
    relay.point_to(Some(server.addr));
    let items = reflected.synced(&api, "after compaction").await;
    assert_eq!(replicas(&items), [("a", 10), ("g", 7)]);

    // The resumed watch was refused with 410 Gone (an ERROR event), and kube-rs relisted.
    let log = reflected.log();
    let gone = log
        .iter()
        .position(|l| l.starts_with("WatchError 410 too old resource version: "));
    let relisted = log.iter().rposition(|l| l == "Init");
    assert!(
        gone.is_some() && relisted > gone,
        "no 410 then relist: {log:#?}"
    );
}

#[tokio::test]
async fn reflector_with_streaming_list_syncs_on_the_initial_events_end_bookmark() {
    let server = Server::start();
    let client = kube_client(&server, server.addr).await;
    let ar = crontabs(&client).await;
    let api: Api<DynamicObject> = Api::namespaced_with(client, "default", &ar);
    for (name, replicas) in [("a", 1), ("b", 2)] {
        create(&api, &ar, name, replicas).await;
    }
    let config = watcher::Config::default().streaming_lists();
    let reflected = Reflected::start(&api, &ar, config);
    let items = reflected.synced(&api, "after the initial events").await;
    assert_eq!(replicas(&items), [("a", 1), ("b", 2)]);
    let log = reflected.log();
    let initial: Vec<&str> = log
        .iter()
        .take(4)
        .map(|l| l.split(' ').next().unwrap())
        .collect();
    assert_eq!(
        initial,
        ["Init", "InitApply", "InitApply", "InitDone"],
        "{log:#?}"
    );

    set_replicas(&api, "a", 11).await;
    let items = reflected.synced(&api, "after a change").await;
    assert_eq!(replicas(&items), [("a", 11), ("b", 2)]);
}

#[tokio::test]
async fn reflector_of_partial_object_metadata_follows_metadata_watches() {
    let server = Server::start();
    let client = kube_client(&server, server.addr).await;
    let ar = crontabs(&client).await;
    let api: Api<DynamicObject> = Api::namespaced_with(client.clone(), "default", &ar);
    for (name, replicas) in [("a", 1), ("b", 2)] {
        create(&api, &ar, name, replicas).await;
    }
    // A metadata informer, as the host's garbage collector runs: PartialObjectMetadataList
    // lists and PartialObjectMetadata watch events.
    let meta: Api<PartialObjectMeta<DynamicObject>> = Api::namespaced_with(client, "default", &ar);
    let reflected = Reflected::start(&meta, &ar, watcher::Config::default());
    let items = reflected.synced(&meta, "after the initial list").await;
    let shape = |o: &Value| {
        let m = &o["metadata"];
        json!([
            o["apiVersion"],
            o["kind"],
            m["name"],
            m["generation"],
            m["labels"]
        ])
    };
    let described: Vec<Value> = items.iter().map(shape).collect();
    assert_eq!(
        described,
        [
            json!(["meta.k8s.io/v1", "PartialObjectMetadata", "a", 1, {"app": "sync"}]),
            json!(["meta.k8s.io/v1", "PartialObjectMetadata", "b", 1, {"app": "sync"}])
        ]
    );

    api.delete("a", &DeleteParams::default()).await.unwrap();
    set_replicas(&api, "b", 5).await;
    let items = reflected.synced(&meta, "after watched changes").await;
    let described: Vec<Value> = items.iter().map(shape).collect();
    assert_eq!(
        described,
        [json!(["meta.k8s.io/v1", "PartialObjectMetadata", "b", 2, {"app": "sync"}])]
    );
}
