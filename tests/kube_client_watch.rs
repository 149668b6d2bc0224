//! A `kube::runtime` watcher, as a user's controller runs it against the real dev server
//! over TLS, keeps a reflector's `Store` equal to a fresh LIST across a server restart, a
//! compaction (410 Gone, relist) and a streaming list, and a metadata-only reflector
//! follows PartialObjectMetadata watches.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;
#[path = "common/kube.rs"]
mod kube_support;

use common::Server;
use futures::StreamExt;
use kube::ResourceExt;
use kube::api::{
    Api, ApiResource, DeleteParams, DynamicObject, ListParams, PartialObjectMeta, Patch,
};
use kube::runtime::reflector::{self, Store, store::Writer};
use kube::runtime::{WatchStreamExt, watcher};
use kube_support::{crontab, crontabs, kube_client, patch_params, post_params};
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

const CT: &str = "/apis/stable.example.com/v1/namespaces/default/crontabs";

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
