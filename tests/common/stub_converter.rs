//! The reference's test conversion webhook (`../shared/reference/stub/converter.py`, extended
//! as hack/conversion-oracle/converter.py) behaviour for behaviour, so that a test or the
//! replay of tests/fixtures/conversion/ calls a converter answering exactly as the recorded
//! one did: HTTPS on 127.0.0.1:0 (its own CA, the admission test webhook's TLS helpers),
//! HTTP/1.1 only as Python's http.server, every ConversionReview received kept whole (raw
//! bytes, parsed JSON, path with query, headers) for tests to read and count.
//!
//! Paths (the answers are in `stub_converter_answer.rs`): `/convert` (v1 ↔ v2 of a kind with
//! `spec.color`: to v2 `spec.shape` from the annotation `convert.example.com/shape`, else
//! `round` for red and `square` otherwise; to v1 `spec.shape` moves into that annotation),
//! `/convert-fail`, `/convert-garbage`, `/convert-wrong-count`, `/convert-rename`,
//! `/convert-wrong-uid`, `/convert-wrong-kind`, `/convert-wrong-apiversion`,
//! `/convert-review-kind`, `/convert-labels`, `/convert-bad-label`,
//! `/convert-annotation-number`, `/convert-slow` (never answers; the connection stays open
//! until the caller drops it). Any other path converts as `/convert`.
//!
//! ```ignore
//! let converter = StubConverter::start();
//! let crd = /* … spec.conversion.webhook.clientConfig = */ converter.client_config("/convert");
//! // … GET the object at v2 …
//! assert_eq!(converter.reviews_at("/convert").len(), 1);
//! assert_eq!(converter.objects_converted(), 1);
//! ```
#![allow(
    dead_code,
    unused_imports,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

#[path = "stub_converter_answer.rs"]
pub mod answer;

use std::convert::Infallible;
use std::sync::{Arc, Mutex};

use base64::Engine;
use bytes::Bytes;
use crd_apiserver::server::pki::{self, Leaf};
use http::{Request, Response, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::sync::{Notify, oneshot};

pub use answer::{ANNOTATION, Answer};

/// One ConversionReview POSTed to the converter.
#[derive(Clone, Debug)]
pub struct ReceivedReview {
    /// The URL path without the query, e.g. `/convert`.
    pub path: String,
    /// The URL query (empty when none).
    pub query: String,
    /// The request's headers in the order received, names lower-cased.
    pub headers: Vec<(String, String)>,
    /// The body as sent.
    pub raw: String,
    /// The body parsed (`Value::Null` if it was not JSON).
    pub body: Value,
}

impl ReceivedReview {
    /// The review's `request`.
    pub fn request(&self) -> &Value {
        &self.body["request"]
    }

    /// The objects sent for conversion.
    pub fn objects(&self) -> &[Value] {
        self.body["request"]["objects"]
            .as_array()
            .map_or(&[], Vec::as_slice)
    }

    /// `request.desiredAPIVersion`.
    pub fn desired(&self) -> &str {
        self.body["request"]["desiredAPIVersion"]
            .as_str()
            .unwrap_or_default()
    }

    /// The first value of header `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        let mut found = self.headers.iter().filter(|(k, _)| *k == name);
        found.next().map(|(_, v)| v.as_str())
    }

    /// converter.py's stdout line for this review: `{path, desired, count}` (its `path`
    /// keeps the query, as http.server's `self.path`).
    pub fn line(&self) -> Value {
        let path = match self.query.is_empty() {
            true => self.path.clone(),
            false => format!("{}?{}", self.path, self.query),
        };
        json!({"path": path, "desired": self.request()["desiredAPIVersion"],
            "count": self.objects().len()})
    }
}

#[derive(Default)]
struct Shared {
    reviews: Mutex<Vec<ReceivedReview>>,
    /// The path whose answer every POST gets instead of its own ([`StubConverter::answer_as`]).
    answer_as: Mutex<Option<String>>,
}

/// A running stub converter; stopped on drop (a `/convert-slow` call in flight then fails).
pub struct StubConverter {
    /// `https://127.0.0.1:<port>`.
    pub base: String,
    /// The CA of its serving certificate (PEM), a CRD's `caBundle` once base64-encoded.
    pub ca_pem: String,
    /// `https://127.0.0.1:<port>` where nothing listens.
    pub closed: String,
    shared: Arc<Shared>,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl StubConverter {
    pub fn start() -> StubConverter {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let addr = listener.local_addr().unwrap();
        let ca = pki::new_authority(&format!("stub-converter-ca-{}", addr.port())).unwrap();
        let hosts = ["127.0.0.1", "localhost"];
        let serving = ca.issue(Leaf::Serving { hosts: &hosts }).unwrap();
        // converter.py is Python's http.server: HTTP/1.1 only.
        let config = crate::webhook::wire::tls_config(&serving, &ca.pem.cert, &[b"http/1.1"]);
        let shared = Arc::new(Shared::default());
        let (stop, stopped) = oneshot::channel();
        let served = shared.clone();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(serve(listener, config, served, stopped));
        });
        let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        StubConverter {
            base: format!("https://{addr}"),
            ca_pem: ca.pem.cert.clone(),
            closed: format!("https://{}", closed.local_addr().unwrap()),
            shared,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    /// `https://127.0.0.1:<port><path>`.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// The CA bundle as a CRD's `caBundle` (base64 of the PEM).
    pub fn ca_bundle(&self) -> String {
        base64::engine::general_purpose::STANDARD.encode(&self.ca_pem)
    }

    /// A CRD's `spec.conversion.webhook.clientConfig` calling `path` here.
    pub fn client_config(&self, path: &str) -> Value {
        json!({"url": self.url(path), "caBundle": self.ca_bundle()})
    }

    /// A CRD's whole `spec.conversion` calling `path` here with these review versions.
    pub fn conversion(&self, path: &str, review_versions: &[&str]) -> Value {
        json!({"strategy": "Webhook", "webhook": {
            "clientConfig": self.client_config(path),
            "conversionReviewVersions": review_versions}})
    }

    /// Every review received, in order.
    pub fn reviews(&self) -> Vec<ReceivedReview> {
        self.shared.reviews.lock().unwrap().clone()
    }

    /// The reviews received at `path` (no query), in order.
    pub fn reviews_at(&self, path: &str) -> Vec<ReceivedReview> {
        let reviews = self.shared.reviews.lock().unwrap();
        reviews.iter().filter(|r| r.path == path).cloned().collect()
    }

    /// Every review received since the last call, forgotten here.
    pub fn take_reviews(&self) -> Vec<ReceivedReview> {
        std::mem::take(&mut *self.shared.reviews.lock().unwrap())
    }

    /// From now on every POST is answered as one to `path` would be (`None`: each as its
    /// own path again); reviews keep the path they were sent to. For a converter that
    /// starts failing under a running watch.
    pub fn answer_as(&self, path: Option<&str>) {
        *self.shared.answer_as.lock().unwrap() = path.map(str::to_string);
    }

    /// How many reviews were received.
    pub fn review_count(&self) -> usize {
        self.shared.reviews.lock().unwrap().len()
    }

    /// How many objects all reviews received so far asked to convert.
    pub fn objects_converted(&self) -> usize {
        let reviews = self.shared.reviews.lock().unwrap();
        reviews.iter().map(|r| r.objects().len()).sum()
    }
}

impl Drop for StubConverter {
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
            // A request converter.py would crash on: the connection closes unanswered.
            let close = Arc::new(Notify::new());
            let closing = close.clone();
            let service = hyper::service::service_fn(move |req| {
                let (shared, close) = (shared.clone(), close.clone());
                async move { Ok::<_, Infallible>(handle(&shared, req, &close).await) }
            });
            let connection = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(tls), service);
            tokio::select! {
                _ = connection => {}
                _ = closing.notified() => {}
            }
        });
    }
}

async fn handle(shared: &Shared, req: Request<Incoming>, close: &Notify) -> Response<Full<Bytes>> {
    let path = req.uri().path().to_string();
    let query = req.uri().query().unwrap_or_default().to_string();
    let headers = req
        .headers()
        .iter()
        .map(|(k, v)| {
            (
                k.as_str().to_string(),
                v.to_str().unwrap_or_default().into(),
            )
        })
        .collect();
    let bytes = match req.into_body().collect().await {
        Ok(body) => body.to_bytes(),
        Err(_) => Bytes::new(),
    };
    let raw = String::from_utf8_lossy(&bytes).into_owned();
    let body: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    let review = ReceivedReview {
        path: path.clone(),
        query,
        headers,
        raw,
        body,
    };
    shared.reviews.lock().unwrap().push(review);
    let answered = shared.answer_as.lock().unwrap().clone().unwrap_or(path);
    match answer::answer(&answered, &bytes) {
        Answer::Body(body) => reply(Bytes::from(body)),
        Answer::Crash => {
            // converter.py's handler raised: http.server closes the connection unanswered.
            close.notify_one();
            std::future::pending().await
        }
        // `/convert-slow`: never answers; the caller gives up and closes the connection.
        Answer::Hang => std::future::pending().await,
    }
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
