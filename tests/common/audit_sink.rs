//! A real HTTPS receiver of audit events for tests (an `--audit-webhook-config-file`
//! target): its own CA (the repo's `pki` helpers), HTTP/2 and HTTP/1.1 by ALPN on
//! 127.0.0.1:0. It records every EventList POSTed to it, answers 200, or 500 to the
//! next POSTs as [`AuditSink::fail_next`] sets, and writes the kubeconfig naming it.
//!
//! Use with `#[path = "common/audit_sink.rs"] mod audit_sink;`.
//!
//! ```ignore
//! let sink = AuditSink::start();
//! let kubeconfig = sink.kubeconfig(dir.path(), "/events");
//! // … start the server with --audit-webhook-config-file <kubeconfig> …
//! let events = sink.wait_for_events(|events| events.len() >= 2);
//! assert_eq!(events[0]["stage"], "RequestReceived");
//! ```
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine;
use bytes::Bytes;
use crd_apiserver::server::pki::{self, Authority, Leaf};
use http::{Request, Response, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto::Builder;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use serde_json::Value;
use tokio::sync::oneshot;

/// One POST received.
#[derive(Clone, Debug)]
pub struct Received {
    pub path: String,
    /// The query (`timeout=30s` from kube's client).
    pub query: Option<String>,
    /// `Authorization`, as sent (a kubeconfig's `Bearer <token>`).
    pub authorization: Option<String>,
    pub content_type: Option<String>,
    /// The body as JSON (`Value::Null` when it was not JSON).
    pub body: Value,
    /// Whether it was answered 500 (see [`AuditSink::fail_next`]).
    pub failed: bool,
}

#[derive(Default)]
struct Shared {
    received: Mutex<Vec<Received>>,
    fail_next: AtomicUsize,
}

/// A running receiver; stopped on drop.
pub struct AuditSink {
    pub addr: SocketAddr,
    ca: Authority,
    shared: Arc<Shared>,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl AuditSink {
    /// Starts on 127.0.0.1:0 with a serving certificate for `127.0.0.1` and `localhost`.
    pub fn start() -> AuditSink {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let addr = listener.local_addr().unwrap();
        let ca = pki::new_authority(&format!("test-audit-sink-ca-{}", addr.port())).unwrap();
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
        config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
        let shared = Arc::new(Shared::default());
        let (stop, stopped) = oneshot::channel();
        let served = shared.clone();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(serve(listener, Arc::new(config), served, stopped));
        });
        AuditSink {
            addr,
            ca,
            shared,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    /// Answers the next `count` POSTs with 500 (recorded, with `failed` set).
    pub fn fail_next(&self, count: usize) {
        self.shared.fail_next.store(count, Ordering::SeqCst);
    }

    /// `https://127.0.0.1:<port><path>`.
    pub fn url(&self, path: &str) -> String {
        format!("https://{}{path}", self.addr)
    }

    /// The PEM of the CA its serving certificate chains to.
    pub fn ca_pem(&self) -> String {
        self.ca.pem.cert.clone()
    }

    /// Writes `<dir>/audit-webhook.kubeconfig` naming `url(path)`, trusting its CA, with
    /// the user's bearer token `audit-sink-token`.
    pub fn kubeconfig(&self, dir: &Path, path: &str) -> PathBuf {
        let ca = base64::engine::general_purpose::STANDARD.encode(self.ca_pem());
        let text = format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: sink\n  cluster:\n    server: {}\n    certificate-authority-data: {ca}\nusers:\n- name: apiserver\n  user:\n    token: audit-sink-token\ncontexts:\n- name: sink\n  context:\n    cluster: sink\n    user: apiserver\ncurrent-context: sink\n",
            self.url(path)
        );
        let file = dir.join("audit-webhook.kubeconfig");
        std::fs::write(&file, text).unwrap();
        file
    }

    /// Every POST received, in order.
    pub fn received(&self) -> Vec<Received> {
        self.shared.received.lock().unwrap().clone()
    }

    /// The items of every EventList answered 200, in order.
    pub fn events(&self) -> Vec<Value> {
        self.received()
            .into_iter()
            .filter(|r| !r.failed)
            .flat_map(|r| r.body["items"].as_array().cloned().unwrap_or_default())
            .collect()
    }

    /// Polls (10 s deadline) until `done` holds for the events received. It blocks the
    /// thread: in a tokio test, use the multi-threaded runtime.
    pub fn wait_for_events(&self, done: impl Fn(&[Value]) -> bool) -> Vec<Value> {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let events = self.events();
            if done(&events) {
                return events;
            }
            assert!(
                Instant::now() < deadline,
                "audit sink: condition not met in 10s; {} events: {events:#?}",
                events.len()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for AuditSink {
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

async fn handle(shared: &Shared, req: Request<Incoming>) -> Response<Full<Bytes>> {
    let path = req.uri().path().to_string();
    let query = req.uri().query().map(str::to_string);
    let authorization = req
        .headers()
        .get(http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let content_type = req
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let bytes = match req.into_body().collect().await {
        Ok(body) => body.to_bytes(),
        Err(_) => Bytes::new(),
    };
    let failed = shared
        .fail_next
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
        .is_ok();
    shared.received.lock().unwrap().push(Received {
        path,
        query,
        authorization,
        content_type,
        body: serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        failed,
    });
    let status = match failed {
        true => StatusCode::INTERNAL_SERVER_ERROR,
        false => StatusCode::OK,
    };
    Response::builder()
        .status(status)
        .header(http::header::CONTENT_TYPE, "application/json")
        .body(Full::new(Bytes::from_static(b"{}")))
        .unwrap()
}
