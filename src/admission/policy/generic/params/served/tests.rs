#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::json;

use super::*;
use crate::storage::embedded::EmbeddedStore;

/// Two versions (v1 stored, v2 served too) of a namespaced `Tier` with a defaulted
/// `spec.level`, and a cluster-scoped `Global`.
fn catalog() -> Catalog {
    let schema = json!({"openAPIV3Schema": {"type": "object", "properties": {
        "spec": {"type": "object", "properties": {
            "color": {"type": "string"},
            "level": {"type": "integer", "default": 3}}}}}});
    let crd = |kind: &str, plural: &str, scope: &str| {
        serde_json::from_value(json!({"apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition", "metadata": {"name": format!("{plural}.example.org")},
            "spec": {"group": "example.org", "scope": scope,
                "names": {"plural": plural, "kind": kind},
                "versions": [
                    {"name": "v1", "served": true, "storage": true, "schema": schema},
                    {"name": "v2", "served": true, "storage": false, "schema": schema}]}}))
        .unwrap()
    };
    Catalog::build(&[
        crd("Tier", "tiers", "Namespaced"),
        crd("Global", "globals", "Cluster"),
    ])
    .unwrap()
}

fn gvk(version: &str, kind: &str) -> Gvk {
    Gvk {
        group: "example.org".into(),
        version: version.into(),
        kind: kind.into(),
    }
}

/// Our storage with `objects` stored as (key under /registry, object).
async fn storage(dir: &tempfile::TempDir, objects: &[(&str, Value)]) -> OwnStorage {
    let store = EmbeddedStore::open(dir.path()).unwrap();
    for (key, object) in objects {
        let bytes = serde_json::to_vec(object).unwrap();
        store
            .create(&format!("/registry/{key}"), bytes)
            .await
            .unwrap();
    }
    let catalog = Arc::new(catalog());
    OwnStorage {
        catalog: Arc::new(move || catalog.clone()),
        store,
        keys: KeyLayout::new("/registry"),
    }
}

fn tier(ns: &str, name: &str, color: &str) -> (String, Value) {
    let object = json!({"apiVersion": "example.org/v1", "kind": "Tier",
        "metadata": {"name": name, "namespace": ns, "labels": {"color": color}},
        "spec": {"color": color, "unknown": true}});
    (format!("example.org/tiers/{ns}/{name}"), object)
}

async fn objects(dir: &tempfile::TempDir) -> OwnStorage {
    let stored = [
        tier("ns", "gold", "yellow"),
        tier("ns", "sun", "yellow"),
        tier("ns", "sky", "blue"),
        tier("other", "moon", "yellow"),
    ];
    let global =
        json!({"apiVersion": "example.org/v1", "kind": "Global", "metadata": {"name": "g"}});
    let mut all: Vec<(&str, Value)> = stored
        .iter()
        .map(|(k, o)| (k.as_str(), o.clone()))
        .collect();
    all.push(("example.org/globals/g", global));
    storage(dir, &all).await
}

fn names(params: &[Arc<Value>]) -> Vec<&str> {
    params
        .iter()
        .map(|p| p["metadata"]["name"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn served_store_get_object_as_served_in_param_version() {
    let dir = tempfile::tempdir().unwrap();
    let store = ServedStore::new(gvk("v2", "Tier"), objects(&dir).await);
    assert_eq!(
        store.resolution(),
        Resolution::Known(ParamScope::Namespaced)
    );
    assert!(store.synced());
    let got = store.get("ns", "gold").await.unwrap().unwrap();
    assert_eq!(
        got["apiVersion"], "example.org/v2",
        "the paramKind's version"
    );
    assert_eq!(got["kind"], "Tier");
    assert_eq!(
        got["spec"],
        json!({"color": "yellow", "level": 3}),
        "pruned and defaulted"
    );
    let rv = got["metadata"]["resourceVersion"].as_str().unwrap();
    assert!(rv.parse::<i64>().unwrap() > 0, "{rv}");
    assert_eq!(
        store.get("other", "gold").await,
        Ok(None),
        "another namespace"
    );
    assert_eq!(store.get("ns", "none").await, Ok(None));
}

#[tokio::test]
async fn served_store_list_namespace_and_selector_only_those() {
    let dir = tempfile::tempdir().unwrap();
    let store = ServedStore::new(gvk("v1", "Tier"), objects(&dir).await);
    let yellow = LabelSelector::from_metav1(
        &serde_json::from_value(json!({"matchLabels": {"color": "yellow"}})).unwrap(),
    )
    .unwrap();
    let every = LabelSelector::from_metav1(&Default::default()).unwrap();
    let listed = store.list("ns", &yellow).await.unwrap();
    assert_eq!(names(&listed), ["gold", "sun"]);
    assert!(listed.iter().all(|o| o["apiVersion"] == "example.org/v1"));
    assert_eq!(
        names(&store.list("ns", &every).await.unwrap()),
        ["gold", "sky", "sun"]
    );
    assert_eq!(
        names(&store.list("other", &yellow).await.unwrap()),
        ["moon"]
    );
}

#[tokio::test]
async fn served_store_cluster_scoped_kind_known_cluster() {
    let dir = tempfile::tempdir().unwrap();
    let store = ServedStore::new(gvk("v1", "Global"), objects(&dir).await);
    assert_eq!(store.resolution(), Resolution::Known(ParamScope::Cluster));
    let got = store.get("", "g").await.unwrap().unwrap();
    assert_eq!(
        (got["kind"].as_str(), got["metadata"]["name"].as_str()),
        (Some("Global"), Some("g"))
    );
}

#[tokio::test]
async fn served_store_kind_or_version_not_served_unknown() {
    let dir = tempfile::tempdir().unwrap();
    let storage = objects(&dir).await;
    for gvk in [
        gvk("v3", "Tier"),
        gvk("v1", "Tiers"),
        Gvk {
            group: "other.org".into(),
            ..gvk("v1", "Tier")
        },
    ] {
        let store = ServedStore::new(gvk.clone(), storage.clone());
        assert_eq!(store.resolution(), Resolution::Unknown, "{gvk:?}");
        assert_eq!(store.get("ns", "gold").await, Ok(None));
    }
}

#[tokio::test]
async fn served_store_catalog_changes_followed_at_each_read() {
    let dir = tempfile::tempdir().unwrap();
    let mut storage = objects(&dir).await;
    let current = Arc::new(std::sync::Mutex::new(Arc::new(catalog())));
    let now = current.clone();
    storage.catalog = Arc::new(move || now.lock().unwrap().clone());
    let store = ServedStore::new(gvk("v1", "Tier"), storage);
    assert_eq!(
        store.resolution(),
        Resolution::Known(ParamScope::Namespaced)
    );
    *current.lock().unwrap() = Arc::new(Catalog::default());
    assert_eq!(
        store.resolution(),
        Resolution::Unknown,
        "the CRD is no longer served"
    );
}

/// Host param sources that record what they were asked.
#[derive(Default)]
struct Host {
    ensured: std::sync::Mutex<Vec<Gvk>>,
    retained: std::sync::Mutex<Vec<Gvk>>,
}

impl ParamSources for Host {
    fn ensure(&self, kind: &ParamKindRef) -> Arc<dyn ParamStore> {
        self.ensured.lock().unwrap().push(kind.gvk.clone());
        Arc::new(crate::admission::policy::generic::testing::MemoryStore::namespaced(&[]))
    }
    fn retain(&self, used: &[Gvk]) {
        *self.retained.lock().unwrap() = used.to_vec();
    }
}

#[tokio::test]
async fn served_params_ours_from_storage_others_from_host() {
    let dir = tempfile::tempdir().unwrap();
    let host = Arc::new(Host::default());
    let params = ServedParams {
        storage: objects(&dir).await,
        host: host.clone(),
    };
    let kind = |api_version: &str, kind: &str| {
        ParamKindRef::parse(&k8s_openapi::api::admissionregistration::v1::ParamKind {
            api_version: Some(api_version.into()),
            kind: Some(kind.into()),
        })
        .unwrap()
    };
    let ours = params.ensure(&kind("example.org/v2", "Tier"));
    let got = ours.get("ns", "sky").await.unwrap().unwrap();
    assert_eq!(got["spec"]["color"], "blue", "read from our storage");
    params.ensure(&kind("v1", "ConfigMap"));
    let config_map = kind("v1", "ConfigMap").gvk;
    assert_eq!(
        *host.ensured.lock().unwrap(),
        std::slice::from_ref(&config_map),
        "only the host's kind"
    );
    params.retain(&[gvk("v2", "Tier"), config_map.clone()]);
    assert_eq!(
        *host.retained.lock().unwrap(),
        [config_map],
        "ours are not the host's"
    );
}
