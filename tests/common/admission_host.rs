//! A dev server whose cluster (`--kubeconfig`) is the fake core API serving webhook
//! configurations that point at the Rust test webhook, for the admission integration tests
//! (tests/admission_bad_input.rs, tests/kubectl_admission.rs): configuration and hook
//! builders in kube's wire format, requests answered as {code, warnings, body}, and the
//! stored object read back.
//!
//! Builds on tests/common/webhook_host.rs (answers, configurations, CRONTABS). Use with
//! `mod common;`, `#[path = "common/fake_kube.rs"] mod fake_kube;`,
//! `#[path = "common/webhook.rs"] mod webhook;`, `#[path = "common/webhook_host.rs"] mod
//! webhook_host;` and `#[path = "common/admission_host.rs"] mod admission_host;`.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use base64::Engine;
use serde_json::{Value, json};

use crate::common::Server;
use crate::fake_kube::{FakeKube, client_pair, front_proxy_data};
use crate::webhook::Webhook;
use crd_apiserver::server::pki;

pub use crate::webhook_host::{Answer, CRONTABS, mutating, validating};

/// The server, its fake cluster and the webhook the configurations call.
pub struct Host {
    pub server: Server,
    pub fake: FakeKube,
    pub hook: Webhook,
}

impl Host {
    /// Starts the webhook, the fake serving `configurations(&webhook)`, then the server
    /// on the admission CRDs (which lists the configurations before its first write).
    pub fn start(configurations: impl FnOnce(&Webhook) -> Vec<Value>) -> Host {
        Host::start_with(configurations, &[])
    }

    /// As [`Host::start`] with extra server flags.
    pub fn start_with(configurations: impl FnOnce(&Webhook) -> Vec<Value>, extra: &[&str]) -> Host {
        let hook = Webhook::start(&[]);
        let fake = FakeKube::start();
        for configuration in configurations(&hook) {
            fake.put_webhook_configuration(configuration);
        }
        Host::serve(hook, fake, extra)
    }

    /// As [`Host::start`], the server also authenticating and authorizing through the fake
    /// (`--authentication-kubeconfig`, `--authorization-kubeconfig`): the fake announces
    /// a front proxy CA, [`Host::proxied`] sends as any user, and every non-admin request
    /// and authorizer check is a SubjectAccessReview under the fake's policy.
    pub fn start_delegated(configurations: impl FnOnce(&Webhook) -> Vec<Value>) -> (Host, Proxy) {
        let hook = Webhook::start(&[]);
        let fake = FakeKube::start();
        for configuration in configurations(&hook) {
            fake.put_webhook_configuration(configuration);
        }
        let ca = pki::new_authority("front-proxy-ca").unwrap();
        fake.set_configmap(Some(front_proxy_data(
            &ca.pem.cert,
            &["front-proxy-client"],
        )));
        let kubeconfig = fake.kubeconfig().display().to_string();
        let flags = [
            "--authentication-kubeconfig",
            &kubeconfig,
            "--authorization-kubeconfig",
            &kubeconfig,
        ];
        let host = Host::serve(hook, fake, &flags);
        let certs = tempfile::tempdir().unwrap();
        let (cert, key) = client_pair(certs.path(), &ca, "proxy", "front-proxy-client", &[]);
        let client = crate::common::client_with(&host.server.pki, Some((&cert, &key)));
        (
            host,
            Proxy {
                client,
                _certs: certs,
            },
        )
    }

    fn serve(hook: Webhook, fake: FakeKube, extra: &[&str]) -> Host {
        let kubeconfig = fake.kubeconfig().display().to_string();
        let crds = crate::common::repo_root()
            .join("tests/fixtures/admission/crontabs.yaml")
            .display()
            .to_string();
        let mut flags = vec!["--kubeconfig", &kubeconfig, "--crd-dir", &crds];
        flags.extend_from_slice(extra);
        let server = Server::start_with(&flags);
        Host { server, fake, hook }
    }

    /// Sends `method path` with `body` (JSON) as the dev admin.
    pub async fn send(&self, method: http::Method, path: &str, body: Option<&Value>) -> Answer {
        self.send_typed(method, path, body, "application/json")
            .await
    }

    /// As [`Host::send`] with the body's content type.
    pub async fn send_typed(
        &self,
        method: http::Method,
        path: &str,
        body: Option<&Value>,
        content_type: &str,
    ) -> Answer {
        let mut req = self.server.client().request(method, self.server.url(path));
        if let Some(body) = body {
            req = req
                .header("content-type", content_type)
                .body(body.to_string());
        }
        answer(req.send().await.expect("an answer")).await
    }

    /// POSTs `object` to the default namespace's CronTabs.
    pub async fn create(&self, object: &Value) -> Answer {
        self.send(http::Method::POST, CRONTABS, Some(object)).await
    }

    /// The stored CronTab `name` of the default namespace, `None` when there is none.
    pub async fn stored(&self, name: &str) -> Option<Value> {
        let got = self
            .send(http::Method::GET, &format!("{CRONTABS}/{name}"), None)
            .await;
        match got.code {
            200 => Some(got.body),
            404 => None,
            other => panic!("GET {name}: {other} {}", got.body),
        }
    }

    /// A plain create of `name` answers 201 and stores it: the server is up and admits.
    pub async fn assert_serving(&self, name: &str) {
        let created = self.create(&crontab(name, &[])).await;
        assert_eq!(created.code, 201, "the next create: {}", created.body);
        assert!(self.stored(name).await.is_some(), "{name} stored");
    }
}

/// The front proxy of a [`Host::start_delegated`] server.
pub struct Proxy {
    client: reqwest::Client,
    _certs: tempfile::TempDir,
}

impl Proxy {
    /// POSTs `object` to the default namespace's CronTabs as `user` (group `devs`).
    pub async fn create_as(&self, host: &Host, user: &str, object: &Value) -> Answer {
        self.send_as(host, user, http::Method::POST, CRONTABS, Some(object))
            .await
    }

    /// Sends `method path` with `body` (JSON) as `user` (group `devs`).
    pub async fn send_as(
        &self,
        host: &Host,
        user: &str,
        method: http::Method,
        path: &str,
        body: Option<&Value>,
    ) -> Answer {
        let mut req = self
            .client
            .request(method, host.server.url(path))
            .header("X-Remote-User", user)
            .header("X-Remote-Group", "devs");
        if let Some(body) = body {
            req = req.json(body);
        }
        answer(req.send().await.expect("an answer")).await
    }
}

/// The answer as it came over the wire.
pub async fn answer(resp: reqwest::Response) -> Answer {
    crate::webhook_host::answer(resp).await.expect("a body")
}

/// A CronTab of the default namespace with these labels (none: no `labels` member).
pub fn crontab(name: &str, labels: &[(&str, &str)]) -> Value {
    let labels: serde_json::Map<String, Value> = labels
        .iter()
        .map(|(k, v)| (k.to_string(), json!(v)))
        .collect();
    let mut object = json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"cronSpec": "* * * * */5", "image": "img", "replicas": 1}});
    if !labels.is_empty() {
        object["metadata"]["labels"] = Value::Object(labels);
    }
    object
}

/// kube's `failurePolicy`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    Fail,
    Ignore,
}

impl Policy {
    pub fn as_str(self) -> &'static str {
        match self {
            Policy::Fail => "Fail",
            Policy::Ignore => "Ignore",
        }
    }
}

/// One webhook of a configuration, in kube's wire format: `name` calling `path` of the
/// test webhook for `operations` on `resources` of stable.example.com v1.
pub fn hook(
    webhook: &Webhook,
    name: &str,
    path: &str,
    policy: Policy,
    operations: &[&str],
    resources: &[&str],
) -> Value {
    let ca = base64::engine::general_purpose::STANDARD.encode(webhook.ca_pem());
    json!({"name": name, "admissionReviewVersions": ["v1"], "sideEffects": "None",
        "failurePolicy": policy.as_str(), "timeoutSeconds": 10,
        "clientConfig": {"url": webhook.url(path), "caBundle": ca},
        "rules": [{"apiGroups": ["stable.example.com"], "apiVersions": ["v1"],
            "operations": operations, "resources": resources, "scope": "*"}]})
}

/// `hook` with `key: value` set (e.g. `objectSelector`, `matchConditions`, `timeoutSeconds`).
pub fn with(mut hook: Value, key: &str, value: Value) -> Value {
    hook[key] = value;
    hook
}

/// An allowing answer carrying `ops` as a base64 JSONPatch of `patch_type`.
pub fn patch_answer(ops: &Value, patch_type: &str) -> Value {
    let patch = base64::engine::general_purpose::STANDARD.encode(ops.to_string());
    json!({"allowed": true, "patchType": patch_type, "patch": patch})
}
