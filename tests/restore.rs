//! The restore path (offload's copy), in process against the real server with etcd and
//! encryption at rest: every metadata field kept, a uid clash refused, nothing written
//! for an unchanged object, ciphertext at rest, the size cap, the keys here and the
//! deletion pass; names that are no path segments refused.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
#[path = "common/etcd.rs"]
mod etcd;
#[path = "common/live.rs"]
mod live;

use crd_apiserver::handlers::AppState;
use crd_apiserver::handlers::restore::{Restored, list_here, restore, restore_delete};
use live::{KEY_PREFIX, Live, NAME, WIDGETS, widgets_crd};
use serde_json::{Value, json};

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

    // A name that is no path segment (kube's key functions refuse it): 400, nothing
    // written; the deletion pass refuses one too.
    let mut dotted = host_widget("uid-4", json!({}));
    dotted["metadata"]["name"] = json!("..");
    let err = restore(state, &widgets, dotted).await.unwrap_err();
    assert_eq!(err.code(), 400, "{err}");
    assert!(
        err.to_string()
            .contains(r#"Name parameter invalid: "..": may not be '..'"#),
        "{err}"
    );
    let err = restore_delete(state, &widgets, Some("default"), "a/b", "uid-1").await;
    assert_eq!(err.unwrap_err().code(), 400);
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
