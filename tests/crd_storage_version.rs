//! A storage version that is not served (kube allows it; `strategy: None`): objects are
//! written and read at the served version, stored at the storage version's apiVersion,
//! and read back from those bytes after a restart; the unserved version is not routed
//! nor discovered.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;

use common::{Server, json_of};
use crd_apiserver::storage::Store;
use crd_apiserver::storage::embedded::EmbeddedStore;
use crd_apiserver::storage::key::KeyLayout;
use serde_json::{Value, json};

const GROUP: &str = "storage.example.com";
const V2: &str = "/apis/storage.example.com/v2/namespaces/default/gadgets";

/// v1 stores and is not served; v2 is served. Same schema in both, as conversion
/// `None` only changes apiVersion.
const CRD: &str = r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.storage.example.com}
spec:
  group: storage.example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget}
  versions:
  - name: v1
    served: false
    storage: true
    schema: &schema
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              color: {type: string}
              size: {type: integer}
  - name: v2
    served: true
    storage: false
    schema: *schema
"#;

/// The object's bytes as the embedded store holds them (the server must be stopped).
async fn stored(data: &std::path::Path, name: &str) -> Value {
    let store = EmbeddedStore::open(data).unwrap();
    let key = KeyLayout::new("/registry").object_key(GROUP, "gadgets", Some("default"), name);
    let kv = store.get(&key).await.unwrap().expect("stored object");
    serde_json::from_slice(&kv.value).unwrap()
}

#[tokio::test]
async fn unserved_storage_version_stores_its_api_version_and_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("gadgets.yaml");
    std::fs::write(&file, CRD).unwrap();
    let mut server = Server::start_with(&["--crd-dir", file.to_str().unwrap()]);
    let c = server.client();

    let group: Value = json_of(c.get(server.url(&format!("/apis/{GROUP}")))).await;
    assert_eq!(group["versions"].as_array().unwrap().len(), 1, "{group}");
    assert_eq!(group["versions"][0]["version"], "v2");
    assert_eq!(group["preferredVersion"]["version"], "v2");
    let unserved = c.get(server.url("/apis/storage.example.com/v1/namespaces/default/gadgets"));
    assert_eq!(unserved.send().await.unwrap().status().as_u16(), 404);

    let body = json!({"apiVersion": "storage.example.com/v2", "kind": "Gadget",
                      "metadata": {"name": "g1"}, "spec": {"color": "red", "size": 3}});
    let resp = c.post(server.url(V2)).json(&body).send().await.unwrap();
    assert_eq!(resp.status().as_u16(), 201);
    let created: Value = resp.json().await.unwrap();
    assert_eq!(created["apiVersion"], "storage.example.com/v2");
    assert_eq!(created["spec"], json!({"color": "red", "size": 3}));

    let mut update = created.clone();
    update["spec"]["size"] = json!(4);
    let updated: Value = json_of(c.put(server.url(&format!("{V2}/g1"))).json(&update)).await;
    assert_eq!(updated["apiVersion"], "storage.example.com/v2");
    assert_eq!(updated["spec"]["size"], 4);
    let list: Value = json_of(c.get(server.url(V2))).await;
    assert_eq!(list["apiVersion"], "storage.example.com/v2");
    assert_eq!(list["items"][0]["apiVersion"], "storage.example.com/v2");
    assert_eq!(list["items"][0]["spec"], json!({"color": "red", "size": 4}));

    server.terminate();
    let bytes = stored(&server.data, "g1").await;
    assert_eq!(bytes["apiVersion"], "storage.example.com/v1", "{bytes}");
    assert_eq!(bytes["kind"], "Gadget");
    assert_eq!(bytes["spec"], json!({"color": "red", "size": 4}));
    assert!(
        bytes["metadata"].get("resourceVersion").is_none(),
        "{bytes}"
    );

    let server = server.start_again();
    let c = server.client();
    let read: Value = json_of(c.get(server.url(&format!("{V2}/g1")))).await;
    assert_eq!(read["apiVersion"], "storage.example.com/v2");
    assert_eq!(read["kind"], "Gadget");
    assert_eq!(read["spec"], json!({"color": "red", "size": 4}));
    assert_eq!(read["metadata"]["uid"], created["metadata"]["uid"]);
}
