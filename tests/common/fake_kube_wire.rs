//! The fake kube-apiserver's HTTP side: TLS accept loop, authentication by bearer token
//! (`fake_kube_users.rs`), the request log, forwarding (`fake_kube_forward.rs`), and the
//! handlers for the ConfigMap (list, get, watch), TokenReview and SubjectAccessReview, in the
//! real wire format (`metav1.Status` errors, `{"type","object"}` watch lines); namespaces are
//! served by `fake_kube_namespaces.rs`, every other collection (webhook configurations,
//! admission policies, params, host kinds) and discovery by `fake_kube_queries.rs` (its
//! documents from `fake_kube_discovery.rs`), their writes by `fake_kube_writes.rs`.

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::sync::Arc;

use axum::body::Body;
use bytes::Bytes;
use crd_apiserver::server::pki;
use futures::StreamExt;
use http::request::Parts;
use http::{Method, Request, Response, StatusCode};
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto::Builder;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use serde_json::{Value, json};
use tokio::sync::oneshot;

use super::forward;
use super::namespaces::{self, NAMESPACES};
use super::queries;
use super::users::{Logged, SELF_SUBJECT_REVIEWS, self_subject_review};
use super::writes::{self, Call};
use super::{CONFIGMAPS, NAME, Shared};

pub fn tls_config(serving: &pki::Pem) -> Arc<rustls::ServerConfig> {
    let chain = vec![CertificateDer::from_pem_slice(serving.cert.as_bytes()).unwrap()];
    let key = PrivateKeyDer::from_pem_slice(serving.key.as_bytes()).unwrap();
    let mut config = rustls::ServerConfig::builder()
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .unwrap();
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Arc::new(config)
}

pub async fn serve(
    listener: std::net::TcpListener,
    config: Arc<rustls::ServerConfig>,
    shared: Arc<Shared>,
    mut stopped: oneshot::Receiver<()>,
) {
    let listener = tokio::net::TcpListener::from_std(listener).unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(config);
    loop {
        let tcp = tokio::select! {
            accepted = listener.accept() => match accepted { Ok((tcp, _)) => tcp, Err(_) => continue },
            _ = &mut stopped => return,
        };
        let (acceptor, shared) = (acceptor.clone(), shared.clone());
        tokio::spawn(async move {
            let Ok(tls) = acceptor.accept(tcp).await else {
                return;
            };
            let service = hyper::service::service_fn(move |req| {
                let shared = shared.clone();
                async move { Ok::<_, Infallible>(handle(&shared, req).await) }
            });
            let _ = Builder::new(TokioExecutor::new())
                .serve_connection(TokioIo::new(tls), service)
                .await;
        });
    }
}

pub(super) fn reply(code: StatusCode, body: &Value) -> Response<Body> {
    let mut resp = Response::new(Body::from(body.to_string()));
    *resp.status_mut() = code;
    resp.headers_mut()
        .insert("content-type", "application/json".parse().unwrap());
    resp
}

fn status(code: u16, reason: &str, message: &str) -> Response<Body> {
    let body = json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": message, "reason": reason, "code": code});
    reply(StatusCode::from_u16(code).unwrap(), &body)
}

pub fn configmap(data: &BTreeMap<String, String>, rv: u64) -> Value {
    json!({"kind": "ConfigMap", "apiVersion": "v1",
        "metadata": {"name": NAME, "namespace": "kube-system",
            "uid": "0b5e7f5e-3c1e-4b8e-9a59-6f1a2c3d4e5f", "resourceVersion": rv.to_string(),
            "creationTimestamp": "2025-01-01T00:00:00Z"},
        "data": data})
}

fn query(parts: &Parts, key: &str) -> Option<String> {
    parts.uri.query()?.split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        (k == key).then(|| v.replace("%3D", "=").replace("%3d", "="))
    })
}

async fn handle(shared: &Arc<Shared>, req: Request<Incoming>) -> Response<Body> {
    let header = |name: &str| {
        let value = req.headers().get(name).and_then(|v| v.to_str().ok());
        value.unwrap_or_default().to_string()
    };
    let Some(user) = shared.users.authenticate(Some(&header("authorization"))) else {
        return status(401, "Unauthorized", "Unauthorized");
    };
    let (content_type, user_agent) = (header("content-type"), header("user-agent"));
    let (parts, body) = req.into_parts();
    let body = body
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    let username = user["username"].as_str().unwrap_or_default().to_string();
    shared.users.record(Logged {
        method: parts.method.to_string(),
        path: parts.uri.path().to_string(),
        query: parts.uri.query().unwrap_or_default().to_string(),
        user: username.clone(),
        content_type: content_type.clone(),
        body: String::from_utf8_lossy(&body).into_owned(),
    });
    let path = parts.uri.path().to_string();
    if let Some(upstream) = shared.forwards.route(&path, false) {
        return forward::proxy(&upstream, &parts, body, &user).await;
    }
    let call = Call {
        method: &parts.method,
        path: &path,
        query: parts.uri.query().unwrap_or_default(),
        content_type: &content_type,
        user_agent: &user_agent,
        body: &body,
        username: &username,
    };
    match local(shared, &parts, &call, &user).await {
        Some(resp) => resp,
        None => match shared.forwards.route(&path, true) {
            Some(upstream) => forward::proxy(&upstream, &parts, body, &user).await,
            None => not_found(),
        },
    }
}

/// The answer of what the fake serves itself; `None` when it serves nothing there.
async fn local(
    shared: &Arc<Shared>,
    parts: &Parts,
    call: &Call<'_>,
    user: &Value,
) -> Option<Response<Body>> {
    let path = call.path;
    let body_json = || serde_json::from_slice(call.body).unwrap_or(Value::Null);
    Some(match (parts.method.clone(), path) {
        (Method::GET, CONFIGMAPS) => {
            shared.state.lock().unwrap().configmap_requests += 1;
            match query(parts, "watch").as_deref() {
                Some("true" | "1") => watch(shared, parts),
                _ => list(shared),
            }
        }
        (Method::GET, p) if p == format!("{CONFIGMAPS}/{NAME}") => {
            let state = shared.state.lock().unwrap();
            match &state.configmap {
                Some(data) => reply(StatusCode::OK, &configmap(data, state.revision)),
                None => status(404, "NotFound", &format!("configmaps \"{NAME}\" not found")),
            }
        }
        (Method::GET, p)
            if p == NAMESPACES
                || p.strip_prefix(NAMESPACES)
                    .and_then(|n| n.strip_prefix('/'))
                    .is_some_and(|n| !n.is_empty() && !n.contains('/')) =>
        {
            namespaces::serve(shared, p, call.query).await
        }
        (Method::POST, "/apis/authentication.k8s.io/v1/tokenreviews") => {
            token_review(shared, body_json())
        }
        (Method::POST, "/apis/authorization.k8s.io/v1/subjectaccessreviews") => {
            access_review(shared, body_json())
        }
        (Method::POST, SELF_SUBJECT_REVIEWS) => self_subject_review(user),
        (Method::GET, p) => queries::serve(shared, p, call.query).await?,
        _ => writes::serve(shared, call)?,
    })
}

fn not_found() -> Response<Body> {
    status(
        404,
        "NotFound",
        "the server could not find the requested resource",
    )
}

fn list(shared: &Arc<Shared>) -> Response<Body> {
    let state = shared.state.lock().unwrap();
    let items: Vec<Value> = state
        .configmap
        .iter()
        .map(|d| configmap(d, state.revision))
        .collect();
    let body = json!({"kind": "ConfigMapList", "apiVersion": "v1",
        "metadata": {"resourceVersion": state.revision.to_string()}, "items": items});
    reply(StatusCode::OK, &body)
}

fn watch(shared: &Arc<Shared>, parts: &Parts) -> Response<Body> {
    let from: u64 = query(parts, "resourceVersion")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let (past, live) = {
        let state = shared.state.lock().unwrap();
        (since(&state.history, from), shared.events.subscribe())
    };
    watch_stream(past, live, from, |l| Some(l.into()), std::future::pending())
}

/// The watch events of `history` after revision `from`.
pub fn since(history: &[(u64, String)], from: u64) -> Vec<(u64, String)> {
    history
        .iter()
        .filter(|(rv, _)| *rv > from)
        .cloned()
        .collect()
}

/// A watch answer in the real wire format: the `past` event lines, then the `live` ones
/// after revision `from`, each as `shown` shows it (`None`: left out) until `dropped`
/// completes (the fake ends every open watch).
pub fn watch_stream(
    past: Vec<(u64, String)>,
    live: tokio::sync::broadcast::Receiver<(u64, String)>,
    from: u64,
    shown: impl Fn(&str) -> Option<String> + Send + Sync + 'static,
    dropped: impl std::future::Future<Output = ()> + Send + 'static,
) -> Response<Body> {
    let live = tokio_stream::wrappers::BroadcastStream::new(live)
        .filter_map(move |e| async move { e.ok().filter(|(rv, _)| *rv > from) });
    let shown = std::sync::Arc::new(shown);
    let events = futures::stream::iter(past)
        .chain(live)
        .filter_map(move |(_, line)| std::future::ready(shown(&line)))
        .take_until(dropped)
        .map(|line| Ok::<_, Infallible>(Bytes::from(line)));
    let mut resp = Response::new(Body::from_stream(events));
    resp.headers_mut()
        .insert("content-type", "application/json".parse().unwrap());
    resp
}

fn token_review(shared: &Arc<Shared>, review: Value) -> Response<Body> {
    let token = review["spec"]["token"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let mut state = shared.state.lock().unwrap();
    state.token_reviews.push(token.clone());
    let status = match state.tokens.get(&token) {
        Some(user) => json!({"authenticated": true, "user": user, "audiences": []}),
        None => json!({"user": {}, "error": "invalid bearer token"}),
    };
    let body = json!({"kind": "TokenReview", "apiVersion": "authentication.k8s.io/v1",
        "metadata": {"creationTimestamp": null}, "spec": review["spec"], "status": status});
    reply(StatusCode::CREATED, &body)
}

fn access_review(shared: &Arc<Shared>, review: Value) -> Response<Body> {
    let spec = review["spec"].clone();
    let mut state = shared.state.lock().unwrap();
    state.access_reviews.push(spec.clone());
    let decision = (state.policy)(&spec);
    let mut status = json!({"allowed": decision.allowed});
    if decision.denied {
        status["denied"] = json!(true);
    }
    if !decision.reason.is_empty() {
        status["reason"] = json!(decision.reason);
    }
    let body = json!({"kind": "SubjectAccessReview", "apiVersion": "authorization.k8s.io/v1",
        "metadata": {"creationTimestamp": null}, "spec": spec, "status": status});
    reply(StatusCode::CREATED, &body)
}
