//! A host CRD's resource and its paths.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use serde_json::json;

use super::*;

fn crd(scope: &str, status_on_storage: bool) -> CustomResourceDefinition {
    let status = if status_on_storage {
        json!({"status": {}})
    } else {
        json!({})
    };
    serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.g.example.com"},
        "spec": {"group": "g.example.com", "scope": scope,
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
            "versions": [
                {"name": "v1beta1", "served": true, "storage": false, "subresources": {"status": {}}},
                {"name": "v1", "served": true, "storage": true, "subresources": status},
            ]},
    }))
    .unwrap()
}

#[test]
fn of_takes_the_storage_version_and_its_status_subresource() {
    let r = HostResource::of(&crd("Namespaced", true)).unwrap();
    assert_eq!(
        r,
        HostResource {
            crd_name: "widgets.g.example.com".into(),
            group: "g.example.com".into(),
            plural: "widgets".into(),
            kind: "Widget".into(),
            version: "v1".into(),
            namespaced: true,
            status: true,
        }
    );
    assert!(!HostResource::of(&crd("Cluster", false)).unwrap().status);
}

#[test]
fn of_without_storage_version_is_refused() {
    let mut c = crd("Cluster", false);
    c.spec.versions.iter_mut().for_each(|v| v.storage = false);
    assert!(
        matches!(HostResource::all(&[c]), Err(StepError::Refused(m)) if m.contains("storage: true"))
    );
}

#[test]
fn collection_paths() {
    let ns = HostResource::of(&crd("Namespaced", false)).unwrap();
    assert_eq!(ns.collection(None), "/apis/g.example.com/v1/widgets");
    assert_eq!(
        ns.collection(Some("a")),
        "/apis/g.example.com/v1/namespaces/a/widgets"
    );
    assert_eq!(
        ns.collection_of(&json!({"metadata": {"namespace": "b", "name": "x"}})),
        "/apis/g.example.com/v1/namespaces/b/widgets"
    );
    let cluster = HostResource::of(&crd("Cluster", false)).unwrap();
    assert_eq!(
        cluster.collection(Some("a")),
        "/apis/g.example.com/v1/widgets"
    );
}
