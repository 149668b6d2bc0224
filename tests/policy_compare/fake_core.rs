//! The fake core API's policy and param collections (tests/common/fake_kube_collections.rs)
//! read through a real client (kube-rs: discovery, list, watch), as the server will read them.

use futures::{StreamExt, TryStreamExt};
use kube::api::{Api, DynamicObject, ListParams, WatchEvent, WatchParams};
use kube::discovery::{Discovery, Scope};
use serde_json::{Value, json};

use super::fake_kube::FakeKube;
use super::fake_kube::collections::{CLUSTER_PARAMS, CONFIGMAPS, VALIDATING_POLICIES};

async fn client(fake: &FakeKube) -> kube::Client {
    let kubeconfig = kube::config::Kubeconfig::read_from(fake.kubeconfig()).unwrap();
    let options = kube::config::KubeConfigOptions::default();
    let config = kube::Config::from_custom_kubeconfig(kubeconfig, &options)
        .await
        .unwrap();
    kube::Client::try_from(config).unwrap()
}

fn configmap(namespace: &str, name: &str, labels: Value, data: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": namespace, "labels": labels}, "data": data})
}

fn names(list: &kube::core::ObjectList<DynamicObject>) -> Vec<String> {
    list.items
        .iter()
        .map(|o| o.metadata.name.clone().unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fake_core_discovery_resolves_policy_and_param_kinds() {
    let fake = FakeKube::start();
    let discovery = Discovery::new(client(&fake).await).run().await.unwrap();
    let scope = |group: &str, kind: &str| {
        let (resource, caps) = discovery
            .groups()
            .flat_map(|g| g.recommended_resources())
            .find(|(r, _)| r.group == group && r.kind == kind)
            .unwrap_or_else(|| panic!("{group} {kind} not discovered"));
        (resource.plural, caps.scope)
    };
    assert_eq!(
        scope("", "ConfigMap"),
        ("configmaps".to_string(), Scope::Namespaced)
    );
    assert_eq!(
        scope("params.example.com", "ClusterParam"),
        ("clusterparams".to_string(), Scope::Cluster)
    );
    for kind in [
        "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding",
        "MutatingAdmissionPolicy",
        "MutatingAdmissionPolicyBinding",
    ] {
        assert_eq!(
            scope("admissionregistration.k8s.io", kind).1,
            Scope::Cluster
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fake_core_params_listed_by_namespace_and_selector() {
    let fake = FakeKube::start();
    fake.put_object(configmap(
        "p1",
        "a",
        json!({"tier": "x"}),
        json!({"k": "1"}),
    ));
    fake.put_object(configmap(
        "p1",
        "b",
        json!({"tier": "y"}),
        json!({"k": "2"}),
    ));
    fake.put_object(configmap(
        "p2",
        "a",
        json!({"tier": "x"}),
        json!({"k": "3"}),
    ));
    fake.put_object(
        json!({"apiVersion": "params.example.com/v1", "kind": "ClusterParam",
        "metadata": {"name": "limits"}, "spec": {"max": 3}}),
    );
    let client = client(&fake).await;
    let ar = |r: &super::fake_kube::collections::Resource| {
        kube::api::ApiResource::from_gvk_with_plural(
            &kube::api::GroupVersionKind::gvk(r.group, r.version, r.kind),
            r.plural,
        )
    };
    let all: Api<DynamicObject> = Api::all_with(client.clone(), &ar(&CONFIGMAPS));
    let p1: Api<DynamicObject> = Api::namespaced_with(client.clone(), "p1", &ar(&CONFIGMAPS));
    let everything = all.list(&ListParams::default()).await.unwrap();
    assert_eq!(names(&everything), ["a", "b", "a"]);
    assert_eq!(
        names(&p1.list(&ListParams::default()).await.unwrap()),
        ["a", "b"]
    );
    let x = all
        .list(&ListParams::default().labels("tier=x"))
        .await
        .unwrap();
    assert_eq!(x.items.len(), 2);
    assert!(
        x.items
            .iter()
            .all(|o| o.metadata.labels.as_ref().unwrap()["tier"] == "x")
    );
    let b = p1.get("b").await.unwrap();
    assert_eq!(b.data["data"], json!({"k": "2"}));
    let missing = p1.get("nope").await.unwrap_err();
    assert!(
        matches!(&missing, kube::Error::Api(s) if s.code == 404 && s.message == "configmaps \"nope\" not found"),
        "{missing:?}"
    );
    let params: Api<DynamicObject> = Api::all_with(client, &ar(&CLUSTER_PARAMS));
    let limits = params.get("limits").await.unwrap();
    assert_eq!(limits.data["spec"], json!({"max": 3}));
    assert_eq!(limits.metadata.namespace, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fake_core_policy_change_watched_with_new_generation() {
    let fake = FakeKube::start();
    let policy = |expression: &str| {
        json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
            "metadata": {"name": "p"}, "spec": {"validations": [{"expression": expression}]}})
    };
    fake.put_object(policy("true"));
    let r = &VALIDATING_POLICIES;
    let ar = kube::api::ApiResource::from_gvk_with_plural(
        &kube::api::GroupVersionKind::gvk(r.group, r.version, r.kind),
        r.plural,
    );
    let api: Api<DynamicObject> = Api::all_with(client(&fake).await, &ar);
    let list = api.list(&ListParams::default()).await.unwrap();
    assert_eq!(list.items[0].metadata.generation, Some(1));
    let rv = list.metadata.resource_version.unwrap();
    let events = api.watch(&WatchParams::default(), &rv).await.unwrap();
    let mut events = events.boxed();
    fake.put_object(policy("false"));
    fake.delete_object(r, None, "p");
    let generation_of = |e: &WatchEvent<DynamicObject>| match e {
        WatchEvent::Modified(o) => ("MODIFIED", o.metadata.generation),
        WatchEvent::Deleted(o) => ("DELETED", o.metadata.generation),
        other => panic!("unexpected {other:?}"),
    };
    let within = std::time::Duration::from_secs(10);
    let first = tokio::time::timeout(within, events.try_next())
        .await
        .unwrap();
    assert_eq!(
        generation_of(&first.unwrap().unwrap()),
        ("MODIFIED", Some(2))
    );
    let second = tokio::time::timeout(within, events.try_next())
        .await
        .unwrap();
    assert_eq!(
        generation_of(&second.unwrap().unwrap()),
        ("DELETED", Some(2))
    );
    assert_eq!(fake.watches(r), 1);
}

/// The object of `template`'s kind and name as the fake serves it now.
pub fn served(fake: &FakeKube, template: &Value) -> Value {
    use super::fake_kube::collections::*;
    let kind = template["kind"].as_str().unwrap();
    let resource = [
        MUTATING_WEBHOOKS,
        VALIDATING_WEBHOOKS,
        VALIDATING_POLICIES,
        VALIDATING_POLICY_BINDINGS,
        MUTATING_POLICIES,
        MUTATING_POLICY_BINDINGS,
        CONFIGMAPS,
        CLUSTER_PARAMS,
    ]
    .into_iter()
    .find(|r| r.kind == kind)
    .unwrap_or_else(|| panic!("no collection for {kind}"));
    let metadata = &template["metadata"];
    let name = metadata["name"].as_str().unwrap();
    fake.object(&resource, metadata["namespace"].as_str(), name)
        .unwrap_or_else(|| panic!("{kind} {name} not served"))
}
