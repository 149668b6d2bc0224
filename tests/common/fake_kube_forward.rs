//! The fake kube-apiserver as a front for other HTTPS servers: requests under a path prefix
//! ([`FakeKube::forward`], longest prefix first, before anything served here) or every
//! request the fake does not serve ([`FakeKube::forward_unserved`]) are proxied to an
//! upstream with the method, path, query, headers and body they came with, the caller's
//! `Authorization` replaced by the upstream identity (a client certificate and/or a token;
//! optionally impersonating the caller with `Impersonate-User`/`Impersonate-Group`), and the
//! answer streamed back (watches included). The log still records them.

use std::sync::Mutex;

use axum::body::Body;
use bytes::Bytes;
use futures::StreamExt;
use http::{Response, StatusCode, request::Parts};
use serde_json::Value;

use super::FakeKube;

/// Who the fake is at the upstream.
#[derive(Clone, Debug, Default)]
pub struct Identity {
    /// A client certificate and key (PEM).
    pub certificate: Option<(String, String)>,
    pub token: Option<String>,
    /// Send the caller's username and groups as impersonation headers.
    pub impersonate_caller: bool,
}

pub(super) struct Upstream {
    /// Empty: the fallback for what the fake does not serve.
    prefix: String,
    url: String,
    client: reqwest::Client,
    identity: Identity,
}

#[derive(Default)]
pub(super) struct Forwards(Mutex<Vec<std::sync::Arc<Upstream>>>);

impl Forwards {
    /// The upstream whose prefix holds `path` (the longest), or the fallback when `unserved`.
    pub(super) fn route(&self, path: &str, unserved: bool) -> Option<std::sync::Arc<Upstream>> {
        let all = self.0.lock().unwrap();
        let under = |u: &&std::sync::Arc<Upstream>| {
            let rest = path.strip_prefix(u.prefix.as_str());
            !u.prefix.is_empty() && rest.is_some_and(|r| r.is_empty() || r.starts_with('/'))
        };
        let prefixed = all.iter().filter(under).max_by_key(|u| u.prefix.len());
        let fallback = || all.iter().find(|u| u.prefix.is_empty() && unserved);
        prefixed.or_else(fallback).cloned()
    }
}

fn client(ca_pem: &str, identity: &Identity) -> reqwest::Client {
    let mut builder = reqwest::Client::builder()
        .use_rustls_tls()
        .tls_built_in_root_certs(false)
        .add_root_certificate(reqwest::Certificate::from_pem(ca_pem.as_bytes()).unwrap());
    if let Some((cert, key)) = &identity.certificate {
        let pem = format!("{cert}\n{key}");
        builder = builder.identity(reqwest::Identity::from_pem(pem.as_bytes()).unwrap());
    }
    builder.build().unwrap()
}

impl FakeKube {
    /// Proxies every request under `prefix` (e.g. `/apis/apiregistration.k8s.io`) to
    /// `upstream_url` (`https://host:port`), trusting `ca_pem`, as `identity`.
    pub fn forward(&self, prefix: &str, upstream_url: &str, ca_pem: &str, identity: Identity) {
        self.add_upstream(prefix.trim_end_matches('/'), upstream_url, ca_pem, identity);
    }

    /// Proxies every request the fake does not serve itself to `upstream_url`.
    pub fn forward_unserved(&self, upstream_url: &str, ca_pem: &str, identity: Identity) {
        self.add_upstream("", upstream_url, ca_pem, identity);
    }

    fn add_upstream(&self, prefix: &str, url: &str, ca_pem: &str, identity: Identity) {
        let upstream = Upstream {
            prefix: prefix.to_string(),
            url: url.trim_end_matches('/').to_string(),
            client: client(ca_pem, &identity),
            identity,
        };
        let mut all = self.shared.forwards.0.lock().unwrap();
        all.retain(|u| u.prefix != upstream.prefix);
        all.push(std::sync::Arc::new(upstream));
    }
}

const HOP_BY_HOP: [&str; 6] = [
    "host",
    "authorization",
    "connection",
    "content-length",
    "transfer-encoding",
    "keep-alive",
];

/// Sends the request upstream and streams the answer back (a 502 Status if it fails).
pub(super) async fn proxy(
    upstream: &Upstream,
    parts: &Parts,
    body: Bytes,
    user: &Value,
) -> Response<Body> {
    let path_and_query = parts.uri.path_and_query().map_or("/", |p| p.as_str());
    let url = format!("{}{path_and_query}", upstream.url);
    let mut request = upstream.client.request(parts.method.clone(), url);
    for (name, value) in &parts.headers {
        if !HOP_BY_HOP.contains(&name.as_str()) && !name.as_str().starts_with("impersonate-") {
            request = request.header(name, value);
        }
    }
    if let Some(token) = &upstream.identity.token {
        request = request.bearer_auth(token);
    }
    if upstream.identity.impersonate_caller {
        request = request.header(
            "Impersonate-User",
            user["username"].as_str().unwrap_or_default(),
        );
        for group in user["groups"].as_array().into_iter().flatten() {
            request = request.header("Impersonate-Group", group.as_str().unwrap_or_default());
        }
    }
    let answer = match request.body(body).send().await {
        Ok(answer) => answer,
        Err(e) => {
            let message = format!("error trying to reach service: {e}");
            return super::errors::failure_of(502, "ServiceUnavailable", &message).response();
        }
    };
    let mut resp = Response::builder().status(answer.status());
    for (name, value) in answer.headers() {
        if !HOP_BY_HOP.contains(&name.as_str()) {
            resp = resp.header(name, value);
        }
    }
    let stream = answer
        .bytes_stream()
        .map(|chunk| chunk.map_err(std::io::Error::other));
    resp.body(Body::from_stream(stream)).unwrap_or_else(|_| {
        let mut broken = Response::new(Body::empty());
        *broken.status_mut() = StatusCode::BAD_GATEWAY;
        broken
    })
}
