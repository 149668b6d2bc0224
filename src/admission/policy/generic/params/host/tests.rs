#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicUsize, Ordering};

use bytes::Bytes;
use http_body_util::Full;
use serde_json::json;

use super::*;

fn gvk(group: &str, version: &str, kind: &str) -> Gvk {
    Gvk {
        group: group.into(),
        version: version.into(),
        kind: kind.into(),
    }
}

#[test]
fn informer_form_typed_without_type_meta_unstructured_with_it() {
    let bare = json!({"metadata": {"name": "a"}});
    let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}});
    let own = json!({"apiVersion": "example.org/v2", "kind": "Tier", "metadata": {"name": "a"}});
    let with = |api_version: &str, kind: &str| json!({"apiVersion": api_version, "kind": kind, "metadata": {"name": "a"}});
    let cases = [
        (
            "typed core kind: cleared",
            gvk("", "v1", "ConfigMap"),
            cm.clone(),
            bare.clone(),
        ),
        (
            "typed group kind: cleared",
            gvk("apps", "v1", "Deployment"),
            with("apps/v1", "Deployment"),
            bare.clone(),
        ),
        (
            "typed, none given",
            gvk("", "v1", "ConfigMap"),
            bare.clone(),
            bare.clone(),
        ),
        (
            "unstructured: kept",
            gvk("example.org", "v1", "Tier"),
            own.clone(),
            own.clone(),
        ),
        (
            "unstructured list item without either: the list's",
            gvk("example.org", "v1", "Tier"),
            bare.clone(),
            with("example.org/v1", "Tier"),
        ),
        (
            "unstructured item with a kind only: as is",
            gvk("example.org", "v1", "Tier"),
            json!({"kind": "X", "metadata": {"name": "a"}}),
            json!({"kind": "X", "metadata": {"name": "a"}}),
        ),
    ];
    for (name, gvk, given, want) in cases {
        assert_eq!(informer_form(&gvk, given), want, "{name}");
    }
}

#[test]
fn is_not_found_reason_or_unknown_reason_404() {
    let cases = [
        ("NotFound", 404, true),
        ("NotFound", 500, true),
        ("", 404, true),
        ("SomethingNew", 404, true),
        ("Forbidden", 404, false),
        ("Forbidden", 403, false),
        ("", 500, false),
    ];
    for (reason, code, want) in cases {
        assert_eq!(is_not_found(reason, code), want, "{reason} {code}");
    }
}

/// A host answering GETs of ConfigMaps and Tiers: `late` exists, `forbidden` is
/// refused, `slow` never answers, anything else is NotFound. Counts the requests.
fn host(requests: Arc<AtomicUsize>) -> kube::Client {
    let service = tower::service_fn(move |request: http::Request<kube::client::Body>| {
        requests.fetch_add(1, Ordering::SeqCst);
        let path = request.uri().path().to_string();
        async move {
            let name = path.rsplit('/').next().unwrap_or_default().to_string();
            let status = |code: u16, reason: &str| {
                json!({"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": code,
                    "reason": reason, "message": format!("{name} {reason} at {path}")})
            };
            let (code, body) = match name.as_str() {
                "late" if path.starts_with("/api/v1/") => (
                    200,
                    json!({"apiVersion": "v1",
                    "kind": "ConfigMap", "metadata": {"name": "late", "namespace": "ns"}}),
                ),
                "late" => (
                    200,
                    json!({"apiVersion": "example.org/v1", "kind": "Tier",
                    "metadata": {"name": "late"}}),
                ),
                "forbidden" => (403, status(403, "Forbidden")),
                "slow" => std::future::pending().await,
                _ => (404, status(404, "NotFound")),
            };
            let response = http::Response::builder()
                .status(code)
                .header("content-type", "application/json")
                .body(Full::new(Bytes::from(body.to_string())))
                .unwrap();
            Ok::<_, std::convert::Infallible>(response)
        }
    });
    kube::Client::new(service, "default")
}

/// A synced store of `gvk` (plural `plural`) holding `cached`, discovered on `client`.
fn store(client: kube::Client, gvk: Gvk, plural: &str, cached: Vec<DynamicObject>) -> HostStore {
    let store = HostStore::new(gvk.clone());
    let api_version = match gvk.group.as_str() {
        "" => gvk.version.clone(),
        group => format!("{group}/{}", gvk.version),
    };
    let resource = ApiResource {
        group: gvk.group.clone(),
        version: gvk.version.clone(),
        api_version,
        kind: gvk.kind.clone(),
        plural: plural.into(),
    };
    let _ = store.direct.set((client, resource));
    store.resolve(Resolution::Known(ParamScope::Namespaced));
    store.replace(cached);
    store
}

#[tokio::test]
async fn host_store_get_miss_asks_host_directly_kubes_answers() {
    let requests = Arc::new(AtomicUsize::new(0));
    let cached: DynamicObject = serde_json::from_value(json!({"apiVersion": "v1",
        "kind": "ConfigMap", "metadata": {"name": "cached", "namespace": "ns"}}))
    .unwrap();
    let config_maps = gvk("", "v1", "ConfigMap");
    let store = store(
        host(requests.clone()),
        config_maps,
        "configmaps",
        vec![cached],
    );

    let got = store.get("ns", "cached").await.unwrap().unwrap();
    assert_eq!(got["metadata"]["name"], "cached");
    assert_eq!(requests.load(Ordering::SeqCst), 0, "a hit asks nothing");

    let got = store.get("ns", "late").await.unwrap().unwrap();
    assert_eq!(
        *got,
        json!({"metadata": {"name": "late", "namespace": "ns"}}),
        "typed: no TypeMeta"
    );
    assert_eq!(
        store.get("ns", "missing").await,
        Ok(None),
        "NotFound: no param"
    );
    assert_eq!(
        store.get("ns", "forbidden").await,
        Err("forbidden Forbidden at /api/v1/namespaces/ns/configmaps/forbidden".into())
    );
    assert_eq!(requests.load(Ordering::SeqCst), 3);
    assert!(store.objects().len() == 1, "a direct answer is not cached");
}

#[tokio::test(start_paused = true)]
async fn host_store_get_direct_timeout_deadline_error() {
    let requests = Arc::new(AtomicUsize::new(0));
    let store = store(
        host(requests),
        gvk("", "v1", "ConfigMap"),
        "configmaps",
        vec![],
    );
    assert_eq!(
        store.get("ns", "slow").await,
        Err("context deadline exceeded".into())
    );
}

#[tokio::test]
async fn host_store_get_direct_unstructured_keeps_type_meta_cluster_path() {
    let requests = Arc::new(AtomicUsize::new(0));
    let tiers = gvk("example.org", "v1", "Tier");
    let store = store(host(requests), tiers, "tiers", vec![]);
    let got = store.get("", "late").await.unwrap().unwrap();
    assert_eq!(
        (got["apiVersion"].as_str(), got["kind"].as_str()),
        (Some("example.org/v1"), Some("Tier"))
    );
    assert_eq!(
        store.get("", "forbidden").await,
        Err("forbidden Forbidden at /apis/example.org/v1/tiers/forbidden".into())
    );
}

#[tokio::test]
async fn host_store_get_undiscovered_kind_no_direct_get() {
    let store = HostStore::new(gvk("", "v1", "ConfigMap"));
    assert_eq!(store.get("ns", "late").await, Ok(None));
}

#[tokio::test]
async fn host_store_listed_and_watched_objects_informer_form() {
    let item = |api: Option<&str>| {
        let mut o = json!({"metadata": {"name": "a", "namespace": "ns"}});
        if let Some(api) = api {
            o["apiVersion"] = json!(api);
            o["kind"] = json!("Tier");
        }
        serde_json::from_value::<DynamicObject>(o).unwrap()
    };
    let store = HostStore::new(gvk("example.org", "v1", "Tier"));
    store.replace(vec![item(None)]);
    let got = store.get("ns", "a").await.unwrap().unwrap();
    assert_eq!(
        (got["apiVersion"].as_str(), got["kind"].as_str()),
        (Some("example.org/v1"), Some("Tier"))
    );
    store.upsert(item(Some("example.org/v1")));
    let got = store.get("ns", "a").await.unwrap().unwrap();
    assert_eq!(got["kind"], "Tier", "a watched object keeps its own");
}
