//! The reference's test webhook (`../shared/reference/stub/webhook.py`, whose answers
//! `tests/fixtures/admission/compare.jsonl` recorded) behaviour for behaviour, so that the
//! replay calls a webhook answering exactly as the recorded one did: HTTPS on 127.0.0.1:0
//! with its own CA, the same paths (`/mutate`, `/mutate-bad`, `/mutate-unknown`,
//! `/validate`, `/slow`, `/garbage`, `/wrong-uid`), and every review received kept as
//! `{path, request}` like webhook.py's stdout lines.

use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine;
use crd_apiserver::server::pki::{self, Leaf};
use http::{Request, Response};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto::Builder;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use serde_json::{Value, json};
use tokio::sync::oneshot;

/// How long `/slow` sleeps before allowing (webhook.py's 5 s).
const SLOW: Duration = Duration::from_secs(5);

type Received = Arc<Mutex<Vec<Value>>>;

/// A running stub webhook; stopped on drop.
pub struct StubWebhook {
    /// `https://127.0.0.1:<port>`, what the configurations' `$WEBHOOK` stands for.
    pub base: String,
    /// The CA of its serving certificate (PEM), what `$CA_BUNDLE` encodes.
    pub ca_pem: String,
    /// A CA that did not sign its certificate (PEM), what `$OTHER_CA_BUNDLE` encodes.
    pub other_ca_pem: String,
    /// `https://127.0.0.1:<port>` where nothing listens, what `$CLOSED` stands for.
    pub closed: String,
    received: Received,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl StubWebhook {
    pub fn start() -> StubWebhook {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let ca = pki::new_authority("stub-webhook-ca").unwrap();
        let serving = ca
            .issue(Leaf::Serving {
                hosts: &["127.0.0.1", "localhost"],
            })
            .unwrap();
        let chain = vec![CertificateDer::from_pem_slice(serving.cert.as_bytes()).unwrap()];
        let key = PrivateKeyDer::from_pem_slice(serving.key.as_bytes()).unwrap();
        let mut config = rustls::ServerConfig::builder()
            .with_no_client_auth()
            .with_single_cert(chain, key)
            .unwrap();
        // webhook.py is Python's http.server: HTTP/1.1 only.
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let base = format!("https://{}", listener.local_addr().unwrap());
        let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let closed = format!("https://{}", closed.local_addr().unwrap());
        let other_ca_pem = pki::new_authority("stub-webhook-other-ca")
            .unwrap()
            .pem
            .cert;
        let received = Received::default();
        let (stop, stopped) = oneshot::channel();
        let kept = received.clone();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(serve(listener, Arc::new(config), kept, stopped));
        });
        StubWebhook {
            base,
            ca_pem: ca.pem.cert.clone(),
            other_ca_pem,
            closed,
            received,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    /// The reviews received since the last call, as `{path, request}`.
    pub fn take_reviews(&self) -> Vec<Value> {
        std::mem::take(&mut *self.received.lock().unwrap())
    }

    /// A configuration template (`$WEBHOOK`, `$CLOSED`, `$CA_BUNDLE`, `$OTHER_CA_BUNDLE`)
    /// filled in for this webhook.
    pub fn instantiate(&self, template: &serde_json::Value) -> serde_json::Value {
        let base64 = |pem: &str| base64::engine::general_purpose::STANDARD.encode(pem);
        let text = template
            .to_string()
            .replace("$WEBHOOK", &self.base)
            .replace("$CLOSED", &self.closed)
            .replace("$OTHER_CA_BUNDLE", &base64(&self.other_ca_pem))
            .replace("$CA_BUNDLE", &base64(&self.ca_pem));
        serde_json::from_str(&text).unwrap()
    }
}

impl Drop for StubWebhook {
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
    received: Received,
    mut stopped: oneshot::Receiver<()>,
) {
    let listener = tokio::net::TcpListener::from_std(listener).unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(config);
    loop {
        let tcp = tokio::select! {
            accepted = listener.accept() => match accepted { Ok((tcp, _)) => tcp, Err(_) => continue },
            _ = &mut stopped => return,
        };
        let (acceptor, received) = (acceptor.clone(), received.clone());
        tokio::spawn(async move {
            let Ok(tls) = acceptor.accept(tcp).await else {
                return;
            };
            let service = hyper::service::service_fn(move |req| {
                let received = received.clone();
                async move { Ok::<_, Infallible>(handle(&received, req).await) }
            });
            let _ = Builder::new(TokioExecutor::new())
                .serve_connection(TokioIo::new(tls), service)
                .await;
        });
    }
}

async fn handle(received: &Received, req: Request<Incoming>) -> Response<Full<bytes::Bytes>> {
    let full_path = req
        .uri()
        .path_and_query()
        .map_or("/", |p| p.as_str())
        .to_string();
    let path = req.uri().path().to_string();
    let bytes = req.into_body().collect().await.unwrap().to_bytes();
    let review: Value = serde_json::from_slice(&bytes).unwrap_or(json!({}));
    let request = review.get("request").cloned().unwrap_or(json!({}));
    received
        .lock()
        .unwrap()
        .push(json!({"path": full_path, "request": request}));
    if path == "/slow" {
        tokio::time::sleep(SLOW).await;
    }
    let body = match path.as_str() {
        "/garbage" => b"this is not an AdmissionReview".to_vec(),
        _ => {
            let version = review["apiVersion"]
                .as_str()
                .unwrap_or("admission.k8s.io/v1");
            json!({"apiVersion": version, "kind": "AdmissionReview", "response": answer(&path, &request)})
                .to_string()
                .into_bytes()
        }
    };
    Response::builder()
        .status(200)
        .header("content-type", "application/json")
        .body(Full::from(body))
        .unwrap()
}

/// webhook.py's `response` for a review's `request` at `path`.
fn answer(path: &str, request: &Value) -> Value {
    let uid = request["uid"].as_str().unwrap_or_default();
    let operation = request["operation"].as_str().unwrap_or_default();
    let object = [&request["object"], &request["oldObject"]]
        .into_iter()
        .find(|o| o.is_object())
        .cloned()
        .unwrap_or(json!({}));
    let mut resp = json!({"uid": uid, "allowed": true});
    if path.starts_with("/mutate") {
        let ops = patch_for(path, &object);
        if !ops.is_empty() {
            resp["patchType"] = json!("JSONPatch");
            let text = Value::Array(ops).to_string();
            resp["patch"] = json!(base64::engine::general_purpose::STANDARD.encode(text));
        }
        resp["warnings"] = json!(["mutated by the test webhook"]);
    } else if path == "/validate" {
        if object["metadata"]["labels"]["deny"] == json!("true") {
            return json!({"uid": uid, "allowed": false, "status": {"code": 403,
                "message": "denied by the test webhook", "reason": "Forbidden"}});
        }
        resp["warnings"] = json!([format!("validate saw {operation}")]);
        resp["auditAnnotations"] = json!({"seen": operation});
    } else if path == "/wrong-uid" {
        resp["uid"] = json!(format!("not-{uid}"));
    }
    resp
}

/// webhook.py's `patch_for`: the JSONPatch operations of a mutating path.
fn patch_for(path: &str, object: &Value) -> Vec<Value> {
    let mut ops = Vec::new();
    match path {
        "/mutate" => {
            if object["metadata"].get("labels").is_none() {
                ops.push(json!({"op": "add", "path": "/metadata/labels", "value": {}}));
            }
            ops.push(
                json!({"op": "add", "path": "/metadata/labels/mutated-by", "value": "webhook"}),
            );
            if object["spec"].get("owner").is_none() {
                ops.push(
                    json!({"op": "add", "path": "/spec/owner", "value": "webhook@example.com"}),
                );
            }
        }
        "/mutate-bad" => {
            ops.push(json!({"op": "add", "path": "/spec/replicas", "value": "many"}));
        }
        "/mutate-unknown" => {
            ops.push(json!({"op": "add", "path": "/spec/unknownField", "value": 1}));
        }
        _ => {}
    }
    ops
}
