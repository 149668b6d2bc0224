//! The admission webhook tests' host: crd-apiserver (the real binary, dev mode) whose
//! cluster (`--kubeconfig`) is the fake core API, serving the admission fixtures' CRDs
//! (tests/fixtures/admission/crontabs.yaml: a namespaced CronTab at v1 and v2 with status
//! and scale, a cluster-scoped Region); webhook configurations as kube-apiserver serves
//! them (every defaulted field present); and the answers read as they came over the wire.
//!
//! Use with `mod common;`, `#[path = "common/fake_kube.rs"] mod fake_kube;` and
//! `#[path = "common/webhook_host.rs"] mod webhook_host;`.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;

use base64::Engine;
use serde_json::{Value, json};

use crate::common::Server;
use crate::fake_kube::FakeKube;

/// The CronTabs of namespace `default` at v1.
pub const CRONTABS: &str = "/apis/stable.example.com/v1/namespaces/default/crontabs";

/// The admission fixtures' CRDs (a `--crd-dir`).
pub fn admission_crds() -> PathBuf {
    crate::common::repo_root().join("tests/fixtures/admission/crontabs.yaml")
}

/// Dev mode on the admission CRDs, following `fake`'s cluster, with `extra` flags.
pub fn start_server(fake: &FakeKube, extra: &[&str]) -> Server {
    let kubeconfig = fake.kubeconfig().display().to_string();
    let crds = admission_crds().display().to_string();
    let mut args = vec!["--kubeconfig", &kubeconfig, "--crd-dir", &crds];
    args.extend_from_slice(extra);
    Server::start_with(&args)
}

/// A `clientConfig` calling `url` and trusting the CA `ca_pem`.
pub fn url_config(url: &str, ca_pem: &str) -> Value {
    json!({"url": url, "caBundle": base64::engine::general_purpose::STANDARD.encode(ca_pem)})
}

/// A webhook as kube-apiserver serves it (defaults filled in): every operation on v1
/// `crontabs`, failurePolicy Fail, sideEffects None, timeoutSeconds 10, review `v1`.
pub fn hook(name: &str, client_config: Value) -> Value {
    json!({"name": name, "clientConfig": client_config,
        "rules": [{"operations": ["*"], "apiGroups": ["stable.example.com"],
            "apiVersions": ["v1"], "resources": ["crontabs"], "scope": "*"}],
        "failurePolicy": "Fail", "matchPolicy": "Equivalent",
        "namespaceSelector": {}, "objectSelector": {}, "sideEffects": "None",
        "timeoutSeconds": 10, "admissionReviewVersions": ["v1"]})
}

/// A ValidatingWebhookConfiguration `name` of `hooks`.
pub fn validating(name: &str, hooks: Vec<Value>) -> Value {
    json!({"kind": "ValidatingWebhookConfiguration", "metadata": {"name": name}, "webhooks": hooks})
}

/// A MutatingWebhookConfiguration `name` of `hooks` (reinvocationPolicy defaulted to Never).
pub fn mutating(name: &str, hooks: Vec<Value>) -> Value {
    let mut hooks = hooks;
    for hook in &mut hooks {
        if hook.get("reinvocationPolicy").is_none() {
            hook["reinvocationPolicy"] = json!("Never");
        }
    }
    json!({"kind": "MutatingWebhookConfiguration", "metadata": {"name": name}, "webhooks": hooks})
}

/// A CronTab `name` in `default` with `labels`.
pub fn crontab(name: &str, labels: &[(&str, &str)]) -> Value {
    let labels: serde_json::Map<String, Value> = labels
        .iter()
        .map(|(k, v)| (k.to_string(), json!(v)))
        .collect();
    json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
        "metadata": {"name": name, "namespace": "default", "labels": labels},
        "spec": {"cronSpec": "* * * * */5", "image": "my-cron-image"}})
}

/// One answer as it came over the wire.
#[derive(Debug)]
pub struct Answer {
    pub code: u16,
    /// The `Warning` headers, in order.
    pub warnings: Vec<String>,
    /// JSON, or the text as a string when it is not JSON.
    pub body: Value,
}

impl Answer {
    /// `(code, reason, message)` of a Status body.
    pub fn status(&self) -> (u16, &str, &str) {
        let text = |k: &str| self.body[k].as_str().unwrap_or_default();
        (self.code, text("reason"), text("message"))
    }
}

/// Reads `resp` into an [`Answer`].
pub async fn answer(resp: reqwest::Response) -> Result<Answer, String> {
    let code = resp.status().as_u16();
    let warnings = resp.headers().get_all("warning").iter();
    let warnings = warnings
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
        .collect();
    let text = resp.text().await.map_err(|e| e.to_string())?;
    let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
    Ok(Answer {
        code,
        warnings,
        body,
    })
}

/// POSTs `object` to [`CRONTABS`] (`query` appended, e.g. `?dryRun=All`) as the admin.
pub async fn create_with(server: &Server, query: &str, object: &Value) -> Answer {
    let url = server.url(&format!("{CRONTABS}{query}"));
    let resp = server.client().post(url).json(object).send().await.unwrap();
    answer(resp).await.unwrap()
}

/// POSTs `object` to [`CRONTABS`] as the admin.
pub async fn create(server: &Server, object: &Value) -> Answer {
    create_with(server, "", object).await
}

/// The stored CronTab `name` of `default`, if any.
pub async fn stored(server: &Server, name: &str) -> Option<Value> {
    let url = server.url(&format!("{CRONTABS}/{name}"));
    let resp = server.client().get(url).send().await.unwrap();
    match resp.status().as_u16() {
        200 => Some(resp.json().await.unwrap()),
        404 => None,
        code => panic!("GET {name}: {code}"),
    }
}

/// kube's answer to a denial by `webhook` with a 403 `message` (the webhook's status as is).
pub fn denial(webhook: &str, message: &str) -> Value {
    json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": format!("admission webhook \"{webhook}\" denied the request: {message}"),
        "reason": "Forbidden", "code": 403})
}
