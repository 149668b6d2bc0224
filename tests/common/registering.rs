//! Shared by tests/register.rs and tests/register_ca_secret.rs: the fake host cluster
//! (announcing a front-proxy CA, as kube-apiserver does) with a kube client, the server in
//! dev mode registering in it (each replica with its own `--cert-dir`), and our
//! APIServices as listed by the owner label.
//!
//! Use with `mod common;`, `#[path = "common/fake_kube.rs"] mod fake_kube;` and
//! `#[path = "common/registering.rs"] mod registering;`.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeSet;
use std::time::Duration;

use k8s_openapi::kube_aggregator::pkg::apis::apiregistration::v1::APIService;
use kube::api::{Api, ListParams};
use serde_json::{Value, json};

use crate::common::{Server, eventually};
use crate::fake_kube::{self, FakeKube};

pub const NAMESPACE: &str = "crd-test";
pub const OWNER: &str = "crd-test.crd-apiserver";
pub const DEADLINE: Duration = Duration::from_secs(30);
pub const SERVED: [&str; 3] = [
    "v1.example.org",
    "v1.stable.example.com",
    "v1beta1.example.org",
];

/// The fake host (announcing a front-proxy CA, as kube-apiserver does) and a client of it.
pub async fn host() -> (FakeKube, kube::Client) {
    let fake = FakeKube::start();
    let proxy_ca = crd_apiserver::server::pki::new_authority("front-proxy-ca").unwrap();
    fake.set_configmap(Some(fake_kube::front_proxy_data(
        &proxy_ca.pem.cert,
        &["front-proxy-client"],
    )));
    let client = kube_client(&fake).await;
    (fake, client)
}

pub async fn kube_client(fake: &FakeKube) -> kube::Client {
    let kubeconfig = kube::config::Kubeconfig::read_from(fake.kubeconfig()).unwrap();
    let config = kube::Config::from_custom_kubeconfig(kubeconfig, &Default::default())
        .await
        .unwrap();
    kube::Client::try_from(config).unwrap()
}

/// A server and its own `--cert-dir` (each replica writes its serving pair there; the
/// default is relative to the working directory, shared by every test).
pub struct Replica {
    pub server: Server,
    _cert_dir: tempfile::TempDir,
}

impl std::ops::Deref for Replica {
    type Target = Server;
    fn deref(&self) -> &Server {
        &self.server
    }
}

impl std::ops::DerefMut for Replica {
    fn deref_mut(&mut self) -> &mut Server {
        &mut self.server
    }
}

/// The server in dev mode registering in `fake`, with `extra` flags.
pub fn serve(fake: &FakeKube, extra: &[&str]) -> Replica {
    let mut args = vec!["--register-apiservices"];
    args.extend_from_slice(extra);
    replica(&fake.kubeconfig(), &args)
}

/// The server in dev mode with the cluster of `kubeconfig`.
pub fn replica(kubeconfig: &std::path::Path, extra: &[&str]) -> Replica {
    let kubeconfig = kubeconfig.display().to_string();
    let dir = tempfile::tempdir().unwrap();
    let cert_dir = dir.path().display().to_string();
    let mut args = vec![
        "--kubeconfig",
        &kubeconfig,
        "--service-namespace",
        NAMESPACE,
        "--cert-dir",
        &cert_dir,
    ];
    args.extend_from_slice(extra);
    Replica {
        server: Server::start_with(&args),
        _cert_dir: dir,
    }
}

/// A CA bundle file for `--apiservice-ca-file`.
pub fn ca_file(dir: &tempfile::TempDir) -> (String, Vec<u8>) {
    let ca = crd_apiserver::server::pki::new_authority("apiservice-ca").unwrap();
    let path = dir.path().join("ca.crt");
    std::fs::write(&path, &ca.pem.cert).unwrap();
    (path.display().to_string(), ca.pem.cert.into_bytes())
}

pub fn apiservices(client: &kube::Client) -> Api<APIService> {
    Api::all(client.clone())
}

/// Our APIServices by name, once all of [`SERVED`] are there.
pub async fn registered(client: &kube::Client) -> Vec<APIService> {
    let api = apiservices(client);
    eventually(DEADLINE, "our APIServices", || {
        let api = api.clone();
        async move {
            let params = ListParams::default().labels(&format!("crd-apiserver.io/service={OWNER}"));
            let items = api.list(&params).await.ok()?.items;
            let names: BTreeSet<String> = items
                .iter()
                .filter_map(|a| a.metadata.name.clone())
                .collect();
            (names == SERVED.iter().map(|s| s.to_string()).collect()).then_some(items)
        }
    })
    .await
}

pub fn spec_json(a: &APIService) -> Value {
    serde_json::to_value(a.spec.as_ref().unwrap()).unwrap()
}

/// An APIService of the name we would use, owned by someone else.
pub fn foreign(name: &str, labels: Value) -> APIService {
    let (version, group) = name.split_once('.').unwrap();
    serde_json::from_value(json!({
        "apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
        "metadata": {"name": name, "labels": labels},
        "spec": {"group": group, "version": version, "groupPriorityMinimum": 2000,
            "versionPriority": 7, "insecureSkipTLSVerify": true,
            "service": {"namespace": "elsewhere", "name": "theirs", "port": 8443}}
    }))
    .unwrap()
}
