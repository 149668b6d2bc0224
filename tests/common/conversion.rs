//! The webhook conversion tests' fixture (tests/conversion_*.rs): the stub converter
//! (stub_converter.rs), a real etcd and the real server serving two-version definitions
//! of group `conversion.example.com` whose `spec.conversion` calls one converter path
//! each; v1 is stored, v2 adds `spec.shape` (the stub keeps it in v1's annotation
//! `convert.example.com/shape`). Reads the stored bytes straight from etcd while the
//! server runs, and watches line by line.
//!
//! A test file includes it with `mod common;`, `#[path = "common/etcd.rs"] mod etcd;`,
//! `#[path = "common/stub_converter.rs"] mod stub_converter;` and
//! `#[path = "common/webhook.rs"] mod webhook;`.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;
use std::time::Duration;

use crd_apiserver::storage::Store;
use futures::StreamExt;
use serde_json::{Value, json};

use crate::common::Server;
use crate::etcd::Etcd;
use crate::stub_converter::StubConverter;

pub const GROUP: &str = "conversion.example.com";
pub const V1: &str = "conversion.example.com/v1";
pub const V2: &str = "conversion.example.com/v2";
/// `Accept` of a Table.
pub const TABLE: &str = "application/json;as=Table;v=v1;g=meta.k8s.io";
/// `Accept` of PartialObjectMetadata(List).
pub const PARTIAL: &str = "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io";
/// `Accept` of PartialObjectMetadataList.
pub const PARTIAL_LIST: &str = "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io";
/// How long a test waits for a watch event.
pub const WITHIN: Duration = Duration::from_secs(20);

/// A definition served by the fixture: its plural, its kind and the converter path its
/// `spec.conversion` calls.
#[derive(Clone, Copy, Debug)]
pub struct Served {
    pub plural: &'static str,
    pub kind: &'static str,
    pub path: &'static str,
}

/// The converter, etcd and the server (etcd first: dropped last).
pub struct Fixture {
    pub server: Server,
    pub converter: StubConverter,
    pub etcd: Etcd,
    store: Arc<dyn Store>,
    _dir: tempfile::TempDir,
}

impl Fixture {
    /// Serves `served` (one definition each) on etcd.
    pub async fn start(served: &[Served]) -> Fixture {
        let converter = StubConverter::start();
        let etcd = Etcd::start();
        let dir = tempfile::tempdir().unwrap();
        for s in served {
            let file = dir.path().join(format!("{}.json", s.plural));
            std::fs::write(&file, definition(&converter, s).to_string()).unwrap();
        }
        let crds = dir.path().to_str().unwrap();
        let server = Server::start_with(&["--crd-dir", crds, "--etcd-servers", &etcd.endpoint]);
        let store = etcd.store().await;
        Fixture {
            server,
            converter,
            etcd,
            store,
            _dir: dir,
        }
    }

    /// The collection (`name` None) or object URL of `plural` at `version`.
    pub fn url(&self, plural: &str, version: &str, name: Option<&str>) -> String {
        let path = format!("/apis/{GROUP}/{version}/namespaces/default/{plural}");
        match name {
            Some(name) => self.server.url(&format!("{path}/{name}")),
            None => self.server.url(&path),
        }
    }

    /// The object's bytes as etcd holds them, parsed; None when absent.
    pub async fn stored(&self, plural: &str, name: &str) -> Option<Value> {
        let key = format!("/registry/{GROUP}/{plural}/default/{name}");
        let kv = self.store.get(&key).await.unwrap()?;
        Some(serde_json::from_slice(&kv.value).unwrap())
    }

    /// Creates `name` at the storage version v1 (no conversion) with `spec`.
    pub async fn create_v1(&self, plural: &str, kind: &str, name: &str, spec: Value) -> Value {
        let body = object(V1, kind, name, spec);
        let (code, created) = send(
            self.server
                .client()
                .post(self.url(plural, "v1", None))
                .json(&body),
        )
        .await;
        assert_eq!(code, 201, "{created}");
        created
    }

    /// Opens a watch of `plural` at `version` with the query `query` (e.g.
    /// `resourceVersion=0`).
    pub async fn watch(&self, plural: &str, version: &str, query: &str) -> Watch {
        let url = format!("{}?watch=1&{query}", self.url(plural, version, None));
        let resp = self.server.client().get(url).send().await.unwrap();
        assert_eq!(resp.status(), 200);
        Watch {
            stream: resp.bytes_stream().boxed(),
            buffer: Vec::new(),
        }
    }

    /// `apiserver_conversion_webhook_request_total{failure_type="",result="success"}`.
    pub async fn successes(&self) -> u64 {
        let text = self.server.metrics().await;
        let line =
            r#"apiserver_conversion_webhook_request_total{failure_type="",result="success"} "#;
        text.lines()
            .find_map(|l| l.strip_prefix(line))
            .map_or(0, |n| n.parse().unwrap())
    }
}

/// An object of the fixture's kinds.
pub fn object(api_version: &str, kind: &str, name: &str, spec: Value) -> Value {
    json!({"apiVersion": api_version, "kind": kind,
        "metadata": {"name": name, "namespace": "default"}, "spec": spec})
}

/// Sends a request: its status code and JSON body (Null when not JSON).
pub async fn send(req: reqwest::RequestBuilder) -> (u16, Value) {
    let resp = req.send().await.unwrap();
    let code = resp.status().as_u16();
    (code, resp.json().await.unwrap_or(Value::Null))
}

/// kube's answer to a failed conversion (hack/conversion-oracle FINDINGS §1).
pub fn failure(message: &str) -> Value {
    json!({"apiVersion": "v1", "code": 500, "kind": "Status", "message": message,
        "metadata": {}, "status": "Failure"})
}

/// A watch read event by event.
pub struct Watch {
    stream: futures::stream::BoxStream<'static, reqwest::Result<bytes::Bytes>>,
    buffer: Vec<u8>,
}

impl Watch {
    /// The next event; None when the server ended the watch. Fails after [`WITHIN`].
    pub async fn next(&mut self) -> Option<Value> {
        loop {
            if let Some(end) = self.buffer.iter().position(|b| *b == b'\n') {
                let line: Vec<u8> = self.buffer.drain(..=end).collect();
                return Some(serde_json::from_slice(&line).unwrap());
            }
            let chunk = tokio::time::timeout(WITHIN, self.stream.next()).await;
            match chunk.expect("a watch event in time") {
                Some(Ok(bytes)) => self.buffer.extend_from_slice(&bytes),
                Some(Err(_)) | None => return None,
            }
        }
    }

    /// The next event, which must come: (type, object).
    pub async fn event(&mut self) -> (String, Value) {
        let event = self.next().await.expect("the watch ended");
        (
            event["type"].as_str().unwrap().into(),
            event["object"].clone(),
        )
    }
}

/// The definition of `served`: v1 (storage) with `spec.color`, `spec.replicas`, v2 adding
/// `spec.shape`; status and scale subresources; a printer column per version.
pub fn definition(converter: &StubConverter, served: &Served) -> Value {
    let version = |name: &str, column: (&str, &str)| {
        let mut spec = json!({"color": {"type": "string"}, "replicas": {"type": "integer"}});
        if name == "v2" {
            spec["shape"] = json!({"type": "string"});
        }
        json!({"name": name, "served": true, "storage": name == "v1",
            "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                "spec": {"type": "object", "properties": spec},
                "status": {"type": "object", "properties": {"replicas": {"type": "integer"}}}}}},
            "subresources": {"status": {}, "scale": {
                "specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"}},
            "additionalPrinterColumns": [{"name": column.0, "type": "string", "jsonPath": column.1}]})
    };
    json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("{}.{GROUP}", served.plural)},
        "spec": {"group": GROUP, "scope": "Namespaced",
            "names": {"plural": served.plural, "kind": served.kind,
                "singular": served.kind.to_ascii_lowercase(),
                "listKind": format!("{}List", served.kind)},
            "versions": [version("v1", ("Color", ".spec.color")),
                version("v2", ("Shape", ".spec.shape"))],
            "conversion": converter.conversion(served.path, &["v1"])}})
}
