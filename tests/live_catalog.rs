//! The live catalog, in process (the real server over real TLS on 127.0.0.1:0, driven
//! through `server::run::run_with`'s handle): a definition served at runtime is in
//! discovery, OpenAPI v2/v3 and `kubectl explain`, its objects are written, read and
//! watched through the watch cache, a changed schema validates with the new rules, a
//! stopped one is not routed (its watches end). The restore path keeps every metadata
//! field, refuses a uid clash, writes nothing for an unchanged object and goes through
//! encryption at rest.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
#[path = "common/etcd.rs"]
mod etcd;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::Parser;
use crd_apiserver::config::{Cli, Command};
use crd_apiserver::crd::live::Definitions;
use crd_apiserver::handlers::AppState;
use crd_apiserver::handlers::restore::{Restored, list_here, restore, restore_delete};
use futures::StreamExt;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use serde_json::{Value, json};

const WIDGETS: &str = "/apis/host.example.com/v1/namespaces/default/widgets";
const NAME: &str = "widgets.host.example.com";
const KEY_PREFIX: &str = "/registry/host.example.com/widgets/default/";
const WITHIN: Duration = Duration::from_secs(20);

/// A server running in this process.
struct Live {
    addr: std::net::SocketAddr,
    pki: PathBuf,
    definitions: Arc<Definitions>,
    state: Arc<AppState>,
    _dir: tempfile::TempDir,
}

impl Live {
    /// Dev mode (the example CRDs) with `extra` flags.
    async fn start(extra: &[String]) -> Live {
        let dir = tempfile::tempdir().unwrap();
        let pki = dir.path().join("pki");
        let mut args: Vec<String> = ["crd-apiserver", "dev", "--secure-port", "0"]
            .map(String::from)
            .into();
        args.push(format!("--dev-pki-dir={}", pki.display()));
        args.push(format!("--data-dir={}", dir.path().join("data").display()));
        args.extend(extra.iter().cloned());
        let Some(Command::Dev(flags)) = Cli::try_parse_from(args).unwrap().command else {
            panic!("dev flags")
        };
        let (flags, dev) = crd_apiserver::server::dev::prepare(*flags).unwrap();
        let (tx, rx) = tokio::sync::oneshot::channel();
        tokio::spawn(async move {
            let ran = crd_apiserver::server::run::run_with(flags, move |listening| {
                dev.write_kubeconfig(listening.addr).unwrap();
                let _ = tx.send(listening);
            })
            .await;
            if let Err(e) = ran {
                eprintln!("server: {e}");
            }
        });
        let listening = rx.await.expect("the server starts");
        Live {
            addr: listening.addr,
            pki,
            definitions: listening.definitions,
            state: listening.state,
            _dir: dir,
        }
    }

    fn url(&self, path: &str) -> String {
        format!("https://{}{path}", self.addr)
    }

    fn client(&self) -> reqwest::Client {
        common::client_with(&self.pki, Some(("admin.crt", "admin.key")))
    }

    async fn get(&self, path: &str) -> (u16, Value) {
        send(self.client().get(self.url(path))).await
    }

    async fn kubectl(&self, args: &[&str]) -> std::process::Output {
        let kubeconfig = self.pki.join("kubeconfig");
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        tokio::task::spawn_blocking(move || {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            common::kubectl_at(&kubeconfig, &args)
        })
        .await
        .unwrap()
    }

    async fn metrics(&self) -> String {
        self.client()
            .get(self.url("/metrics"))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap()
    }

    /// The served resource of the widgets definition now.
    fn widgets(&self) -> Arc<crd_apiserver::crd::catalog::ServedResource> {
        let catalog = self.definitions.current();
        let found = catalog.resources().iter().find(|r| r.crd_name == NAME);
        found.expect("widgets served").clone()
    }
}

async fn send(req: reqwest::RequestBuilder) -> (u16, Value) {
    let resp = req.send().await.unwrap();
    let code = resp.status().as_u16();
    let text = resp.text().await.unwrap();
    (
        code,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

/// The host's `widgets.host.example.com`, `spec.color` a string of at most `max` bytes.
fn widgets_crd(max: u32) -> CustomResourceDefinition {
    serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": NAME, "uid": "crd-uid-1", "resourceVersion": "9"},
        "spec": {
            "group": "host.example.com",
            "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "subresources": {"status": {}},
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                    "spec": {"type": "object", "properties": {
                        "color": {"type": "string", "maxLength": max,
                            "description": "The widget's paint colour."}}},
                    "status": {"type": "object", "properties": {"phase": {"type": "string"}}}}}}}],
        },
    }))
    .unwrap()
}

fn widget(name: &str, color: &str) -> Value {
    json!({"apiVersion": "host.example.com/v1", "kind": "Widget",
        "metadata": {"name": name}, "spec": {"color": color}})
}

/// Whether `/apis/host.example.com/v1` lists widgets, and `/apis` the group.
async fn discovered(live: &Live) -> bool {
    let (_, groups) = live.get("/apis").await;
    let in_groups = groups["groups"]
        .as_array()
        .unwrap()
        .iter()
        .any(|g| g["name"] == "host.example.com");
    let (code, resources) = live.get("/apis/host.example.com/v1").await;
    let in_resources = code == 200
        && resources["resources"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["name"] == "widgets" && r["kind"] == "Widget");
    assert_eq!(in_groups, in_resources, "{groups} / {resources}");
    in_groups
}

fn stored_objects_line(metrics: &str) -> Option<String> {
    metrics
        .lines()
        .find(|l| l.starts_with("crd_apiserver_stored_objects{") && l.contains(NAME))
        .map(str::to_string)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn live_catalog_definition_served_at_runtime_discovered_cached_revalidated_stopped() {
    let live = Live::start(&[]).await;
    let client = live.client();
    assert_eq!(live.get(WIDGETS).await.0, 404);
    assert!(!discovered(&live).await);

    live.definitions.serve(&[widgets_crd(10)]).unwrap();

    // Discovery, OpenAPI v2 and v3, kubectl explain.
    assert!(discovered(&live).await);
    let (_, v2) = live.get("/openapi/v2").await;
    let definition = &v2["definitions"]["com.example.host.v1.Widget"];
    assert_eq!(
        definition["properties"]["spec"]["properties"]["color"]["maxLength"],
        json!(10),
        "{definition}"
    );
    let (_, v3) = live.get("/openapi/v3").await;
    assert!(
        v3["paths"].get("apis/host.example.com/v1").is_some(),
        "{v3}"
    );
    let (code, v3gv) = live.get("/openapi/v3/apis/host.example.com/v1").await;
    assert_eq!(code, 200);
    assert!(
        v3gv["components"]["schemas"]
            .get("com.example.host.v1.Widget")
            .is_some()
    );
    let explained = live
        .kubectl(&[
            "explain",
            "widgets.spec",
            "--api-version=host.example.com/v1",
        ])
        .await;
    let text = String::from_utf8_lossy(&explained.stdout);
    assert!(
        explained.status.success() && text.contains("The widget's paint colour."),
        "{text}{}",
        String::from_utf8_lossy(&explained.stderr)
    );

    // A watch opened before the create sees it; the cache counts it.
    let watch = client
        .get(live.url(&format!("{WIDGETS}?watch=1")))
        .send()
        .await
        .unwrap();
    assert_eq!(watch.status().as_u16(), 200);
    let mut events = watch.bytes_stream();
    let (code, created) = send(client.post(live.url(WIDGETS)).json(&widget("a", "purple"))).await;
    assert_eq!(code, 201, "{created}");
    let first = tokio::time::timeout(WITHIN, events.next()).await.unwrap();
    let event: Value = serde_json::from_slice(&first.unwrap().unwrap()).unwrap();
    assert_eq!(
        (&event["type"], &event["object"]["metadata"]["name"]),
        (&json!("ADDED"), &json!("a"))
    );
    let (code, got) = live.get(&format!("{WIDGETS}/a")).await;
    assert_eq!((code, &got["spec"]["color"]), (200, &json!("purple")));
    common::eventually(WITHIN, "the cache's count of widgets", || async {
        let line = stored_objects_line(&live.metrics().await)?;
        line.ends_with(" 1").then_some(())
    })
    .await;
    let (code, stored) = live.get(&format!("/storedversions/{NAME}")).await;
    assert_eq!(
        (code, &stored["objects"], &stored["storageVersion"]),
        (200, &json!({"v1": 1}), &json!("v1")),
        "{stored}"
    );

    // A changed definition: the new schema's rules apply to the next write.
    live.definitions.serve(&[widgets_crd(3)]).unwrap();
    let (code, refused) = send(client.post(live.url(WIDGETS)).json(&widget("b", "purple"))).await;
    assert_eq!(code, 422, "{refused}");
    assert_eq!(
        refused["details"]["causes"][0]["field"], "spec.color",
        "{refused}"
    );
    let (code, _) = send(client.post(live.url(WIDGETS)).json(&widget("c", "red"))).await;
    assert_eq!(code, 201);
    let (_, v2) = live.get("/openapi/v2").await;
    assert_eq!(
        v2["definitions"]["com.example.host.v1.Widget"]["properties"]["spec"]["properties"]["color"]
            ["maxLength"],
        json!(3)
    );

    // Stopped: not routed, not discovered, its watch ends, its cache series go.
    live.definitions.stop_serving(&[NAME.to_string()]).unwrap();
    assert_eq!(live.get(WIDGETS).await.0, 404);
    assert_eq!(live.get(&format!("{WIDGETS}/a")).await.0, 404);
    assert!(!discovered(&live).await);
    let (_, v2) = live.get("/openapi/v2").await;
    assert!(
        v2["definitions"]
            .get("com.example.host.v1.Widget")
            .is_none()
    );
    let ended = tokio::time::timeout(WITHIN, async {
        while let Some(chunk) = events.next().await {
            if chunk.is_err() {
                break;
            }
        }
    })
    .await;
    assert!(ended.is_ok(), "the widgets watch did not end");
    assert_eq!(stored_objects_line(&live.metrics().await), None);
    // The examples are still served.
    let (code, _) = live
        .get("/apis/stable.example.com/v1/namespaces/default/crontabs")
        .await;
    assert_eq!(code, 200);
}

/// A host object with every metadata field offload must keep.
fn host_widget(uid: &str, labels: Value) -> Value {
    json!({
        "apiVersion": "host.example.com/v1",
        "kind": "Widget",
        "metadata": {
            "name": "w",
            "namespace": "default",
            "uid": uid,
            "resourceVersion": "123456",
            "creationTimestamp": "2024-02-03T04:05:06Z",
            "generation": 7,
            "labels": labels,
            "annotations": {"note": "sensitive-marker-4711"},
            "finalizers": ["example.com/keep"],
            "ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "owner",
                "uid": "0b7c3c2e-0000-4000-8000-000000000001", "controller": true,
                "blockOwnerDeletion": true}],
            "managedFields": [{"manager": "kubectl", "operation": "Apply",
                "apiVersion": "host.example.com/v1", "time": "2024-02-03T04:05:06Z",
                "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:color": {}}}}],
            "deletionTimestamp": "2024-02-04T00:00:00Z",
            "deletionGracePeriodSeconds": 0,
        },
        "spec": {"color": "a-colour-longer-than-ten-bytes"},
        "status": {"phase": "Ready"},
    })
}

async fn revision(state: &AppState) -> i64 {
    state.store.current_revision().await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn restore_host_object_metadata_kept_clash_refused_unchanged_no_write_encrypted() {
    let etcd = etcd::Etcd::start();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("encryption.yaml");
    let secret = "c2VjcmV0LWlzLXNlY3VyZS1zZWNyZXQtaXMtc2VjdXI=";
    std::fs::write(
        &config,
        format!(
            "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n- resources: [{NAME}]\n  providers:\n  - secretbox: {{keys: [{{name: s1, secret: {secret}}}]}}\n"
        ),
    )
    .unwrap();
    let mut flags = etcd.flags();
    flags.push(format!("--encryption-provider-config={}", config.display()));
    flags.push("--max-object-size=4096".into());
    let live = Live::start(&flags).await;
    live.definitions.serve(&[widgets_crd(10)]).unwrap();
    let widgets = live.widgets();
    let state = &live.state;

    // Created: every metadata field as the host had it (no defaulting, no validation:
    // the colour breaks today's maxLength), our resourceVersion.
    let host = host_widget("uid-1", json!({"tier": "gold"}));
    assert_eq!(
        restore(state, &widgets, host.clone()).await.unwrap(),
        Restored::Created
    );
    let (code, got) = live.get(&format!("{WIDGETS}/w")).await;
    assert_eq!(code, 200, "{got}");
    for field in [
        "name",
        "namespace",
        "uid",
        "creationTimestamp",
        "generation",
        "labels",
        "annotations",
        "finalizers",
        "ownerReferences",
        "managedFields",
        "deletionTimestamp",
    ] {
        assert_eq!(
            serde_json::to_string(&got["metadata"][field]).unwrap(),
            serde_json::to_string(&host["metadata"][field]).unwrap(),
            "metadata.{field}"
        );
    }
    assert_eq!(
        (&got["spec"], &got["status"]),
        (&host["spec"], &host["status"])
    );
    assert_ne!(got["metadata"]["resourceVersion"], json!("123456"));

    // At rest: ciphertext.
    let raw = etcd
        .store()
        .await
        .get(&format!("{KEY_PREFIX}w"))
        .await
        .unwrap()
        .unwrap();
    assert!(
        raw.value.starts_with(b"k8s:enc:secretbox:v1:s1:"),
        "{:?}",
        &raw.value[..20]
    );
    assert!(!raw.value.windows(21).any(|w| w == b"sensitive-marker-4711"));

    // Unchanged: nothing written.
    let before = revision(state).await;
    assert_eq!(
        restore(state, &widgets, host.clone()).await.unwrap(),
        Restored::Unchanged
    );
    assert_eq!(revision(state).await, before);

    // Updated: the host's newer labels replace ours.
    let newer = host_widget("uid-1", json!({"tier": "silver"}));
    assert_eq!(
        restore(state, &widgets, newer).await.unwrap(),
        Restored::Updated
    );
    let (_, got) = live.get(&format!("{WIDGETS}/w")).await;
    assert_eq!(got["metadata"]["labels"], json!({"tier": "silver"}));

    // Another uid under the same name: refused, nothing written.
    let before = revision(state).await;
    let clash = restore(state, &widgets, host_widget("uid-2", json!({}))).await;
    let err = clash.unwrap_err();
    assert_eq!(err.code(), 409, "{err}");
    assert!(err.to_string().contains("uid-2"), "{err}");
    assert_eq!(revision(state).await, before);
    let (_, got) = live.get(&format!("{WIDGETS}/w")).await;
    assert_eq!(got["metadata"]["uid"], "uid-1");

    // Over --max-object-size: refused, nothing written.
    let mut big = host_widget("uid-3", json!({}));
    big["metadata"]["name"] = json!("big");
    big["metadata"]["annotations"]["pad"] = json!("x".repeat(5000));
    assert_eq!(restore(state, &widgets, big).await.unwrap_err().code(), 413);
    assert_eq!(revision(state).await, before);

    // The keys here, and the deletion pass.
    let here = list_here(state, &widgets).await.unwrap();
    let listed: Vec<_> = here
        .iter()
        .map(|h| (h.namespace.as_deref(), &*h.name, &*h.uid))
        .collect();
    assert_eq!(listed, [(Some("default"), "w", "uid-1")]);
    let wrong = restore_delete(state, &widgets, Some("default"), "w", "uid-2").await;
    assert_eq!(wrong.unwrap_err().code(), 409);
    assert!(
        restore_delete(state, &widgets, Some("default"), "w", "uid-1")
            .await
            .unwrap()
    );
    assert!(
        !restore_delete(state, &widgets, Some("default"), "w", "uid-1")
            .await
            .unwrap()
    );
    assert_eq!(live.get(&format!("{WIDGETS}/w")).await.0, 404);
}
