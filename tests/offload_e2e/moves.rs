//! What the take-over and give-back tests share: Gadgets made in the reference before the
//! move, the move's record on the host CRD, waiting for a phase, and a writer that keeps
//! creating and updating Gadgets through the aggregator while the group moves, keeping every
//! answer.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

use crate::cluster::{Cluster, get};
use crate::front::Upstream;
use crate::host::{self, CRD, CRDS, GADGETS};

/// Gadgets `g-0`…`g-<n-1>` made in the reference as the admin, each with a status (through
/// `/status`); `g-1` also with labels, annotations, a finalizer and an ownerReference.
/// Returns them as the reference serves them afterwards.
pub async fn made_before(cluster: &Cluster, n: usize) -> Vec<Value> {
    let admin = cluster.admin();
    let mut made = Vec::new();
    for i in 0..n {
        let mut object = host::gadget(&format!("g-{i}"), i as i64);
        if i == 1 {
            object["metadata"]["labels"] = json!({"tier": "gold"});
            object["metadata"]["annotations"] = json!({"note": "kept"});
            object["metadata"]["finalizers"] = json!(["e2e.example.com/keep"]);
            object["metadata"]["ownerReferences"] = json!([{"apiVersion": "v1",
                "kind": "ConfigMap", "name": "owner", "uid": "7d7c1a44-6b4f-4c3e-9e55-0c1f2b9f1a01"}]);
        }
        let (code, mut created) = host::post(&admin, &object, "").await;
        assert_eq!(code, 201, "{created}");
        created["status"] = json!({"phase": format!("Ready-{i}")});
        let url = format!("{}{GADGETS}/g-{i}/status", admin.base);
        let (code, body) = host::send(admin.client.put(url).json(&created)).await;
        assert_eq!(code, 200, "{body}");
        made.push(body);
    }
    made
}

/// What must survive a move: identity, timestamps, metadata written by clients, status.
pub fn kept(object: &Value) -> Value {
    let m = &object["metadata"];
    json!({"name": m["name"], "uid": m["uid"], "creationTimestamp": m["creationTimestamp"],
        "generation": m["generation"], "labels": m["labels"], "annotations": m["annotations"],
        "finalizers": m["finalizers"], "ownerReferences": m["ownerReferences"],
        "managedFields": m["managedFields"], "spec": object["spec"], "status": object["status"]})
}

/// The move's record on the host CRD (`crd-apiserver.io/offload`), null without one.
pub async fn record(cluster: &Cluster) -> Value {
    let (_, crd) = get(&cluster.admin(), &format!("{CRDS}/{CRD}")).await;
    crd["metadata"]["annotations"]["crd-apiserver.io/offload"]
        .as_str()
        .and_then(|r| serde_json::from_str(r).ok())
        .unwrap_or(Value::Null)
}

/// Waits until the record says `phase` (failing at once on `Failed`); returns the record.
pub async fn wait_phase(cluster: &Cluster, phase: &str, within: Duration) -> Value {
    let deadline = tokio::time::Instant::now() + within;
    loop {
        let now = record(cluster).await;
        assert_ne!(now["phase"], "Failed", "the move failed: {now}");
        if now["phase"] == phase {
            return now;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no {phase} within {within:?}; record: {now}; our log:\n{}",
            cluster
                .server
                .as_ref()
                .map(|s| s.log.text())
                .unwrap_or_default()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Selects the host CRD for offload (the label the server's `--offload-selector` matches).
pub async fn select(cluster: &Cluster) {
    let admin = cluster.admin();
    let patch = json!({"metadata": {"labels": {"crd-apiserver.io/offload": "true"}}});
    let url = format!("{}{CRDS}/{CRD}", admin.base);
    let req = admin
        .client
        .patch(url)
        .header("content-type", "application/merge-patch+json")
        .body(patch.to_string());
    let (code, body) = host::send(req).await;
    assert_eq!(code, 200, "{body}");
}

/// One write of the writer and its answer.
#[derive(Debug, Clone)]
pub enum Write {
    /// A create with generateName `w-` and the label `seq=<n>`.
    Create { seq: usize, code: u16, body: Value },
    /// A merge-patch of `g-0`'s `spec.size` to `size`.
    Update { size: i64, code: u16, body: Value },
}

/// A writer creating and updating Gadgets as a user the fence does not exempt, until stopped.
pub struct Writer {
    pub writes: Arc<Mutex<Vec<Write>>>,
    stop: Arc<AtomicBool>,
    task: tokio::task::JoinHandle<()>,
}

impl Writer {
    pub fn start(to: Upstream) -> Writer {
        let writes = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (kept, stopped) = (writes.clone(), stop.clone());
        let task = tokio::spawn(async move {
            let mut seq = 0;
            while !stopped.load(Ordering::SeqCst) {
                let write = create(&to, seq).await;
                kept.lock().unwrap().push(write);
                let write = update(&to, 1000 + seq as i64).await;
                kept.lock().unwrap().push(write);
                seq += 1;
            }
        });
        Writer { writes, stop, task }
    }

    /// How many writes landed (2xx) so far.
    pub fn landed(&self) -> usize {
        let writes = self.writes.lock().unwrap();
        writes
            .iter()
            .filter(|w| (200..300).contains(&code(w)))
            .count()
    }

    pub async fn stop(self) -> Vec<Write> {
        self.stop.store(true, Ordering::SeqCst);
        self.task.await.unwrap();
        let writes = self.writes.lock().unwrap();
        writes.clone()
    }
}

pub fn code(write: &Write) -> u16 {
    match write {
        Write::Create { code, .. } | Write::Update { code, .. } => *code,
    }
}

async fn create(to: &Upstream, seq: usize) -> Write {
    let object = json!({"apiVersion": "offload.e2e.example.com/v1", "kind": "Gadget",
        "metadata": {"generateName": "w-", "namespace": "default",
            "labels": {"seq": seq.to_string()}}, "spec": {"size": seq}});
    let (code, body) = host::post(to, &object, "").await;
    Write::Create { seq, code, body }
}

async fn update(to: &Upstream, size: i64) -> Write {
    let req = to
        .client
        .patch(format!("{}{GADGETS}/g-0", to.base))
        .header("content-type", "application/merge-patch+json")
        .body(json!({"spec": {"size": size}}).to_string());
    let (code, body) = host::send(req).await;
    Write::Update { size, code, body }
}
