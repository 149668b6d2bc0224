//! The host cluster's front door for the end-to-end test: one HTTPS address that answers like
//! a kube-apiserver by routing each request as kube-apiserver's handler chain would.
//! - `/apis/apiregistration.k8s.io/…` and `/apis/apiextensions.k8s.io/…` go to the real
//!   kube-aggregator (which routes `apiextensions.k8s.io` to the reference through its
//!   APIService);
//! - `/apis/<g>/<v>/…` of a host CRD group go to the aggregator while the APIService `<v>.<g>`
//!   names a Service, and straight to the reference apiextensions-apiserver while it is local
//!   (`spec.service` null): kube-apiserver's aggregator hands local APIServices to its
//!   delegate, the apiextensions-apiserver inside it, which the standalone aggregator has not;
//! - everything else (SubjectAccessReview, TokenReview, SelfSubjectReview, namespaces,
//!   admission policies, Events, Leases, …) goes to the fake core API (tests/common/fake_kube*).
//!
//! Requests to the aggregator and the reference carry the client certificate of the user the
//! fake's kubeconfig token stands for ([`HOST_USER`]), so the reference's admission sees the
//! same user our server's SelfSubjectReview at the fake names. Bodies stream both ways
//! (watches).

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::Body;
use bytes::Bytes;
use crd_apiserver::server::pki::Pem;
use http::{Method, Request, Response, StatusCode};
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto::Builder;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use serde_json::{Value, json};
use tokio::sync::oneshot;

/// The user the fake's kubeconfig token authenticates as (the server's service account).
pub const HOST_USER: &str = "system:serviceaccount:default:crd-apiserver";

/// Where requests go.
#[derive(Clone)]
pub struct Upstream {
    pub base: String,
    pub client: reqwest::Client,
}

impl Upstream {
    /// `base` trusting `ca_pem`, sending `Authorization: Bearer <token>` (as our server
    /// talks to the host with the fake's kubeconfig).
    pub fn with_token(base: String, ca_pem: &str, token: &str) -> Upstream {
        let mut headers = http::HeaderMap::new();
        headers.insert("authorization", format!("Bearer {token}").parse().unwrap());
        Self::build(base, ca_pem, None, headers)
    }

    /// `base` (scheme and authority) trusting `ca_pem`, presenting `identity` when given.
    pub fn new(base: String, ca_pem: &str, identity: Option<&Pem>) -> Upstream {
        Self::build(base, ca_pem, identity, http::HeaderMap::new())
    }

    fn build(
        base: String,
        ca_pem: &str,
        identity: Option<&Pem>,
        headers: http::HeaderMap,
    ) -> Upstream {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let mut roots = rustls::RootCertStore::empty();
        for ca in CertificateDer::pem_slice_iter(ca_pem.as_bytes()) {
            roots.add(ca.unwrap()).unwrap();
        }
        let builder = rustls::ClientConfig::builder().with_root_certificates(roots);
        let tls = match identity {
            Some(pem) => {
                let chain = CertificateDer::pem_slice_iter(pem.cert.as_bytes())
                    .map(|c| c.unwrap())
                    .collect();
                let key = PrivateKeyDer::from_pem_slice(pem.key.as_bytes()).unwrap();
                builder.with_client_auth_cert(chain, key).unwrap()
            }
            None => builder.with_no_client_auth(),
        };
        let client = reqwest::Client::builder()
            .use_preconfigured_tls(tls)
            .default_headers(headers)
            .build()
            .unwrap();
        Upstream { base, client }
    }
}

/// The routes.
pub struct Routes {
    pub fake: Upstream,
    pub aggregator: Upstream,
    pub reference: Upstream,
    /// The aggregator as the admin, to read APIServices.
    pub admin: Upstream,
    /// The host CRD groups (routed by their APIService).
    pub crd_groups: Vec<String>,
}

/// A running front; stopped on drop.
pub struct Front {
    pub addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Front {
    /// Serves `routes` over TLS with `serving` on 127.0.0.1:0.
    pub fn start(serving: &Pem, routes: Routes) -> Front {
        let chain = vec![CertificateDer::from_pem_slice(serving.cert.as_bytes()).unwrap()];
        let key = PrivateKeyDer::from_pem_slice(serving.key.as_bytes()).unwrap();
        let mut config = rustls::ServerConfig::builder()
            .with_no_client_auth()
            .with_single_cert(chain, key)
            .unwrap();
        config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = oneshot::channel();
        let routes = Arc::new(routes);
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(serve(listener, Arc::new(config), routes, stopped));
        });
        Front {
            addr,
            stop: Some(stop),
            thread: Some(thread),
        }
    }
}

impl Drop for Front {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

async fn serve(
    listener: std::net::TcpListener,
    config: Arc<rustls::ServerConfig>,
    routes: Arc<Routes>,
    mut stopped: oneshot::Receiver<()>,
) {
    let listener = tokio::net::TcpListener::from_std(listener).unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(config);
    loop {
        let tcp = tokio::select! {
            accepted = listener.accept() => match accepted { Ok((tcp, _)) => tcp, Err(_) => continue },
            _ = &mut stopped => return,
        };
        let (acceptor, routes) = (acceptor.clone(), routes.clone());
        tokio::spawn(async move {
            let Ok(tls) = acceptor.accept(tcp).await else {
                return;
            };
            let service = hyper::service::service_fn(move |req| {
                let routes = routes.clone();
                async move { Ok::<_, Infallible>(forward(&routes, req).await) }
            });
            let _ = Builder::new(TokioExecutor::new())
                .serve_connection(TokioIo::new(tls), service)
                .await;
        });
    }
}

/// Which upstream serves `path`.
async fn route<'a>(routes: &'a Routes, path: &str) -> &'a Upstream {
    let parts: Vec<&str> = path.trim_matches('/').split('/').collect();
    match parts.as_slice() {
        [
            "apis",
            "apiregistration.k8s.io" | "apiextensions.k8s.io",
            ..,
        ] => &routes.aggregator,
        ["apis", group, version, ..] if routes.crd_groups.iter().any(|g| g == group) => {
            match local(routes, group, version).await {
                true => &routes.reference,
                false => &routes.aggregator,
            }
        }
        ["apis", group] if routes.crd_groups.iter().any(|g| g == group) => &routes.aggregator,
        _ => &routes.fake,
    }
}

/// Whether the APIService `<version>.<group>` is local (no `spec.service`), as kube-apiserver's
/// aggregator decides where a request goes.
async fn local(routes: &Routes, group: &str, version: &str) -> bool {
    let url = format!(
        "{}/apis/apiregistration.k8s.io/v1/apiservices/{version}.{group}",
        routes.admin.base
    );
    let Ok(resp) = routes.admin.client.get(url).send().await else {
        return false;
    };
    let apiservice: Value = resp.json().await.unwrap_or(Value::Null);
    apiservice["spec"].is_object() && apiservice["spec"]["service"].is_null()
}

/// Hop-by-hop and per-connection headers, and the bearer token, which only the fake reads.
fn passed(name: &str, to_fake: bool) -> bool {
    !matches!(
        name,
        "host" | "content-length" | "connection" | "transfer-encoding" | "keep-alive" | "upgrade"
    ) && (to_fake || name != "authorization")
}

async fn forward(routes: &Routes, req: Request<Incoming>) -> Response<Body> {
    let path_and_query = req
        .uri()
        .path_and_query()
        .map(|p| p.as_str().to_string())
        .unwrap_or_default();
    let upstream = route(routes, req.uri().path()).await;
    let to_fake = std::ptr::eq(upstream, &routes.fake);
    let method = req.method().clone();
    let mut out = upstream
        .client
        .request(method.clone(), format!("{}{path_and_query}", upstream.base));
    for (name, value) in req.headers() {
        if passed(name.as_str(), to_fake) {
            out = out.header(name, value);
        }
    }
    let policy_write =
        matches!(method, Method::POST | Method::PUT) && path_and_query.starts_with(POLICIES);
    let body = match req.into_body().collect().await {
        Ok(b) if policy_write => defaulted(b.to_bytes()),
        Ok(b) => b.to_bytes(),
        Err(_) => return status(StatusCode::BAD_REQUEST, "request body"),
    };
    let resp = match out.body(body).send().await {
        Ok(resp) => resp,
        Err(e) => return status(StatusCode::BAD_GATEWAY, &format!("front: {e}")),
    };
    let mut back = Response::builder().status(resp.status());
    for (name, value) in resp.headers() {
        if passed(name.as_str(), true) {
            back = back.header(name, value);
        }
    }
    back.body(Body::from_stream(resp.bytes_stream())).unwrap()
}

const POLICIES: &str = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies";

/// A ValidatingAdmissionPolicy as kube-apiserver stores it: its defaulting (kubernetes
/// pkg/apis/admissionregistration/v1/defaults.go) fills `failurePolicy: Fail` and, in
/// `matchConstraints`, `matchPolicy: Equivalent` and empty `namespaceSelector` and
/// `objectSelector`, and each rule's `scope: "*"`. The fake stores what it is sent, and the
/// reference's policy plugin reads a missing selector as "matches nothing".
pub fn default_policy(policy: &mut Value) {
    let Some(spec) = policy.get_mut("spec").and_then(Value::as_object_mut) else {
        return;
    };
    spec.entry("failurePolicy").or_insert_with(|| json!("Fail"));
    if let Some(constraints) = spec
        .get_mut("matchConstraints")
        .and_then(Value::as_object_mut)
    {
        constraints
            .entry("matchPolicy")
            .or_insert_with(|| json!("Equivalent"));
        constraints
            .entry("namespaceSelector")
            .or_insert_with(|| json!({}));
        constraints
            .entry("objectSelector")
            .or_insert_with(|| json!({}));
        for rule in constraints
            .get_mut("resourceRules")
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            if let Some(rule) = rule.as_object_mut() {
                rule.entry("scope").or_insert_with(|| json!("*"));
            }
        }
    }
}

fn defaulted(body: Bytes) -> Bytes {
    match serde_json::from_slice::<Value>(&body) {
        Ok(mut policy) => {
            default_policy(&mut policy);
            Bytes::from(policy.to_string())
        }
        Err(_) => body,
    }
}

fn status(code: StatusCode, message: &str) -> Response<Body> {
    let body = serde_json::json!({"kind": "Status", "apiVersion": "v1", "metadata": {},
        "status": "Failure", "message": message, "code": code.as_u16()});
    let mut resp = Response::new(Body::from(body.to_string()));
    *resp.status_mut() = code;
    resp
}
