//! Who calls the fake kube-apiserver: bearer tokens and their users (the kubeconfig's
//! [`SERVICE_ACCOUNT_TOKEN`] is [`SERVICE_ACCOUNT_USER`]; tests add others and get a
//! `kube::Client` for them), `POST` SelfSubjectReview (`authentication.k8s.io/v1`)
//! answering the caller's user, and the request log tests read to assert what was sent.

use std::collections::BTreeMap;
use std::sync::Mutex;

use axum::body::Body;
use http::{Response, StatusCode};
use serde_json::{Value, json};

use super::wire::reply;
use super::{FakeKube, SERVICE_ACCOUNT_TOKEN};

/// The kubeconfig token's user: the server's service account.
pub const SERVICE_ACCOUNT_USER: &str = "system:serviceaccount:default:crd-apiserver";
pub const SELF_SUBJECT_REVIEWS: &str = "/apis/authentication.k8s.io/v1/selfsubjectreviews";

/// One request the fake received.
#[derive(Clone, Debug, PartialEq)]
pub struct Logged {
    pub method: String,
    pub path: String,
    /// The raw query (percent-encoded as sent).
    pub query: String,
    pub user: String,
    pub content_type: String,
    pub body: String,
}

impl Logged {
    /// The body as JSON (`Null` when it is none).
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }
}

/// The callers and the log.
pub struct Users {
    /// token → `userInfo` (`username`, `uid`, `groups`).
    tokens: Mutex<BTreeMap<String, Value>>,
    log: Mutex<Vec<Logged>>,
}

fn user_info(username: &str, groups: &[&str]) -> Value {
    let mut groups: Vec<&str> = groups.to_vec();
    groups.push("system:authenticated");
    json!({"username": username, "uid": format!("uid-{username}"), "groups": groups})
}

impl Default for Users {
    fn default() -> Self {
        let service_account = user_info(
            SERVICE_ACCOUNT_USER,
            &["system:serviceaccounts", "system:serviceaccounts:default"],
        );
        Users {
            tokens: Mutex::new([(SERVICE_ACCOUNT_TOKEN.to_string(), service_account)].into()),
            log: Mutex::default(),
        }
    }
}

impl Users {
    /// The `userInfo` of a request's `Authorization` header, if its bearer token is known.
    pub(super) fn authenticate(&self, authorization: Option<&str>) -> Option<Value> {
        let token = authorization?.strip_prefix("Bearer ")?;
        self.tokens.lock().unwrap().get(token).cloned()
    }

    pub(super) fn record(&self, logged: Logged) {
        self.log.lock().unwrap().push(logged);
    }
}

/// The SelfSubjectReview answer for `user`.
pub(super) fn self_subject_review(user: &Value) -> Response<Body> {
    let body = json!({"kind": "SelfSubjectReview", "apiVersion": "authentication.k8s.io/v1",
        "metadata": {"creationTimestamp": null}, "status": {"userInfo": user}});
    reply(StatusCode::CREATED, &body)
}

impl FakeKube {
    fn users(&self) -> &Users {
        &self.shared.users
    }

    /// Accepts `token` as `username` in `groups` (and `system:authenticated`).
    pub fn add_user(&self, token: &str, username: &str, groups: &[&str]) {
        let info = user_info(username, groups);
        self.users()
            .tokens
            .lock()
            .unwrap()
            .insert(token.into(), info);
    }

    /// Every request received so far, in order.
    pub fn requests(&self) -> Vec<Logged> {
        self.users().log.lock().unwrap().clone()
    }

    /// The writes (not GET) received so far, in order.
    pub fn writes(&self) -> Vec<Logged> {
        let all = self.requests();
        all.into_iter().filter(|r| r.method != "GET").collect()
    }

    pub fn clear_requests(&self) {
        self.users().log.lock().unwrap().clear();
    }

    /// A kube client of the kubeconfig's service account.
    pub async fn client(&self) -> kube::Client {
        self.client_for(SERVICE_ACCOUNT_TOKEN).await
    }

    /// A kube client presenting `token` (see [`FakeKube::add_user`]).
    pub async fn client_for(&self, token: &str) -> kube::Client {
        use kube::config::{Config, KubeConfigOptions, Kubeconfig};
        let mut kubeconfig = Kubeconfig::read_from(self.kubeconfig()).unwrap();
        for named in &mut kubeconfig.auth_infos {
            if let Some(info) = named.auth_info.as_mut() {
                info.token = Some(token.to_string().into());
            }
        }
        let config = Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default())
            .await
            .unwrap();
        kube::Client::try_from(config).unwrap()
    }
}
