//! tests/offload.rs's host cluster: the fake with a labelled CRD of gadgets, its
//! automanaged APIService and objects; our server offloading from it; reads of records,
//! events and objects on both sides; the `offload` command.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::process::Command;
use std::time::Duration;

use crate::common::{Server, eventually};
use crate::fake_kube::{self, FakeKube};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use k8s_openapi::kube_aggregator::pkg::apis::apiregistration::v1::APIService;
use kube::api::{Api, ApiResource, DynamicObject, ListParams, PostParams};
use serde_json::{Value, json};

pub const GROUP: &str = "offload.example.net";
pub const CRD: &str = "gadgets.offload.example.net";
pub const APISERVICE: &str = "v1.offload.example.net";
pub const SELECTOR: &str = "crd-apiserver.io/offload=true";
pub const RECORD: &str = "crd-apiserver.io/offload";
pub const NAMESPACE: &str = "crd-test";
pub const DEADLINE: Duration = Duration::from_secs(60);

pub fn gadget_crd(plural: &str, kind: &str, labelled: bool) -> Value {
    let labels = if labelled {
        json!({"crd-apiserver.io/offload": "true"})
    } else {
        json!({})
    };
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("{plural}.{GROUP}"), "labels": labels},
        "spec": {
            "group": GROUP,
            "scope": "Namespaced",
            "names": {"plural": plural, "singular": kind.to_lowercase(), "kind": kind, "listKind": format!("{kind}List")},
            "versions": [{
                "name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                    "spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
                    "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}},
                "subresources": {"status": {}}
            }]
        }
    })
}

pub fn gadgets() -> ApiResource {
    ApiResource {
        group: GROUP.to_string(),
        version: "v1".to_string(),
        api_version: format!("{GROUP}/v1"),
        kind: "Gadget".to_string(),
        plural: "gadgets".to_string(),
    }
}

pub fn gadget(name: &str) -> DynamicObject {
    serde_json::from_value(json!({
        "apiVersion": format!("{GROUP}/v1"), "kind": "Gadget",
        "metadata": {"name": name, "namespace": "default", "labels": {"made": "at-host"}},
        "spec": {"size": name.len()}
    }))
    .unwrap()
}

/// The fake host with the labelled CRD, its automanaged APIService and `objects` gadgets.
pub async fn host(objects: usize) -> (FakeKube, kube::Client) {
    let fake = FakeKube::start();
    let proxy_ca = crd_apiserver::server::pki::new_authority("front-proxy-ca").unwrap();
    fake.set_configmap(Some(fake_kube::front_proxy_data(
        &proxy_ca.pem.cert,
        &["front-proxy-client"],
    )));
    fake.put_crd(gadget_crd("gadgets", "Gadget", true));
    let client = fake.client().await;
    let apiservice: APIService = serde_json::from_value(json!({
        "metadata": {"name": APISERVICE, "labels": {"kube-aggregator.kubernetes.io/automanaged": "true"}},
        "spec": {"group": GROUP, "version": "v1", "groupPriorityMinimum": 1000, "versionPriority": 100}
    }))
    .unwrap();
    Api::<APIService>::all(client.clone())
        .create(&PostParams::default(), &apiservice)
        .await
        .unwrap();
    let api: Api<DynamicObject> = Api::namespaced_with(client.clone(), "default", &gadgets());
    for i in 0..objects {
        api.create(&PostParams::default(), &gadget(&format!("g{i}")))
            .await
            .unwrap();
    }
    (fake, client)
}

/// Our server in dev mode, registering in and offloading from `fake`.
pub fn serve(fake: &FakeKube, dir: &tempfile::TempDir) -> Server {
    let ca = crd_apiserver::server::pki::new_authority("apiservice-ca").unwrap();
    let ca_path = dir.path().join("ca.crt");
    std::fs::write(&ca_path, &ca.pem.cert).unwrap();
    let cert_dir = dir.path().join("certs");
    Server::start_with(&[
        "--kubeconfig",
        &fake.kubeconfig().display().to_string(),
        "--service-namespace",
        NAMESPACE,
        "--cert-dir",
        &cert_dir.display().to_string(),
        "--register-apiservices",
        "--apiservice-ca-file",
        &ca_path.display().to_string(),
        "--offload-selector",
        SELECTOR,
    ])
}

/// The record on the CRD, as JSON.
pub async fn record(client: &kube::Client, name: &str) -> Option<Value> {
    let crd = Api::<CustomResourceDefinition>::all(client.clone())
        .get(name)
        .await
        .ok()?;
    let text = crd.metadata.annotations?.get(RECORD)?.clone();
    serde_json::from_str(&text).ok()
}

pub async fn wait_phase(client: &kube::Client, name: &str, phase: &str) -> Value {
    eventually(DEADLINE, &format!("{name} {phase}"), || async {
        record(client, name).await.filter(|r| r["phase"] == phase)
    })
    .await
}

/// Once the switch has pointed the APIService at us, the host's aggregator would say
/// Available: the test says so.
pub async fn available_once_switched(fake: &FakeKube, client: &kube::Client) -> APIService {
    let api = Api::<APIService>::all(client.clone());
    let switched = eventually(DEADLINE, "the APIService switched", || async {
        api.get(APISERVICE)
            .await
            .ok()
            .filter(|a| a.spec.as_ref().is_some_and(|s| s.service.is_some()))
    })
    .await;
    fake.set_apiservice_available(APISERVICE, true, "Passed");
    switched
}

/// `crd-apiserver offload ARGS --kubeconfig <fake>`.
pub fn offload_cli(fake: &FakeKube, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_crd-apiserver"))
        .arg("offload")
        .args(args)
        .arg("--kubeconfig")
        .arg(fake.kubeconfig())
        .output()
        .unwrap()
}

pub fn uids(list: &Value) -> BTreeMap<String, String> {
    list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            (
                o["metadata"]["name"].as_str().unwrap().to_string(),
                o["metadata"]["uid"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

pub async fn host_uids(client: &kube::Client) -> BTreeMap<String, String> {
    let api: Api<DynamicObject> = Api::namespaced_with(client.clone(), "default", &gadgets());
    let list = api.list(&ListParams::default()).await.unwrap();
    list.items
        .into_iter()
        .map(|o| (o.metadata.name.unwrap(), o.metadata.uid.unwrap()))
        .collect()
}

pub async fn here(server: &Server) -> Value {
    crate::common::json_of(
        server
            .client()
            .get(server.url(&format!("/apis/{GROUP}/v1/namespaces/default/gadgets"))),
    )
    .await
}

pub async fn event_reasons(client: &kube::Client, crd: &str) -> Vec<String> {
    let api: Api<k8s_openapi::api::events::v1::Event> = Api::namespaced(client.clone(), "default");
    let mut events = api.list(&ListParams::default()).await.unwrap().items;
    events.sort_by_key(|e| e.event_time.as_ref().map(|t| t.0));
    events
        .into_iter()
        .filter(|e| e.regarding.as_ref().and_then(|r| r.name.as_deref()) == Some(crd))
        .filter_map(|e| e.reason)
        .collect()
}
