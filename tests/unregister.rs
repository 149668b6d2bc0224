//! `crd-apiserver unregister` against the fake host cluster, with the real binary: it
//! deletes the APIServices whose owner label names its Service (`--service`, default the
//! serve flags' `<pod namespace or default>/crd-apiserver`) and no others, and refuses
//! (nothing deleted) while a group's host CRD carries a live offload record, unless
//! `--force`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;
#[path = "common/fake_kube.rs"]
mod fake_kube;
#[path = "common/registering.rs"]
mod registering;

use std::collections::BTreeSet;

use fake_kube::FakeKube;
use k8s_openapi::kube_aggregator::pkg::apis::apiregistration::v1::APIService;
use kube::api::{ListParams, PostParams};
use registering::{SERVED, apiservices, ca_file, foreign, host, registered, serve};
use serde_json::{Value, json};

fn unregister(fake: &FakeKube, extra: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_crd-apiserver"))
        .arg("unregister")
        .arg("--kubeconfig")
        .arg(fake.kubeconfig())
        .args(extra)
        .output()
        .unwrap()
}

/// A host CRD of `group` carrying offload's record in `phase`.
fn offloaded_crd(group: &str, phase: &str) -> Value {
    let record = json!({"direction": "TakeOver", "phase": phase, "since": "2026-01-01T00:00:00Z"});
    json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("gadgets.{group}"),
            "annotations": {"crd-apiserver.io/offload": record.to_string()}},
        "spec": {"group": group, "scope": "Namespaced",
            "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget", "listKind": "GadgetList"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object"}}}]}
    })
}

async fn names(api: &kube::Api<APIService>) -> BTreeSet<String> {
    api.list(&ListParams::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .filter_map(|a| a.metadata.name)
        .collect()
}

fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|n| n.to_string()).collect()
}

#[tokio::test]
async fn unregister_ours_deleted_others_kept() {
    let (fake, client) = host().await;
    let dir = tempfile::tempdir().unwrap();
    let (ca_path, _) = ca_file(&dir);
    let mut server = serve(&fake, &["--apiservice-ca-file", &ca_path]);
    registered(&client).await;
    server.terminate();
    let api = apiservices(&client);
    let post = PostParams::default();
    let owned_by = |owner: &str| json!({"crd-apiserver.io/service": owner});
    for (name, labels) in [
        ("v1.other.example", json!({})),
        ("v2.other.example", owned_by("other.svc")),
        ("v3.other.example", owned_by("default.crd-apiserver")),
        ("v1.calm.example", owned_by("default.crd-apiserver")),
    ] {
        api.create(&post, &foreign(name, labels)).await.unwrap();
    }
    fake.put_crd(offloaded_crd("calm.example", "Returned"));

    let out = unregister(&fake, &["--service", "crd-test/crd-apiserver"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed: BTreeSet<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    let want: BTreeSet<String> = SERVED
        .iter()
        .map(|n| format!("apiservice.apiregistration.k8s.io \"{n}\" deleted"))
        .collect();
    assert_eq!(printed, want);
    let others = [
        "v1.other.example",
        "v2.other.example",
        "v3.other.example",
        "v1.calm.example",
    ];
    assert_eq!(names(&api).await, set(&others));

    // A group offload has moved here (its host CRD's record says Offloaded): refused,
    // nothing deleted, the APIService named.
    api.create(
        &post,
        &foreign("v1.moved.example", owned_by("default.crd-apiserver")),
    )
    .await
    .unwrap();
    fake.put_crd(offloaded_crd("moved.example", "Offloaded"));
    let out = unregister(&fake, &[]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("nothing deleted: offload is moving or has moved")
            && stderr.contains(
                "apiservice.apiregistration.k8s.io \"v1.moved.example\" (customresourcedefinition \"gadgets.moved.example\" in phase Offloaded)"
            )
            && stderr.contains("crd-apiserver offload --undo")
            && !stderr.contains("calm.example"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
    let mut all = others.to_vec();
    all.push("v1.moved.example");
    assert_eq!(names(&api).await, set(&all), "refused: nothing deleted");

    // Without --service: the serve flags' default Service (default/crd-apiserver outside a
    // pod), and only its APIServices; --force takes the offloaded group's too.
    let out = unregister(&fake, &["--force"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed: BTreeSet<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    let want: BTreeSet<String> = ["v1.calm.example", "v1.moved.example", "v3.other.example"]
        .iter()
        .map(|n| format!("apiservice.apiregistration.k8s.io \"{n}\" deleted"))
        .collect();
    assert_eq!(printed, want);
    assert_eq!(
        names(&api).await,
        set(&["v1.other.example", "v2.other.example"]),
        "another Service's and unlabelled ones kept"
    );

    let out = unregister(&fake, &["--service", "no-slash"]);
    assert!(!out.status.success());
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "crd-apiserver unregister: --service: \"no-slash\" invalid, must be of format: <namespace>/<name>\n"
    );
}
