//! NamespaceLifecycle against a stub core API serving namespaces (the fake kube-apiserver):
//! creates wait for the first namespace list, missing namespaces answer kube's 404,
//! terminating ones refuse creates but not updates or deletes, namespaces created or
//! changed later are followed through the watch, also after the watch is dropped.
//! Expected bodies are kube's (the reference server's for the 404).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;
#[path = "common/fake_kube.rs"]
mod fake_kube;

use std::time::{Duration, Instant};

use common::Server;
use fake_kube::FakeKube;
use serde_json::{Value, json};

fn crontabs(namespace: &str) -> String {
    format!("/apis/stable.example.com/v1/namespaces/{namespace}/crontabs")
}

fn crontab(name: &str) -> Value {
    json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
        "metadata": {"name": name},
        "spec": {"cronSpec": "* * * * */5", "image": "img", "replicas": 1}})
}

/// The server against `fake` as its cluster (`--kubeconfig`).
fn start(fake: &FakeKube) -> Server {
    let kubeconfig = fake.kubeconfig().display().to_string();
    Server::start_with(&["--kubeconfig", &kubeconfig])
}

async fn send(req: reqwest::RequestBuilder) -> (u16, Value) {
    let resp = req.send().await.unwrap();
    let code = resp.status().as_u16();
    (code, resp.json().await.unwrap_or(Value::Null))
}

async fn create(server: &Server, namespace: &str, name: &str) -> (u16, Value) {
    let url = server.url(&crontabs(namespace));
    send(server.client().post(url).json(&crontab(name))).await
}

async fn apply(server: &Server, namespace: &str, name: &str) -> (u16, Value) {
    let url = format!(
        "{}/{name}?fieldManager=test",
        server.url(&crontabs(namespace))
    );
    let req = server
        .client()
        .patch(url)
        .header("content-type", "application/apply-patch+yaml")
        .body(crontab(name).to_string());
    send(req).await
}

/// Creates `name` in `namespace` once the server has listed the namespaces.
async fn created(server: &Server, namespace: &str, name: &str) {
    let (code, body) = create(server, namespace, name).await;
    assert_eq!(code, 201, "{body}");
}

fn not_found(namespace: &str) -> Value {
    json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": format!("namespaces \"{namespace}\" not found"), "reason": "NotFound",
        "details": {"name": namespace, "kind": "namespaces"}, "code": 404})
}

fn terminating(namespace: &str, name: &str) -> Value {
    json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": format!("crontabs.stable.example.com \"{name}\" is forbidden: unable to create new content in namespace {namespace} because it is being terminated"),
        "reason": "Forbidden",
        "details": {"name": name, "group": "stable.example.com", "kind": "crontabs",
            "causes": [{"reason": "NamespaceTerminating",
                "message": format!("namespace {namespace} is being terminated"),
                "field": "metadata.namespace"}]},
        "code": 403})
}

#[tokio::test]
async fn create_before_first_namespace_list_waits_then_is_refused_not_yet_ready() {
    let fake = FakeKube::start();
    fake.hold_namespace_list();
    let server = start(&fake);
    // Reads are not admission's business.
    let (code, list) = send(server.client().get(server.url(&crontabs("default")))).await;
    assert_eq!(code, 200, "{list}");

    let started = Instant::now();
    let (code, body) = create(&server, "default", "early").await;
    assert_eq!(
        (code, body),
        (
            403,
            json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": "crontabs.stable.example.com \"early\" is forbidden: not yet ready to handle request",
            "reason": "Forbidden",
            "details": {"name": "early", "group": "stable.example.com", "kind": "crontabs"},
            "code": 403})
        )
    );
    assert!(
        started.elapsed() >= Duration::from_secs(9),
        "kube waits 10s for the first list before refusing, not {:?}",
        started.elapsed()
    );
    assert_eq!(fake.namespace_lists(), 0, "the list was held");

    fake.release_namespace_list();
    created(&server, "default", "after-list").await;
}

#[tokio::test]
async fn write_in_missing_namespace_is_kubes_404_after_a_live_lookup() {
    let fake = FakeKube::start();
    let server = start(&fake);
    created(&server, "default", "synced").await;

    let (code, body) = create(&server, "nope", "x").await;
    assert_eq!((code, body), (404, not_found("nope")));
    assert_eq!(fake.namespace_lookups(), ["nope"], "kube's live lookup");
    // Server-side apply of a missing object is a create.
    assert_eq!(apply(&server, "nope", "x").await, (404, not_found("nope")));

    // What kube answers before admission still comes first (reference answers).
    let url = server.url(&crontabs("nope"));
    let bad = server.client().post(&url).body("{\"apiVersion\":");
    let (code, body) = send(bad.header("content-type", "application/json")).await;
    assert_eq!((code, body["reason"].clone()), (400, json!("BadRequest")));
    let update = server.client().put(format!("{url}/x")).json(&crontab("x"));
    let (code, body) = send(update).await;
    assert_eq!(
        body["message"], "crontabs.stable.example.com \"x\" not found",
        "the object's 404 comes before admission: {code}"
    );

    // Reads answer as for any empty namespace.
    let (code, list) = send(server.client().get(&url)).await;
    assert_eq!((code, list["items"].clone()), (200, json!([])));
    let (code, body) = send(server.client().get(format!("{url}/x"))).await;
    assert_eq!(
        (code, body["message"].clone()),
        (404, json!("crontabs.stable.example.com \"x\" not found"))
    );
}

#[tokio::test]
async fn namespace_created_later_becomes_usable_through_the_watch() {
    let fake = FakeKube::start();
    let server = start(&fake);
    created(&server, "default", "synced").await;
    assert_eq!(create(&server, "later", "x").await.0, 404);

    fake.add_namespace("later");
    let (server, fake) = (&server, &fake);
    let mut attempt = 0;
    common::eventually(
        Duration::from_secs(10),
        "a create without a live lookup",
        || {
            attempt += 1;
            async move {
                let lookups = fake.namespace_lookups().len();
                let (code, body) = create(server, "later", &format!("x{attempt}")).await;
                assert_eq!(code, 201, "{body}");
                (fake.namespace_lookups().len() == lookups).then_some(())
            }
        },
    )
    .await;
}

#[tokio::test]
async fn terminating_namespace_refuses_creates_allows_updates_and_deletes() {
    let fake = FakeKube::start();
    fake.add_namespace("doomed");
    let server = start(&fake);
    created(&server, "doomed", "kept").await;
    created(&server, "doomed", "gone").await;

    fake.terminate_namespace("doomed");
    let server = &server;
    let body = common::eventually(Duration::from_secs(10), "creates refused", || async move {
        // An early attempt may still be admitted (then 409s): the watch decides.
        let (code, body) = create(server, "doomed", "new").await;
        (code == 403).then_some(body)
    })
    .await;
    assert_eq!(body, terminating("doomed", "new"));
    // "new" itself may exist (an early create admitted): an apply creating one is refused.
    assert_eq!(
        apply(server, "doomed", "fresh").await,
        (403, terminating("doomed", "fresh"))
    );

    // Same values as the create's: no conflict with its manager.
    assert_eq!(apply(server, "doomed", "kept").await.0, 200);
    let url = server.url(&crontabs("doomed"));
    let patch = server
        .client()
        .patch(format!("{url}/kept"))
        .header("content-type", "application/merge-patch+json")
        .body(r#"{"spec":{"replicas":2}}"#);
    let (code, body) = send(patch).await;
    assert_eq!(code, 200, "updates are allowed: {body}");
    let (code, body) = send(server.client().delete(format!("{url}/gone"))).await;
    assert_eq!(code, 200, "deletes are allowed: {body}");
    let (code, body) = send(server.client().delete(&url)).await;
    assert_eq!(code, 200, "deletecollection is allowed: {body}");
}

#[tokio::test]
async fn namespace_watch_reestablished_after_the_cluster_drops_it() {
    let fake = FakeKube::start();
    fake.add_namespace("busy");
    fake.add_namespace("short-lived");
    let server = start(&fake);
    created(&server, "busy", "before").await;
    let fake = &fake;
    let watches = common::eventually(Duration::from_secs(10), "a watch", || async move {
        Some(fake.namespace_watches()).filter(|w| *w >= 1)
    })
    .await;

    fake.drop_namespace_watches();
    common::eventually(Duration::from_secs(10), "a new watch", || async move {
        (fake.namespace_watches() > watches).then_some(())
    })
    .await;
    // Only the watch can tell: a namespace the cache has is never looked up live.
    fake.terminate_namespace("busy");
    fake.delete_namespace("short-lived");
    let server = &server;
    let body = common::eventually(Duration::from_secs(10), "the change seen", || async move {
        let (code, body) = create(server, "busy", "after").await;
        (code == 403).then_some(body)
    })
    .await;
    assert_eq!(body, terminating("busy", "after"));
    assert_eq!(
        create(server, "short-lived", "x").await,
        (404, not_found("short-lived"))
    );
}
