//! Server-side apply and managedFields across versions of a webhook-converted resource
//! (issue 32 point 2; the reference's `apply_across_versions`, hack/conversion-oracle
//! FINDINGS §4): the stub converter moves v2's `spec.shape` into an annotation at v1, so an
//! object compared at another version than its own must really be converted (an
//! `apiVersion` swap leaves a field the other version's schema lacks). Managers keep their
//! apiVersion; conflicts are detected across versions.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;
#[path = "common/stub_converter.rs"]
mod stub_converter;
#[path = "common/webhook.rs"]
mod webhook;

use common::{Server, json_of};
use serde_json::{Value, json};
use stub_converter::{ANNOTATION, StubConverter};

const GROUP: &str = "conversion.example.com";
const V1: &str = "/apis/conversion.example.com/v1/namespaces/default/widgets";
const V2: &str = "/apis/conversion.example.com/v2/namespaces/default/widgets";
const APPLY: &str = "application/apply-patch+yaml";
const MERGE: &str = "application/merge-patch+json";

/// The reference scenario's Widget: v1 and v2 served, v1 stored, v2 has `spec.shape`.
fn definition(converter: &StubConverter) -> Value {
    let version = |name: &str| {
        let mut spec = json!({"color": {"type": "string"}, "replicas": {"type": "integer"}});
        if name == "v2" {
            spec["shape"] = json!({"type": "string"});
        }
        json!({"name": name, "served": true, "storage": name == "v1",
            "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                "spec": {"type": "object", "properties": spec},
                "status": {"type": "object", "properties": {"replicas": {"type": "integer"}}}}}},
            "subresources": {"status": {}}})
    };
    json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("widgets.{GROUP}")},
        "spec": {"group": GROUP, "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget",
                      "listKind": "WidgetList"},
            "versions": [version("v1"), version("v2")],
            "conversion": converter.conversion("/convert", &["v1"])}})
}

fn widget(name: &str, version: &str, spec: Value) -> Value {
    json!({"apiVersion": format!("{GROUP}/{version}"), "kind": "Widget",
        "metadata": {"name": name}, "spec": spec})
}

async fn send(req: reqwest::RequestBuilder) -> (u16, Value) {
    let resp = req.send().await.unwrap();
    let code = resp.status().as_u16();
    (code, resp.json().await.unwrap_or(Value::Null))
}

async fn apply(
    server: &Server,
    path: &str,
    body: &Value,
    manager: &str,
    force: bool,
) -> (u16, Value) {
    let force = if force { "&force=true" } else { "" };
    let url = server.url(&format!("{path}?fieldManager={manager}{force}"));
    let req = server.client().patch(url).header("content-type", APPLY);
    send(req.body(body.to_string())).await
}

/// `(manager, apiVersion, operation, fieldsV1)` of each managedFields entry.
fn managers(object: &Value) -> Vec<(String, String, String, Value)> {
    let entries = object["metadata"]["managedFields"].as_array();
    let entries = entries.unwrap_or_else(|| panic!("no managedFields in {object}"));
    entries
        .iter()
        .map(|e| {
            let text = |k: &str| e[k].as_str().unwrap().to_string();
            (
                text("manager"),
                text("apiVersion"),
                text("operation"),
                e["fieldsV1"].clone(),
            )
        })
        .collect()
}

fn entry(
    manager: &str,
    version: &str,
    operation: &str,
    fields: Value,
) -> (String, String, String, Value) {
    let api_version = format!("{GROUP}/{version}");
    (manager.into(), api_version, operation.into(), fields)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn apply_across_versions_conflicts_detected_managers_keep_versions() {
    let converter = StubConverter::start();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("widgets.yaml");
    std::fs::write(&file, definition(&converter).to_string()).unwrap();
    let server = Server::start_with(&["--crd-dir", file.to_str().unwrap()]);
    let one_v1 = widget("a", "v1", json!({"color": "red", "replicas": 1}));

    // #0: `one` applies at v1 (creates).
    let (code, created) = apply(&server, &format!("{V1}/a"), &one_v1, "one", false).await;
    assert_eq!(code, 201, "{created}");
    let one_fields = json!({"f:spec": {"f:color": {}, "f:replicas": {}}});
    assert_eq!(
        managers(&created),
        [entry("one", "v1", "Apply", one_fields.clone())]
    );

    // #1: `two` applies spec.shape at v2: both managers, each at its own version.
    converter.take_reviews();
    let shape = widget("a", "v2", json!({"shape": "cube"}));
    let (code, applied) = apply(&server, &format!("{V2}/a"), &shape, "two", false).await;
    assert_eq!(code, 200, "{applied}");
    assert_eq!(
        applied["spec"],
        json!({"color": "red", "replicas": 1, "shape": "cube"})
    );
    let two_shape = entry("two", "v2", "Apply", json!({"f:spec": {"f:shape": {}}}));
    let both = [
        entry("one", "v1", "Apply", one_fields.clone()),
        two_shape.clone(),
    ];
    assert_eq!(managers(&applied), both);
    // `one`'s v1 was compared with the objects converted by the webhook: v1 objects
    // carrying the shape in the annotation, never in spec.
    let to_v1: Vec<Value> = (converter.take_reviews().iter())
        .filter(|r| r.desired() == format!("{GROUP}/v1"))
        .flat_map(|r| r.objects().to_vec())
        .collect();
    assert!(
        !to_v1.is_empty(),
        "no object converted to v1 for the field manager"
    );

    // Read at v1: the shape lives in the converter's annotation; managers unchanged.
    let at_v1 = json_of(server.client().get(server.url(&format!("{V1}/a")))).await;
    assert_eq!(
        at_v1["metadata"]["annotations"][ANNOTATION], "cube",
        "{at_v1}"
    );
    assert_eq!(at_v1["spec"], json!({"color": "red", "replicas": 1}));
    assert_eq!(managers(&at_v1), both);

    // #4: `two` applies spec.color (owned by `one` at v1) at v2: a conflict.
    let blue = widget("a", "v2", json!({"color": "blue"}));
    let (code, status) = apply(&server, &format!("{V2}/a"), &blue, "two", false).await;
    assert_eq!(code, 409, "{status}");
    assert_eq!(
        status["message"],
        "Apply failed with 1 conflict: conflict with \"one\": .spec.color"
    );
    assert_eq!(
        status["details"]["causes"],
        json!([{"field": ".spec.color", "message": "conflict with \"one\"",
                "reason": "FieldManagerConflict"}])
    );

    // #5: forced: `two` takes spec.color and gives up spec.shape (kept: unowned).
    let (code, forced) = apply(&server, &format!("{V2}/a"), &blue, "two", true).await;
    assert_eq!(code, 200, "{forced}");
    assert_eq!(
        forced["spec"],
        json!({"color": "blue", "replicas": 1, "shape": "cube"})
    );
    assert_eq!(
        managers(&forced),
        [
            entry("one", "v1", "Apply", json!({"f:spec": {"f:replicas": {}}})),
            entry("two", "v2", "Apply", json!({"f:spec": {"f:color": {}}})),
        ]
    );

    // #6: and back: `one` at v1 conflicts with `two` at v2.
    let (code, status) = apply(&server, &format!("{V1}/a"), &one_v1, "one", false).await;
    assert_eq!(code, 409, "{status}");
    assert_eq!(
        status["message"],
        "Apply failed with 1 conflict: conflict with \"two\": .spec.color"
    );

    // #7: an update at v2 (merge patch) takes spec.replicas from `one` at v1, which is
    // left owning nothing and dropped.
    let url = server.url(&format!("{V2}/a?fieldManager=three"));
    let req = server.client().patch(url).header("content-type", MERGE);
    let (code, patched) = send(req.body(r#"{"spec":{"replicas":7}}"#)).await;
    assert_eq!(code, 200, "{patched}");
    assert_eq!(
        patched["spec"],
        json!({"color": "blue", "replicas": 7, "shape": "cube"})
    );
    assert_eq!(
        managers(&patched),
        [
            entry("two", "v2", "Apply", json!({"f:spec": {"f:color": {}}})),
            entry(
                "three",
                "v2",
                "Update",
                json!({"f:spec": {"f:replicas": {}}})
            ),
        ]
    );

    // #8: read at v1: the same managers, the shape in the annotation.
    let at_v1 = json_of(server.client().get(server.url(&format!("{V1}/a")))).await;
    assert_eq!(at_v1["spec"], json!({"color": "blue", "replicas": 7}));
    assert_eq!(at_v1["metadata"]["annotations"][ANNOTATION], "cube");
    assert_eq!(managers(&at_v1), managers(&patched));
}
