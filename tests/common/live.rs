//! Shared by tests/live_catalog.rs and tests/restore.rs: the real server in dev mode run
//! in this process (over real TLS on 127.0.0.1:0) through `server::run::run_with`, with
//! its live definitions and handlers' state at hand, and the host's widgets definition.
//!
//! Use with `mod common;` and `#[path = "common/live.rs"] mod live;`.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::Parser;
use crd_apiserver::config::{Cli, Command};
use crd_apiserver::crd::live::Definitions;
use crd_apiserver::handlers::AppState;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use serde_json::{Value, json};

pub const WIDGETS: &str = "/apis/host.example.com/v1/namespaces/default/widgets";
pub const NAME: &str = "widgets.host.example.com";
pub const KEY_PREFIX: &str = "/registry/host.example.com/widgets/default/";
pub const WITHIN: Duration = Duration::from_secs(20);

/// A server running in this process.
pub struct Live {
    pub addr: std::net::SocketAddr,
    pub pki: PathBuf,
    pub definitions: Arc<Definitions>,
    pub state: Arc<AppState>,
    _dir: tempfile::TempDir,
}

impl Live {
    /// Dev mode (the example CRDs) with `extra` flags.
    pub async fn start(extra: &[String]) -> Live {
        let dir = tempfile::tempdir().unwrap();
        let pki = dir.path().join("pki");
        let mut args: Vec<String> = ["crd-apiserver", "dev", "--secure-port", "0"]
            .map(String::from)
            .into();
        args.push(format!("--dev-pki-dir={}", pki.display()));
        args.push(format!("--data-dir={}", dir.path().join("data").display()));
        args.extend(extra.iter().cloned());
        let Some(Command::Dev(flags)) = Cli::try_parse_from(args).unwrap().command else {
            panic!("dev flags")
        };
        let (flags, dev) = crd_apiserver::server::dev::prepare(*flags).unwrap();
        let (tx, rx) = tokio::sync::oneshot::channel();
        tokio::spawn(async move {
            let ran = crd_apiserver::server::run::run_with(flags, move |listening| {
                dev.write_kubeconfig(listening.addr).unwrap();
                let _ = tx.send(listening);
            })
            .await;
            if let Err(e) = ran {
                eprintln!("server: {e}");
            }
        });
        let listening = rx.await.expect("the server starts");
        Live {
            addr: listening.addr,
            pki,
            definitions: listening.definitions,
            state: listening.state,
            _dir: dir,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("https://{}{path}", self.addr)
    }

    pub fn client(&self) -> reqwest::Client {
        crate::common::client_with(&self.pki, Some(("admin.crt", "admin.key")))
    }

    pub async fn get(&self, path: &str) -> (u16, Value) {
        send(self.client().get(self.url(path))).await
    }

    pub async fn kubectl(&self, args: &[&str]) -> std::process::Output {
        let kubeconfig = self.pki.join("kubeconfig");
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        tokio::task::spawn_blocking(move || {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            crate::common::kubectl_at(&kubeconfig, &args)
        })
        .await
        .unwrap()
    }

    pub async fn metrics(&self) -> String {
        self.client()
            .get(self.url("/metrics"))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap()
    }

    /// The served resource of the widgets definition now.
    pub fn widgets(&self) -> Arc<crd_apiserver::crd::catalog::ServedResource> {
        let catalog = self.definitions.current();
        let found = catalog.resources().iter().find(|r| r.crd_name == NAME);
        found.expect("widgets served").clone()
    }
}

pub async fn send(req: reqwest::RequestBuilder) -> (u16, Value) {
    let resp = req.send().await.unwrap();
    let code = resp.status().as_u16();
    let text = resp.text().await.unwrap();
    (
        code,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

/// The host's `widgets.host.example.com`, `spec.color` a string of at most `max` bytes.
pub fn widgets_crd(max: u32) -> CustomResourceDefinition {
    serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": NAME, "uid": "crd-uid-1", "resourceVersion": "9"},
        "spec": {
            "group": "host.example.com",
            "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "subresources": {"status": {}},
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                    "spec": {"type": "object", "properties": {
                        "color": {"type": "string", "maxLength": max,
                            "description": "The widget's paint colour."}}},
                    "status": {"type": "object", "properties": {"phase": {"type": "string"}}}}}}}],
        },
    }))
    .unwrap()
}
