//! Declarative conversion end to end (issue 32 point 9): a two-version definition whose
//! annotation `conversion.crd-apiserver.io/declarative` moves `spec.color` (v1) to
//! `spec.paint.color` (v2, the storage version) and keeps v2's `spec.paint.finish` in an
//! annotation at v1, served by the real server; and a lossy annotation that stops
//! start-up.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{Server, json_of};
use crd_apiserver::storage::Store;
use crd_apiserver::storage::embedded::EmbeddedStore;
use serde_json::{Value, json};

const V1: &str = "/apis/example.com/v1/namespaces/default/widgets";
const V2: &str = "/apis/example.com/v2/namespaces/default/widgets";
const FINISH: &str = "example.com/finish";

/// v1 → v2: color moves under paint, the finish kept at v1 comes back.
const V1_TO_V2: &str = r#"      - from: v1
        to: v2
        mappings:
        - move: spec.color
          to: spec.paint.color
        - move: metadata.annotations['example.com/finish']
          to: spec.paint.finish
"#;

/// v2 → v1: color back, the finish into an annotation.
const V2_TO_V1: &str = r#"      - from: v2
        to: v1
        mappings:
        - rename: spec.paint.color
          to: spec.color
        - move: spec.paint.finish
          to: metadata.annotations['example.com/finish']
"#;

/// The definition with these annotation entries.
fn definition(entries: &str) -> String {
    format!(
        r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
  annotations:
    conversion.crd-apiserver.io/declarative: |
{entries}spec:
  group: example.com
  scope: Namespaced
  names: {{plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}}
  conversion: {{strategy: None}}
  versions:
  - name: v1
    served: true
    storage: false
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              color: {{type: string}}
              size: {{type: integer}}
  - name: v2
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              paint:
                type: object
                properties:
                  color: {{type: string}}
                  finish: {{type: string}}
              size: {{type: integer}}
"#
    )
}

fn write_definition(dir: &std::path::Path, entries: &str) -> std::path::PathBuf {
    let file = dir.join("widgets.yaml");
    std::fs::write(&file, definition(entries)).unwrap();
    file
}

async fn send(req: reqwest::RequestBuilder) -> (u16, Value) {
    let resp = req.send().await.unwrap();
    let code = resp.status().as_u16();
    (code, resp.json().await.unwrap_or(Value::Null))
}

/// The object stored under `name`, read from the stopped server's data directory.
async fn stored(server: &mut Server, name: &str) -> Value {
    assert!(server.terminate().success());
    let store = EmbeddedStore::open(&server.data).unwrap();
    let key = format!("/registry/example.com/widgets/default/{name}");
    let kv = store.get(&key).await.unwrap().expect("stored object");
    serde_json::from_slice(&kv.value).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn declarative_two_versions_each_read_and_write_converted() {
    let dir = tempfile::tempdir().unwrap();
    let file = write_definition(dir.path(), &format!("{V1_TO_V2}{V2_TO_V1}"));
    let mut server = Server::start_with(&["--crd-dir", file.to_str().unwrap()]);
    let c = server.client();

    // Create at v1: the answer is at v1.
    let w1 = json!({"apiVersion": "example.com/v1", "kind": "Widget",
        "metadata": {"name": "w1"}, "spec": {"color": "red", "size": 3}});
    let (code, created) = send(c.post(server.url(V1)).json(&w1)).await;
    assert_eq!(code, 201, "{created}");
    assert_eq!(created["apiVersion"], "example.com/v1");
    assert_eq!(created["spec"], json!({"color": "red", "size": 3}));

    // Get and list at v2: mapped.
    let got = json_of(c.get(server.url(&format!("{V2}/w1")))).await;
    assert_eq!(got["apiVersion"], "example.com/v2");
    assert_eq!(got["kind"], "Widget");
    assert_eq!(got["spec"], json!({"paint": {"color": "red"}, "size": 3}));
    assert_eq!(got["metadata"]["uid"], created["metadata"]["uid"]);
    let list = json_of(c.get(server.url(V2))).await;
    assert_eq!(list["apiVersion"], "example.com/v2");
    assert_eq!(list["items"].as_array().unwrap().len(), 1, "{list}");
    assert_eq!(list["items"][0]["apiVersion"], "example.com/v2");
    assert_eq!(list["items"][0]["spec"], got["spec"]);

    // Write at v2 (a field v1 does not have), read at v1: kept in the annotation.
    let mut changed = got.clone();
    changed["spec"]["paint"]["finish"] = json!("glossy");
    changed["spec"]["size"] = json!(4);
    let (code, updated) = send(c.put(server.url(&format!("{V2}/w1"))).json(&changed)).await;
    assert_eq!(code, 200, "{updated}");
    assert_eq!(updated["apiVersion"], "example.com/v2");
    assert_eq!(
        updated["spec"],
        json!({"paint": {"color": "red", "finish": "glossy"}, "size": 4})
    );
    let at_v1 = json_of(c.get(server.url(&format!("{V1}/w1")))).await;
    assert_eq!(at_v1["apiVersion"], "example.com/v1");
    assert_eq!(at_v1["spec"], json!({"color": "red", "size": 4}));
    assert_eq!(at_v1["metadata"]["annotations"][FINISH], "glossy");

    // Written back at v1 unchanged, v2 still has its finish.
    let (code, replaced) = send(c.put(server.url(&format!("{V1}/w1"))).json(&at_v1)).await;
    assert_eq!(code, 200, "{replaced}");
    let again = json_of(c.get(server.url(&format!("{V2}/w1")))).await;
    assert_eq!(again["spec"], updated["spec"]);
    assert!(again["metadata"].get("annotations").is_none(), "{again}");

    // Our metric counted the objects converted each way.
    let metrics = server.metrics().await;
    for (from, to) in [("v1", "v2"), ("v2", "v1")] {
        let series = format!(
            "crd_apiserver_declarative_conversion_total{{resource=\"widgets.example.com\",from=\"{from}\",to=\"{to}\"}} "
        );
        let count: u64 = metrics
            .lines()
            .find_map(|l| l.strip_prefix(&series))
            .unwrap_or_else(|| panic!("no {series}in {metrics}"))
            .parse()
            .unwrap();
        assert!(count >= 2, "{series}{count}");
    }

    // Stored at the storage version, in its shape.
    let bytes = stored(&mut server, "w1").await;
    assert_eq!(bytes["apiVersion"], "example.com/v2");
    assert_eq!(
        bytes["spec"],
        json!({"paint": {"color": "red", "finish": "glossy"}, "size": 4})
    );
    assert!(bytes["metadata"].get("annotations").is_none(), "{bytes}");
}

#[test]
fn declarative_lossy_annotation_start_up_refused() {
    let dir = tempfile::tempdir().unwrap();
    // v2 → v1 forgets the finish: a v2 object read and written at v1 would lose it.
    let lossy = V2_TO_V1.replace(
        "        - move: spec.paint.finish\n          to: metadata.annotations['example.com/finish']\n",
        "",
    );
    assert_ne!(lossy, V2_TO_V1);
    let file = write_definition(dir.path(), &format!("{V1_TO_V2}{lossy}"));
    let (code, stderr) = run_until_exit(&file, dir.path());
    assert_eq!(code, Some(64), "{stderr}");
    assert!(
        stderr.contains(
            "annotation conversion.crd-apiserver.io/declarative: the round trip v2 → v1 → v2 loses spec.paint.finish"
        ),
        "{stderr}"
    );
}

/// Runs the server (not dev mode) on the definitions at `crds`; its exit code and
/// stderr. A server still running after 60 s (it accepted the definitions) is killed and
/// fails the test.
fn run_until_exit(crds: &std::path::Path, dir: &std::path::Path) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_crd-apiserver"))
        .arg("--crd-dir")
        .arg(crds)
        .args(["--secure-port", "0", "--bind-address", "127.0.0.1"])
        .arg("--data-dir")
        .arg(dir.join("data"))
        .arg("--cert-dir")
        .arg(dir.join("certs"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("the server started on a lossy annotation");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    (status.code(), stderr)
}
