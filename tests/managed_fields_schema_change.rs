//! managedFields recorded under an earlier CRD schema, reconciled on the next write as kube's
//! updater does (`reconcileManagedFieldsWithSchemaChanges`): a list-map made atomic leaves
//! its earlier managers owning `.spec.items` as a whole, both on apply and on update.
//! Expected values recorded from the reference server (apiextensions-apiserver 0.36.4)
//! by the same steps with a PUT of the CRD instead of a restart.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;

use std::path::PathBuf;

use common::Server;
use serde_json::{Value, json};

const WIDGETS: &str = "/apis/reconcile.example.com/v1/namespaces/default/widgets";

/// The CRD with `spec.items` a list-map keyed by `name`, or (`atomic`) a plain list, as
/// the JSON (YAML) document the server reads from `--crd-dir`.
fn crd(atomic: bool) -> String {
    let mut items = json!({"type": "array", "items": {"type": "object", "required": ["name"],
        "properties": {"name": {"type": "string"}, "value": {"type": "integer"}}}});
    if !atomic {
        items["x-kubernetes-list-type"] = json!("map");
        items["x-kubernetes-list-map-keys"] = json!(["name"]);
    }
    let schema = json!({"type": "object", "properties": {
        "spec": {"type": "object", "properties": {"items": items}}}});
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.reconcile.example.com"},
        "spec": {
            "group": "reconcile.example.com",
            "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget",
                      "listKind": "WidgetList"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                          "schema": {"openAPIV3Schema": schema}}]
        }
    })
    .to_string()
}

/// A dev server serving only the list-map CRD, from a file the test rewrites later.
fn serve() -> (Server, PathBuf) {
    let dir = tempfile::tempdir().unwrap().keep();
    let file = dir.join("crds.yaml");
    std::fs::write(&file, crd(false)).unwrap();
    let server = Server::start_with(&["--crd-dir", file.to_str().unwrap()]);
    (server, file)
}

/// The list made atomic, then the server restarted on the same data.
fn make_items_atomic(server: Server, file: &PathBuf) -> Server {
    std::fs::write(file, crd(true)).unwrap();
    server.restart()
}

fn widget(name: &str, items: Value) -> Value {
    json!({"apiVersion": "reconcile.example.com/v1", "kind": "Widget",
           "metadata": {"name": name}, "spec": {"items": items}})
}

async fn apply(server: &Server, name: &str, manager: &str, body: &Value) -> (u16, Value) {
    let url = server.url(&format!("{WIDGETS}/{name}?fieldManager={manager}"));
    let resp = server
        .client()
        .patch(url)
        .header("content-type", "application/apply-patch+yaml")
        .body(body.to_string())
        .send()
        .await
        .expect("request");
    let code = resp.status().as_u16();
    (code, resp.json().await.expect("JSON body"))
}

/// managedFields without their times.
fn entries(object: &Value) -> Vec<Value> {
    let list = object["metadata"]["managedFields"]
        .as_array()
        .unwrap_or_else(|| panic!("no managedFields: {object}"));
    list.iter()
        .map(|e| {
            let mut e = e.clone();
            e.as_object_mut().unwrap().remove("time");
            e
        })
        .collect()
}

fn time_of(object: &Value, manager: &str) -> Value {
    let list = object["metadata"]["managedFields"].as_array().unwrap();
    let found = list.iter().find(|e| e["manager"] == manager).unwrap();
    found["time"].clone()
}

fn entry(manager: &str, operation: &str, fields: Value) -> Value {
    json!({"apiVersion": "reconcile.example.com/v1", "fieldsType": "FieldsV1",
           "fieldsV1": fields, "manager": manager, "operation": operation})
}

fn owns_items() -> Value {
    json!({"f:spec": {"f:items": {}}})
}

/// Two appliers of items `a` and `b` of `name`; returns the object after both.
async fn two_appliers(server: &Server, name: &str) -> Value {
    let a = widget(name, json!([{"name": "a", "value": 1}]));
    let (code, _) = apply(server, name, "one", &a).await;
    assert_eq!(code, 201);
    let b = widget(name, json!([{"name": "b", "value": 2}]));
    let (code, object) = apply(server, name, "two", &b).await;
    assert_eq!(code, 200, "{object}");
    let item =
        |key: &str| json!({"f:spec": {"f:items": {key: {".": {}, "f:name": {}, "f:value": {}}}}});
    assert_eq!(
        entries(&object),
        vec![
            entry("one", "Apply", item(r#"k:{"name":"a"}"#)),
            entry("two", "Apply", item(r#"k:{"name":"b"}"#)),
        ]
    );
    object
}

#[tokio::test]
async fn list_map_made_atomic_apply_gives_earlier_managers_the_whole_list() {
    let (server, file) = serve();
    let before = two_appliers(&server, "w1").await;
    let server = make_items_atomic(server, &file);

    // The same list applied again changes nothing but the recorded ownership.
    let both = json!([{"name": "a", "value": 1}, {"name": "b", "value": 2}]);
    let (code, object) = apply(&server, "w1", "one", &widget("w1", both)).await;
    assert_eq!(code, 200, "{object}");
    assert_eq!(
        entries(&object),
        vec![
            entry("one", "Apply", owns_items()),
            entry("two", "Apply", owns_items()),
        ]
    );
    // An apply that leaves the object as it was keeps the entries' times.
    for manager in ["one", "two"] {
        assert_eq!(time_of(&object, manager), time_of(&before, manager));
    }

    let other = widget("w1", json!([{"name": "b", "value": 3}]));
    let (code, status) = apply(&server, "w1", "two", &other).await;
    assert_eq!(code, 409, "{status}");
    assert_eq!(
        status["message"],
        "Apply failed with 1 conflict: conflict with \"one\": .spec.items"
    );
    assert_eq!(
        status["details"]["causes"],
        json!([{"reason": "FieldManagerConflict", "message": "conflict with \"one\"",
                "field": ".spec.items"}])
    );
}

#[tokio::test]
async fn list_map_made_atomic_update_gives_earlier_managers_the_whole_list() {
    let (server, file) = serve();
    two_appliers(&server, "w2").await;
    let server = make_items_atomic(server, &file);

    let url = server.url(&format!("{WIDGETS}/w2?fieldManager=three"));
    let resp = server
        .client()
        .patch(url)
        .header("content-type", "application/merge-patch+json")
        .body(json!({"metadata": {"labels": {"x": "y"}}}).to_string())
        .send()
        .await
        .expect("request");
    assert_eq!(resp.status().as_u16(), 200);
    let object: Value = resp.json().await.expect("JSON body");
    let labels = json!({"f:metadata": {"f:labels": {".": {}, "f:x": {}}}});
    assert_eq!(
        entries(&object),
        vec![
            entry("one", "Apply", owns_items()),
            entry("two", "Apply", owns_items()),
            entry("three", "Update", labels),
        ]
    );
}
