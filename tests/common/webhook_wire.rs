//! The test webhook's HTTP side: TLS accept loop (client certificates optional), one
//! hyper-util auto connection (HTTP/2 or HTTP/1.1) per TCP connection, and the answers
//! of each [`Behaviour`] in the AdmissionReview version sent.

use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use base64::Engine;
use bytes::Bytes;
use http::{Request, Response, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto::Builder;
use rustls::RootCertStore;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::WebPkiClientVerifier;
use serde_json::{Value, json};
use tokio::sync::{Notify, oneshot};

use super::{Behaviour, Review, Shared};

pub fn tls_config(
    serving: &crd_apiserver::server::pki::Pem,
    ca_pem: &str,
    alpn: &[&[u8]],
) -> Arc<rustls::ServerConfig> {
    let chain = vec![CertificateDer::from_pem_slice(serving.cert.as_bytes()).unwrap()];
    let key = PrivateKeyDer::from_pem_slice(serving.key.as_bytes()).unwrap();
    let mut roots = RootCertStore::empty();
    roots
        .add(CertificateDer::from_pem_slice(ca_pem.as_bytes()).unwrap())
        .unwrap();
    let verifier = WebPkiClientVerifier::builder(Arc::new(roots))
        .allow_unauthenticated()
        .build()
        .unwrap();
    let mut config = rustls::ServerConfig::builder()
        .with_client_cert_verifier(verifier)
        .with_single_cert(chain, key)
        .unwrap();
    config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
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
        shared.connections.fetch_add(1, Ordering::SeqCst);
        let (acceptor, shared) = (acceptor.clone(), shared.clone());
        tokio::spawn(async move {
            let Ok(tls) = acceptor.accept(tcp).await else {
                return;
            };
            let client_cn = tls
                .get_ref()
                .1
                .peer_certificates()
                .and_then(|chain| chain.first())
                .and_then(|der| common_name(der));
            let close = Arc::new(Notify::new());
            let closing = close.clone();
            let service = hyper::service::service_fn(move |req| {
                let (shared, close, client_cn) = (shared.clone(), close.clone(), client_cn.clone());
                async move { Ok::<_, Infallible>(handle(&shared, req, client_cn, &close).await) }
            });
            let builder = Builder::new(TokioExecutor::new());
            let connection = builder.serve_connection(TokioIo::new(tls), service);
            tokio::select! {
                _ = connection => {}
                _ = closing.notified() => {}
            }
        });
    }
}

fn common_name(der: &CertificateDer<'_>) -> Option<String> {
    let (_, cert) = x509_parser::parse_x509_certificate(der.as_ref()).ok()?;
    let cn = cert.subject().iter_common_name().next()?;
    cn.as_str().ok().map(str::to_string)
}

async fn handle(
    shared: &Shared,
    req: Request<Incoming>,
    client_cn: Option<String>,
    close: &Notify,
) -> Response<Full<Bytes>> {
    let path = req.uri().path().to_string();
    let query = req.uri().query().unwrap_or_default().to_string();
    let http = req.version();
    let authority = req.uri().authority().map(|a| a.to_string()).or_else(|| {
        let host = req.headers().get(http::header::HOST)?;
        host.to_str().ok().map(str::to_string)
    });
    let authorization = req
        .headers()
        .get(http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let user_agent = req
        .headers()
        .get(http::header::USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let traceparent = req
        .headers()
        .get("traceparent")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let bytes = match req.into_body().collect().await {
        Ok(body) => body.to_bytes(),
        Err(_) => Bytes::new(),
    };
    let body: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    let api_version = body["apiVersion"].as_str().unwrap_or_default().to_string();
    let version = api_version
        .rsplit('/')
        .next()
        .unwrap_or_default()
        .to_string();
    shared.reviews.lock().unwrap().push(Review {
        path: path.clone(),
        query,
        version,
        http,
        authority,
        authorization,
        user_agent,
        traceparent,
        client_cn,
        body: body.clone(),
    });
    let api_version = match api_version.as_str() {
        "" => "admission.k8s.io/v1".to_string(),
        v => v.to_string(),
    };
    let request = &body["request"];
    let uid = request["uid"].as_str().unwrap_or_default();
    let response = match shared.behaviour(&path) {
        Behaviour::Allow => json!({"allowed": true}),
        Behaviour::Deny {
            code,
            reason,
            message,
        } => json!({"allowed": false,
            "status": {"code": code, "reason": reason, "message": message}}),
        Behaviour::Patch(ops) => {
            let patch = base64::engine::general_purpose::STANDARD.encode(ops.to_string());
            json!({"allowed": true, "patchType": "JSONPatch", "patch": patch})
        }
        Behaviour::Slow(pause) => {
            tokio::time::sleep(pause).await;
            json!({"allowed": true})
        }
        Behaviour::Garbage(text) => return reply(Bytes::from(text)),
        Behaviour::WrongKind => {
            let answer = json!({"apiVersion": api_version, "kind": "AdmissionResponse",
                "response": {"uid": uid, "allowed": true}});
            return reply(Bytes::from(answer.to_string()));
        }
        Behaviour::WrongUid => json!({"uid": format!("wrong-{uid}"), "allowed": true}),
        Behaviour::Close => {
            close.notify_one();
            std::future::pending::<()>().await;
            json!({})
        }
        Behaviour::Warnings(warnings) => json!({"allowed": true, "warnings": warnings}),
        Behaviour::AuditAnnotations(annotations) => {
            json!({"allowed": true, "auditAnnotations": annotations})
        }
        Behaviour::Custom(answer) => answer(request),
    };
    let mut response = response;
    if let Some(fields) = response.as_object_mut() {
        fields
            .entry("uid")
            .or_insert_with(|| Value::String(uid.to_string()));
    }
    let review =
        json!({"apiVersion": api_version, "kind": "AdmissionReview", "response": response});
    reply(Bytes::from(review.to_string()))
}

fn reply(body: Bytes) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(body));
    *response.status_mut() = StatusCode::OK;
    response.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("application/json"),
    );
    response
}
