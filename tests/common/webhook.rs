//! A real HTTPS admission webhook for tests: its own CA (the repo's `pki` helpers),
//! HTTP/2 and HTTP/1.1 by ALPN on 127.0.0.1:0, answering AdmissionReviews (`v1` or
//! `v1beta1`, in the version it was sent) per URL path as the test sets with
//! [`Webhook::on`] (unset paths allow). It records every review received
//! ([`Webhook::reviews`]) and counts the TCP connections it accepted. A client
//! certificate signed by its CA ([`Webhook::client_pair`]) is accepted, not required.
//!
//! Use with `#[path = "common/webhook.rs"] mod webhook;`. The HTTP side is in
//! `webhook_wire.rs`.
//!
//! ```ignore
//! let hook = Webhook::start(&["hook.ns.svc"]);
//! hook.on("/deny", Behaviour::Deny { code: 403, reason: "Forbidden".into(), message: "no".into() });
//! hook.on("/label", Behaviour::custom(|request| match request["operation"] == "CREATE" {
//!     true => json!({"allowed": false, "status": {"code": 400, "message": "not on create"}}),
//!     false => json!({"allowed": true}),
//! }));
//! // … point a webhook configuration at hook.url("/deny") with caBundle hook.ca_pem() …
//! assert_eq!(hook.reviews_at("/deny")[0].request()["operation"], "CREATE");
//! ```
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "webhook_wire.rs"]
pub(crate) mod wire;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crd_apiserver::server::pki::{self, Authority, Leaf};
use serde_json::Value;
use tokio::sync::oneshot;

/// How the webhook answers the reviews POSTed to one path. Every answer but `Garbage`,
/// `WrongKind` and `Close` is an AdmissionReview of the version sent, with the request's
/// uid (unless `WrongUid`, or a `Custom` response naming another).
#[derive(Clone)]
pub enum Behaviour {
    /// `allowed: true`.
    Allow,
    /// `allowed: false` with `status` {code, reason, message}.
    Deny {
        code: u16,
        reason: String,
        message: String,
    },
    /// Allows with this JSONPatch (an array of operations), sent base64 with
    /// `patchType: JSONPatch`.
    Patch(Value),
    /// Waits this long, then allows (a webhook past its timeout).
    Slow(Duration),
    /// A 200 `application/json` answer with this body as it is.
    Garbage(String),
    /// A 200 answer of kind `AdmissionResponse` instead of `AdmissionReview`.
    WrongKind,
    /// Allows, with the uid `wrong-<request uid>`.
    WrongUid,
    /// Closes the connection without answering (every request in flight on it fails).
    Close,
    /// Allows with these `warnings`.
    Warnings(Vec<String>),
    /// Allows with these `auditAnnotations`.
    AuditAnnotations(BTreeMap<String, String>),
    /// The test's answer: given the review's `request`, the `response` to send (its `uid`
    /// is filled in from the request when the closure leaves it out).
    Custom(Arc<dyn Fn(&Value) -> Value + Send + Sync>),
}

impl Behaviour {
    /// `Behaviour::Custom` from a closure.
    pub fn custom(answer: impl Fn(&Value) -> Value + Send + Sync + 'static) -> Behaviour {
        Behaviour::Custom(Arc::new(answer))
    }
}

/// One POST the webhook received.
#[derive(Clone, Debug)]
pub struct Review {
    /// The URL path (no query).
    pub path: String,
    /// The URL query, e.g. `timeout=10s`.
    pub query: String,
    /// The AdmissionReview's version: `v1` or `v1beta1` (empty when the body was no review).
    pub version: String,
    /// The HTTP version it came over (`HTTP/2.0`, `HTTP/1.1`).
    pub http: http::Version,
    /// The authority called (HTTP/2 `:authority`, else the `Host` header), e.g.
    /// `hook.webhooks.svc:8443` for a service.
    pub authority: Option<String>,
    /// The `Authorization` header, if any.
    pub authorization: Option<String>,
    /// The `User-Agent` header, if any.
    pub user_agent: Option<String>,
    /// The `traceparent` header (W3C trace context), if any.
    pub traceparent: Option<String>,
    /// The CN of the client certificate of its connection, if one was presented.
    pub client_cn: Option<String>,
    /// The whole AdmissionReview as sent (`Value::Null` if the body was not JSON).
    pub body: Value,
}

impl Review {
    /// The review's `request`.
    pub fn request(&self) -> &Value {
        &self.body["request"]
    }
}

pub(crate) struct Shared {
    behaviours: Mutex<BTreeMap<String, Behaviour>>,
    reviews: Mutex<Vec<Review>>,
    connections: AtomicUsize,
}

impl Shared {
    fn behaviour(&self, path: &str) -> Behaviour {
        let behaviours = self.behaviours.lock().unwrap();
        behaviours.get(path).cloned().unwrap_or(Behaviour::Allow)
    }
}

/// A running webhook; stopped on drop.
pub struct Webhook {
    pub addr: SocketAddr,
    ca: Authority,
    shared: Arc<Shared>,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Webhook {
    /// Starts on 127.0.0.1:0 with a serving certificate for `127.0.0.1`, `localhost` and
    /// the extra DNS names given (e.g. a service's `<name>.<namespace>.svc`).
    pub fn start(names: &[&str]) -> Webhook {
        Webhook::serve(names, &[b"h2", b"http/1.1"])
    }

    /// As [`Webhook::start`], offering only HTTP/1.1 by ALPN (as many webhooks written
    /// outside Go do).
    pub fn start_http1(names: &[&str]) -> Webhook {
        Webhook::serve(names, &[b"http/1.1"])
    }

    fn serve(names: &[&str], alpn: &[&[u8]]) -> Webhook {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let addr = listener.local_addr().unwrap();
        // Named per webhook: two webhooks' CAs are told apart by name, as real ones are.
        let ca = pki::new_authority(&format!("test-webhook-ca-{}", addr.port())).unwrap();
        let mut hosts = vec!["127.0.0.1", "localhost"];
        hosts.extend_from_slice(names);
        let serving = ca.issue(Leaf::Serving { hosts: &hosts }).unwrap();
        let shared = Arc::new(Shared {
            behaviours: Mutex::new(BTreeMap::new()),
            reviews: Mutex::new(Vec::new()),
            connections: AtomicUsize::new(0),
        });
        let config = wire::tls_config(&serving, &ca.pem.cert, alpn);
        let (stop, stopped) = oneshot::channel();
        let served = shared.clone();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(wire::serve(listener, config, served, stopped));
        });
        Webhook {
            addr,
            ca,
            shared,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    /// Answers the reviews POSTed to `path` so from now on.
    pub fn on(&self, path: &str, behaviour: Behaviour) {
        let mut behaviours = self.shared.behaviours.lock().unwrap();
        behaviours.insert(path.into(), behaviour);
    }

    /// `https://127.0.0.1:<port><path>`.
    pub fn url(&self, path: &str) -> String {
        format!("https://{}{path}", self.addr)
    }

    /// The PEM of the CA its serving certificate chains to (a `caBundle`).
    pub fn ca_pem(&self) -> String {
        self.ca.pem.cert.clone()
    }

    /// A client certificate and key (PEM) for `cn`, signed by its CA, which it accepts.
    pub fn client_pair(&self, cn: &str) -> pki::Pem {
        self.ca
            .issue(Leaf::Client {
                user: cn,
                groups: &[],
            })
            .unwrap()
    }

    /// Every POST received, in order.
    pub fn reviews(&self) -> Vec<Review> {
        self.shared.reviews.lock().unwrap().clone()
    }

    /// The POSTs received at `path`, in order.
    pub fn reviews_at(&self, path: &str) -> Vec<Review> {
        let reviews = self.shared.reviews.lock().unwrap();
        reviews.iter().filter(|r| r.path == path).cloned().collect()
    }

    /// Every POST received since the last call, forgotten here (a benchmark's memory
    /// stays bounded).
    pub fn take_reviews(&self) -> Vec<Review> {
        std::mem::take(&mut *self.shared.reviews.lock().unwrap())
    }

    /// TCP connections accepted so far.
    pub fn connections(&self) -> usize {
        self.shared.connections.load(Ordering::SeqCst)
    }
}

impl Drop for Webhook {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
