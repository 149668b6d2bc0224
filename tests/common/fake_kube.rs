//! A fake kube-apiserver for the delegated authentication and authorization tests:
//! HTTPS on 127.0.0.1:0 with its own CA, speaking the real wire format for
//! - `GET` (list by field selector, get, and `?watch=1`) of
//!   `kube-system/extension-apiserver-authentication`, whose changes are watch events;
//! - `POST` TokenReview (`authentication.k8s.io/v1`) answered from a token table;
//! - `POST` SubjectAccessReview (`authorization.k8s.io/v1`) answered by a scripted policy;
//! - `GET` (list, get, watch) of namespaces that tests add, terminate, label and delete
//!   (`fake_kube_namespaces.rs`);
//! - `GET` (list, get, watch) of objects of any kind that tests put and delete
//!   (`fake_kube_collections.rs`, answered by `fake_kube_queries.rs`):
//!   Mutating/ValidatingWebhookConfigurations (`fake_kube_webhooks.rs` names them),
//!   Validating/MutatingAdmissionPolicies and their bindings, ConfigMaps and other param
//!   kinds, with the discovery documents listing them;
//! - writes on those collections (`fake_kube_writes.rs`: create, update, merge/JSON/apply
//!   patches with managedFields, delete, `/status`, dry-run), the host kinds of crd-apiserver's
//!   registration and offload (`fake_kube_host.rs`: APIServices, Secrets, Events, Leases, CRDs
//!   and their custom resources) and an emulation of its offload fence (`fake_kube_fence.rs`);
//! - `POST` SelfSubjectReview and a request log (`fake_kube_users.rs`), and forwarding of
//!   path prefixes to other servers (`fake_kube_forward.rs`);
//!
//! and recording every review it gets. Clients must present a known bearer token: the
//! kubeconfig's ([`SERVICE_ACCOUNT_TOKEN`]), as the server's service account would, or one
//! a test adds ([`FakeKube::add_user`]).
//!
//! Use with `mod common;` and `#[path = "common/fake_kube.rs"] mod fake_kube;`; the
//! server fixture is [`delegated::Delegated`], the HTTP side is in `fake_kube_wire.rs`.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "fake_kube_collections.rs"]
pub mod collections;
#[path = "delegated.rs"]
pub mod delegated;
#[path = "fake_kube_discovery.rs"]
mod discovery;
#[path = "fake_kube_errors.rs"]
pub mod errors;
#[path = "fake_kube_fence.rs"]
pub mod fence;
#[path = "fake_kube_fields.rs"]
pub mod fields;
#[path = "fake_kube_forward.rs"]
pub mod forward;
#[path = "fake_kube_host.rs"]
pub mod host;
#[path = "fake_kube_namespaces.rs"]
pub mod namespaces;
#[path = "fake_kube_queries.rs"]
mod queries;
#[path = "fake_kube_users.rs"]
pub mod users;
#[path = "fake_kube_webhooks.rs"]
pub mod webhooks;
#[path = "fake_kube_wire.rs"]
mod wire;
#[path = "fake_kube_write_core.rs"]
pub mod write_core;
#[path = "fake_kube_writes.rs"]
mod writes;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use base64::Engine;
use crd_apiserver::server::pki::{self, Authority, Leaf};
use serde_json::{Value, json};
use tokio::sync::{broadcast, oneshot};

/// The credential of the server under test in the fake's kubeconfig.
pub const SERVICE_ACCOUNT_TOKEN: &str = "crd-apiserver-service-account-token";
const CONFIGMAPS: &str = "/api/v1/namespaces/kube-system/configmaps";
const NAME: &str = "extension-apiserver-authentication";

/// A SubjectAccessReview answer.
#[derive(Clone, Debug)]
pub struct Decision {
    pub allowed: bool,
    pub denied: bool,
    pub reason: String,
}

impl Decision {
    pub fn allow(reason: &str) -> Decision {
        Decision {
            allowed: true,
            denied: false,
            reason: reason.into(),
        }
    }
    pub fn deny(reason: &str) -> Decision {
        Decision {
            allowed: false,
            denied: true,
            reason: reason.into(),
        }
    }
    pub fn no_opinion(reason: &str) -> Decision {
        Decision {
            allowed: false,
            denied: false,
            reason: reason.into(),
        }
    }
}

type Policy = Box<dyn Fn(&Value) -> Decision + Send + Sync>;

struct State {
    configmap: Option<BTreeMap<String, String>>,
    revision: u64,
    /// Watch event lines with their revision.
    history: Vec<(u64, String)>,
    /// token → TokenReview `status.user`.
    tokens: BTreeMap<String, Value>,
    token_reviews: Vec<String>,
    access_reviews: Vec<Value>,
    configmap_requests: usize,
    policy: Policy,
}

struct Shared {
    state: Mutex<State>,
    events: broadcast::Sender<(u64, String)>,
    namespaces: namespaces::Namespaces,
    collections: collections::Collections,
    users: users::Users,
    forwards: forward::Forwards,
}

/// A running fake; stopped on drop.
pub struct FakeKube {
    pub addr: SocketAddr,
    /// The CA of its serving certificate (PEM).
    pub ca_pem: String,
    pub dir: tempfile::TempDir,
    shared: Arc<Shared>,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl FakeKube {
    /// Starts with no ConfigMap, no tokens, and a policy that allows everything.
    pub fn start() -> FakeKube {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let dir = tempfile::tempdir().unwrap();
        let ca = pki::new_authority("fake-kube-apiserver-ca").unwrap();
        let serving = ca
            .issue(Leaf::Serving {
                hosts: &["127.0.0.1", "localhost"],
            })
            .unwrap();
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let addr = listener.local_addr().unwrap();
        write_kubeconfig(dir.path(), addr, &ca.pem.cert);
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                configmap: None,
                revision: 100,
                history: Vec::new(),
                tokens: BTreeMap::new(),
                token_reviews: Vec::new(),
                access_reviews: Vec::new(),
                configmap_requests: 0,
                policy: Box::new(|_| Decision::allow("")),
            }),
            events: broadcast::channel(64).0,
            namespaces: Default::default(),
            collections: Default::default(),
            users: Default::default(),
            forwards: Default::default(),
        });
        let config = wire::tls_config(&serving);
        let (stop, stopped) = oneshot::channel();
        let served = shared.clone();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(wire::serve(listener, config, served, stopped));
        });
        FakeKube {
            addr,
            ca_pem: ca.pem.cert.clone(),
            dir,
            shared,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    /// `https://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("https://{}", self.addr)
    }

    /// A kubeconfig pointing at this fake (CA pinned, bearer token).
    pub fn kubeconfig(&self) -> PathBuf {
        self.dir.path().join("kubeconfig")
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.shared.state.lock().unwrap()
    }

    /// Creates, replaces (`Some`) or deletes (`None`) the ConfigMap; watchers see the event.
    pub fn set_configmap(&self, data: Option<BTreeMap<String, String>>) {
        let mut state = self.state();
        let kind = match (&state.configmap, &data) {
            (None, Some(_)) => "ADDED",
            (Some(_), Some(_)) => "MODIFIED",
            (Some(_), None) => "DELETED",
            (None, None) => return,
        };
        state.revision += 1;
        let rv = state.revision;
        let shown = data
            .clone()
            .or_else(|| state.configmap.clone())
            .unwrap_or_default();
        let line = format!(
            "{}\n",
            json!({"type": kind, "object": wire::configmap(&shown, rv)})
        );
        state.configmap = data;
        state.history.push((rv, line.clone()));
        let _ = self.shared.events.send((rv, line));
    }

    /// A token TokenReview accepts, with its `status.user` (`username`, `uid`, `groups`, `extra`).
    pub fn add_token(&self, token: &str, user: Value) {
        self.state().tokens.insert(token.into(), user);
    }

    /// The SubjectAccessReview policy, given each review's `spec`.
    pub fn set_policy(&self, policy: impl Fn(&Value) -> Decision + Send + Sync + 'static) {
        self.state().policy = Box::new(policy);
    }

    /// Tokens of the TokenReviews received, in order.
    pub fn token_reviews(&self) -> Vec<String> {
        self.state().token_reviews.clone()
    }

    /// Specs of the SubjectAccessReviews received, in order.
    pub fn access_reviews(&self) -> Vec<Value> {
        self.state().access_reviews.clone()
    }

    pub fn clear_reviews(&self) {
        let mut state = self.state();
        state.token_reviews.clear();
        state.access_reviews.clear();
    }

    /// How many ConfigMap list/get/watch calls were made.
    pub fn configmap_requests(&self) -> usize {
        self.state().configmap_requests
    }
}

impl Drop for FakeKube {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The ConfigMap data kube-apiserver writes for a front proxy (kubeadm's header names).
pub fn front_proxy_data(
    requestheader_ca_pem: &str,
    allowed_names: &[&str],
) -> BTreeMap<String, String> {
    let list = |v: &[&str]| serde_json::to_string(v).unwrap();
    [
        (
            "requestheader-client-ca-file",
            requestheader_ca_pem.to_string(),
        ),
        ("requestheader-allowed-names", list(allowed_names)),
        ("requestheader-username-headers", list(&["X-Remote-User"])),
        ("requestheader-group-headers", list(&["X-Remote-Group"])),
        (
            "requestheader-extra-headers-prefix",
            list(&["X-Remote-Extra-"]),
        ),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

/// Writes a client certificate `CN=cn, O=groups` signed by `ca` into `dir` and returns
/// the absolute paths of the certificate and key.
pub fn client_pair(
    dir: &Path,
    ca: &Authority,
    name: &str,
    cn: &str,
    groups: &[&str],
) -> (String, String) {
    let leaf = ca.issue(Leaf::Client { user: cn, groups }).unwrap();
    let (cert, key) = pki::write_pair(dir, name, &leaf).unwrap();
    (cert.display().to_string(), key.display().to_string())
}

fn write_kubeconfig(dir: &Path, addr: SocketAddr, ca_pem: &str) {
    let ca = base64::engine::general_purpose::STANDARD.encode(ca_pem);
    let text = format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: fake\n  cluster:\n    server: https://{addr}\n    certificate-authority-data: {ca}\nusers:\n- name: crd-apiserver\n  user:\n    token: {SERVICE_ACCOUNT_TOKEN}\ncontexts:\n- name: fake\n  context:\n    cluster: fake\n    user: crd-apiserver\ncurrent-context: fake\n"
    );
    std::fs::write(dir.join("kubeconfig"), text).unwrap();
}
