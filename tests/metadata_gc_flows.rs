//! The host's garbage collector and namespace controller, played by the test with metadata
//! requests only (issue 12, point 2): an informer-style metadata list then watch, a
//! foreground deletion (dependents deleted, then the `foregroundDeletion` finalizer removed
//! and the owner gone), an orphan deletion (owner references removed from dependents, then
//! the `orphan` finalizer), and a namespace deletion (deletecollection, then metadata lists
//! until the namespace is empty). Every answer's body is checked.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;

use std::time::Duration;

use common::Server;
use futures::StreamExt;
use serde_json::{Value, json};

const GROUP: &str = "stable.example.com";
const CT: &str = "/apis/stable.example.com/v1/namespaces/default/crontabs";
/// What client-go's metadata client sends for a get, patch and watch, and for a list
/// (without its first, protobuf, choice).
const M: &str = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json";
const ML: &str =
    "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";
const WITHIN: Duration = Duration::from_secs(10);

fn ns_path(namespace: &str) -> String {
    format!("/apis/stable.example.com/v1/namespaces/{namespace}/crontabs")
}

async fn call(
    server: &Server,
    method: &str,
    path: &str,
    accept: &str,
    body: Option<(&str, Value)>,
) -> (u16, Value) {
    let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
    let mut req = server
        .client()
        .request(method, server.url(path))
        .header("accept", accept);
    if let Some((content_type, body)) = body {
        req = req
            .header("content-type", content_type)
            .body(body.to_string());
    }
    let resp = req.send().await.unwrap();
    (resp.status().as_u16(), resp.json().await.unwrap())
}

async fn create(server: &Server, namespace: &str, name: &str, metadata: Value) -> Value {
    let mut meta = json!({"name": name});
    meta.as_object_mut()
        .unwrap()
        .extend(metadata.as_object().unwrap().clone());
    let body = json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab", "metadata": meta,
                      "spec": {"cronSpec": "* * * * */5", "replicas": 1}});
    let (code, created) = call(
        server,
        "POST",
        &ns_path(namespace),
        M,
        Some(("application/json", body)),
    )
    .await;
    assert_eq!(code, 201, "{created}");
    assert_partial(&created, name);
    created
}

/// A `meta.k8s.io/v1` PartialObjectMetadata of `name`: metadata only, with managedFields.
fn assert_partial(object: &Value, name: &str) {
    assert_eq!(object["kind"], "PartialObjectMetadata", "{object}");
    assert_eq!(object["apiVersion"], "meta.k8s.io/v1", "{object}");
    assert_eq!(object["metadata"]["name"], name, "{object}");
    let keys: Vec<&String> = object.as_object().unwrap().keys().collect();
    assert_eq!(keys.len(), 3, "kind, apiVersion, metadata only: {object}");
    assert!(object["metadata"]["managedFields"].is_array(), "{object}");
}

/// A metadata list's item names (asserting each item is a PartialObjectMetadata).
fn names(list: &Value) -> Vec<String> {
    assert_eq!(list["kind"], "PartialObjectMetadataList", "{list}");
    let items = list["items"].as_array().cloned().unwrap_or_default();
    items
        .iter()
        .map(|i| {
            let name = i["metadata"]["name"].as_str().unwrap().to_string();
            assert_partial(i, &name);
            name
        })
        .collect()
}

async fn list(server: &Server, path: &str) -> Value {
    let (code, list) = call(server, "GET", path, ML, None).await;
    assert_eq!(code, 200, "{list}");
    list
}

/// A metadata watch, read event by event.
struct Watch {
    stream: futures::stream::BoxStream<'static, reqwest::Result<bytes::Bytes>>,
    buffer: Vec<u8>,
}

impl Watch {
    async fn start(server: &Server, path: &str, rv: &str) -> Watch {
        let url = server.url(&format!("{path}?watch=1&resourceVersion={rv}"));
        let resp = server
            .client()
            .get(url)
            .header("accept", M)
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 200);
        let stream = resp.bytes_stream().boxed();
        Watch {
            stream,
            buffer: Vec::new(),
        }
    }

    /// The next event; the test fails if none comes within [`WITHIN`].
    async fn next(&mut self) -> (String, Value) {
        loop {
            if let Some(end) = self.buffer.iter().position(|b| *b == b'\n') {
                let line: Vec<u8> = self.buffer.drain(..=end).collect();
                let event: Value = serde_json::from_slice(&line).unwrap();
                let name = event["object"]["metadata"]["name"].as_str().unwrap();
                assert_partial(&event["object"], name);
                return (
                    event["type"].as_str().unwrap().to_string(),
                    event["object"].clone(),
                );
            }
            let chunk = tokio::time::timeout(WITHIN, self.stream.next()).await;
            let chunk = chunk.expect("a watch event in time").unwrap().unwrap();
            self.buffer.extend_from_slice(&chunk);
        }
    }

    /// Events until `type` for `name` arrives; returns its object.
    async fn until(&mut self, event_type: &str, name: &str) -> Value {
        loop {
            let (t, object) = self.next().await;
            if t == event_type && object["metadata"]["name"] == name {
                return object;
            }
        }
    }
}

fn owner_ref(kind: &str, owner: &Value) -> Value {
    json!({"apiVersion": "stable.example.com/v1", "kind": kind,
           "name": owner["metadata"]["name"], "uid": owner["metadata"]["uid"],
           "blockOwnerDeletion": true, "controller": true})
}

/// Items whose owner references name `uid` (the GC's dependents graph).
fn dependents_of(list: &Value, uid: &Value) -> Vec<Value> {
    let items = list["items"].as_array().cloned().unwrap_or_default();
    items
        .into_iter()
        .filter(|i| {
            let refs = i["metadata"]["ownerReferences"].as_array();
            refs.is_some_and(|r| r.iter().any(|o| o["uid"] == *uid))
        })
        .collect()
}

/// The GC's delete of a dependent: background, with the uid as precondition.
async fn delete_dependent(server: &Server, dependent: &Value) {
    let name = dependent["metadata"]["name"].as_str().unwrap();
    let options = json!({"kind": "DeleteOptions", "apiVersion": "v1",
        "propagationPolicy": "Background", "preconditions": {"uid": dependent["metadata"]["uid"]}});
    let path = format!("{CT}/{name}");
    let (code, status) = call(
        server,
        "DELETE",
        &path,
        "application/json",
        Some(("application/json", options)),
    )
    .await;
    assert_eq!(code, 200, "{status}");
    assert_eq!(status["status"], "Success", "{status}");
    assert_eq!(status["details"]["name"], name, "{status}");
    assert_eq!(status["details"]["uid"], dependent["metadata"]["uid"]);
    assert_eq!(status["details"]["group"], GROUP);
}

/// The GC's `removeFinalizer`: a merge patch of the finalizers left, at the read version.
async fn remove_finalizer(server: &Server, path: &str, finalizer: &str) -> Value {
    let (code, current) = call(server, "GET", path, M, None).await;
    assert_eq!(code, 200, "{current}");
    let left: Vec<Value> = current["metadata"]["finalizers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| *f != finalizer)
        .cloned()
        .collect();
    let left = if left.is_empty() {
        Value::Null
    } else {
        json!(left)
    };
    let patch = json!({"metadata": {"resourceVersion": current["metadata"]["resourceVersion"],
                                    "finalizers": left}});
    let (code, patched) = call(
        server,
        "PATCH",
        path,
        M,
        Some(("application/merge-patch+json", patch)),
    )
    .await;
    assert_eq!(code, 200, "{patched}");
    assert_partial(&patched, current["metadata"]["name"].as_str().unwrap());
    assert_eq!(patched["metadata"].get("finalizers"), None, "{patched}");
    patched
}

#[tokio::test]
async fn foreground_deletion_metadata_gc_deletes_dependents_then_owner() {
    let server = Server::start();
    let owner = create(&server, "default", "fg-owner", json!({})).await;
    let refs = json!({"ownerReferences": [owner_ref("CronTab", &owner)]});
    create(&server, "default", "fg-dep1", refs.clone()).await;
    create(&server, "default", "fg-dep2", refs).await;
    create(&server, "default", "fg-other", json!({})).await;
    // The GC's informer: a metadata list, then a metadata watch from its revision.
    let listed = list(&server, CT).await;
    assert_eq!(
        names(&listed),
        ["fg-dep1", "fg-dep2", "fg-other", "fg-owner"]
    );
    let mut watch = Watch::start(
        &server,
        CT,
        listed["metadata"]["resourceVersion"].as_str().unwrap(),
    )
    .await;

    let path = format!("{CT}/fg-owner?propagationPolicy=Foreground");
    let (code, deleting) = call(&server, "DELETE", &path, M, None).await;
    assert_eq!(code, 200, "{deleting}");
    assert_partial(&deleting, "fg-owner");
    assert_eq!(
        deleting["metadata"]["finalizers"],
        json!(["foregroundDeletion"])
    );
    assert!(
        deleting["metadata"]["deletionTimestamp"].is_string(),
        "{deleting}"
    );

    // The GC sees the owner marked, deletes its dependents, and waits for them to go.
    let marked = watch.until("MODIFIED", "fg-owner").await;
    assert_eq!(
        marked["metadata"]["finalizers"],
        json!(["foregroundDeletion"])
    );
    let dependents = dependents_of(&list(&server, CT).await, &owner["metadata"]["uid"]);
    assert_eq!(dependents.len(), 2, "{dependents:?}");
    for dependent in &dependents {
        delete_dependent(&server, dependent).await;
    }
    for name in ["fg-dep1", "fg-dep2"] {
        let gone = watch.until("DELETED", name).await;
        assert!(gone["metadata"]["ownerReferences"].is_array(), "{gone}");
    }
    let left = list(&server, CT).await;
    assert!(
        dependents_of(&left, &owner["metadata"]["uid"]).is_empty(),
        "{left}"
    );

    remove_finalizer(&server, &format!("{CT}/fg-owner"), "foregroundDeletion").await;
    watch.until("DELETED", "fg-owner").await;
    let (code, status) = call(&server, "GET", &format!("{CT}/fg-owner"), M, None).await;
    assert_eq!(
        (code, status["reason"].as_str()),
        (404, Some("NotFound")),
        "{status}"
    );
    assert_eq!(names(&list(&server, CT).await), ["fg-other"]);
}

#[tokio::test]
async fn orphan_deletion_metadata_gc_strips_owner_references_then_finalizer() {
    let server = Server::start();
    let owner = create(&server, "default", "or-owner", json!({})).await;
    let keeper = create(&server, "default", "or-keeper", json!({})).await;
    let mut kept = owner_ref("CronTab", &keeper);
    kept["controller"] = json!(false);
    let refs = json!({"ownerReferences": [owner_ref("CronTab", &owner), kept.clone()]});
    create(&server, "default", "or-dep", refs).await;

    let options =
        json!({"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": "Orphan"});
    let path = format!("{CT}/or-owner");
    let body = Some(("application/json", options));
    let (code, deleting) = call(&server, "DELETE", &path, M, body).await;
    assert_eq!(code, 200, "{deleting}");
    assert_partial(&deleting, "or-owner");
    assert_eq!(deleting["metadata"]["finalizers"], json!(["orphan"]));

    // The GC's deleteOwnerRefJSONMergePatch: the references left, at the read version.
    let dependents = dependents_of(&list(&server, CT).await, &owner["metadata"]["uid"]);
    assert_eq!(dependents.len(), 1, "{dependents:?}");
    let dep_path = format!("{CT}/or-dep");
    let (_, current) = call(&server, "GET", &dep_path, M, None).await;
    let patch = json!({"metadata": {"resourceVersion": current["metadata"]["resourceVersion"],
                                    "ownerReferences": [kept.clone()]}});
    let body = Some(("application/merge-patch+json", patch));
    let (code, patched) = call(&server, "PATCH", &dep_path, M, body).await;
    assert_eq!(code, 200, "{patched}");
    assert_partial(&patched, "or-dep");
    assert_eq!(patched["metadata"]["ownerReferences"], json!([kept]));

    remove_finalizer(&server, &path, "orphan").await;
    let (code, _) = call(&server, "GET", &path, M, None).await;
    assert_eq!(code, 404);
    let (code, orphan) = call(&server, "GET", &dep_path, M, None).await;
    assert_eq!(code, 200, "{orphan}");
    assert_eq!(orphan["metadata"]["ownerReferences"], json!([kept]));
}

#[tokio::test]
async fn namespace_deletion_deletecollection_then_metadata_lists_until_empty() {
    let server = Server::start();
    create(&server, "doomed", "nd-1", json!({})).await;
    create(
        &server,
        "doomed",
        "nd-2",
        json!({"finalizers": ["example.com/hold"]}),
    )
    .await;
    create(&server, "kept", "nd-3", json!({})).await;
    // The quota controller's count: a metadata list of every namespace.
    let all = list(&server, "/apis/stable.example.com/v1/crontabs").await;
    assert_eq!(names(&all), ["nd-1", "nd-2", "nd-3"]);
    let doomed = ns_path("doomed");
    let before = list(&server, &doomed).await;
    let mut watch = Watch::start(
        &server,
        &doomed,
        before["metadata"]["resourceVersion"].as_str().unwrap(),
    )
    .await;

    // The namespace controller's deleteCollection (metadata client: JSON DeleteOptions).
    let options =
        json!({"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": "Background"});
    let body = Some(("application/json", options));
    let (code, deleted) = call(&server, "DELETE", &doomed, "application/json", body).await;
    assert_eq!(code, 200, "{deleted}");
    assert_eq!(deleted["kind"], "CronTabList", "{deleted}");
    assert_eq!(deleted["metadata"]["continue"], "", "{deleted}");
    assert_eq!(common::item_names(&deleted), ["nd-1", "nd-2"]);

    watch.until("DELETED", "nd-1").await;
    let held = watch.until("MODIFIED", "nd-2").await;
    assert!(held["metadata"]["deletionTimestamp"].is_string(), "{held}");
    // Until empty: what is left is waiting on its finalizer, whose owner removes it.
    let left = list(&server, &doomed).await;
    assert_eq!(names(&left), ["nd-2"]);
    assert_eq!(
        left["items"][0]["metadata"]["finalizers"],
        json!(["example.com/hold"])
    );
    remove_finalizer(&server, &format!("{doomed}/nd-2"), "example.com/hold").await;
    watch.until("DELETED", "nd-2").await;
    let empty = list(&server, &doomed).await;
    assert_eq!(
        empty["items"],
        Value::Null,
        "a typed list's nil items: {empty}"
    );
    assert_eq!(names(&list(&server, &ns_path("kept")).await), ["nd-3"]);
}
