//! The one pooled HTTPS client every webhook is called through, admission and CRD
//! conversion alike (kube's `webhookutil.ClientManager`): a client per connection
//! identity, cached; each call bounded, sent with the `User-Agent` and `?timeout=` its
//! caller asks for ([`Call`]); failures in kube's words.
//!
//! - [`endpoint`]: where a webhook is called (`clientConfig`).
//! - [`credentials`]: `--admission-control-config-file` and its kubeconfig users (read at
//!   start-up, so they live in `config::admission::users`).
//! - `connect`: the pooled clients (TLS, HTTP/2, the service override).
//! - `warmup`: a cold client's first connection is made alone.
//! - [`error`]: [`CallError`], Go's and client-go's texts.
//! - [`answer`]: a 2xx answer's body as client-go's decoder first reads it.

pub mod answer;
mod connect;
pub mod endpoint;
pub mod error;
mod warmup;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine;
use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};

pub use crate::config::admission::users as credentials;
pub use credentials::{AdmissionUsers, Credentials, Users};
pub use endpoint::Endpoint;
pub use error::CallError;

use connect::{Overrides, Pooled};
use warmup::Warmup;

/// kube's client cache size (`defaultCacheSize`); past it the cache starts over.
const MAX_CLIENTS: usize = 200;
/// The `User-Agent` kube's webhook clients send: k8s.io/apiserver's
/// `pkg/util/webhook/authentication.go` `setGlobalDefaults` sets it on every webhook
/// client config the default resolver makes, admission's and CRD conversion's alike.
pub const USER_AGENT: &str = "kube-apiserver-admission";

/// How one call is made besides its endpoint and body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Call {
    /// The call's whole bound (connect, send, answer read); past it the call fails with
    /// `context deadline exceeded`.
    pub bound: Duration,
    /// The `?timeout=` query sent (client-go sends its client's timeout, Go-printed);
    /// `None` sends no query.
    pub query_timeout: Option<Duration>,
    /// The `User-Agent` header.
    pub user_agent: &'static str,
    /// What the bound stands for, which Go's text for passing it names.
    pub bound_by: Bound,
    /// The bytes of objects the request carries for the answer to return (a
    /// ConversionReview's; 0 for admission): the largest answer read is
    /// [`Settings::max_response_bytes`] plus twice these.
    pub returned_bytes: usize,
}

/// Whose deadline bounds a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The request context's (admission's webhook timeout): `context deadline exceeded`.
    Context,
    /// The client's own `http.Client.Timeout` (client-go's `rest.Config.Timeout`, kube's
    /// conversion client): Go adds `(Client.Timeout exceeded while awaiting headers)`, or
    /// `(Client.Timeout or context cancellation while reading body)` once headers came.
    ClientTimeout,
}

impl Bound {
    fn text(self, headers_came: bool) -> &'static str {
        match (self, headers_came) {
            (Bound::Context, _) => "context deadline exceeded",
            (Bound::ClientTimeout, false) => {
                "context deadline exceeded (Client.Timeout exceeded while awaiting headers)"
            }
            (Bound::ClientTimeout, true) => {
                "context deadline exceeded (Client.Timeout or context cancellation while reading body)"
            }
        }
    }
}

impl Call {
    /// An admission webhook's call: bounded by `timeout` and sending it as `?timeout=`.
    pub fn admission(timeout: Duration) -> Call {
        Call {
            bound: timeout,
            query_timeout: Some(timeout),
            user_agent: USER_AGENT,
            bound_by: Bound::Context,
            returned_bytes: 0,
        }
    }
}

/// How the transport is set up at start-up.
#[derive(Clone, Debug, Default)]
pub struct Settings {
    /// The users of this plugin's `kubeConfigFile` (`--admission-control-config-file`).
    pub users: Users,
    /// `--admission-webhook-service-address`: `<namespace>/<name>` → where its service
    /// is reached (verified still as `<name>.<namespace>.svc`).
    pub service_addresses: Vec<(String, String, SocketAddr)>,
    /// The largest answer read; a longer one fails the call.
    pub max_response_bytes: usize,
}

/// A pooled client, the credentials it sends, and its warm-up.
type Client = (Pooled, Credentials, Arc<Warmup>);

/// The clients of one authority, told apart by the CA bundle they trust (a call looks its
/// client up by the authority without copying or hashing the bundle).
type ByCaBundle = Vec<(Option<Vec<u8>>, Client)>;

/// The pooled client of one admission plugin.
pub struct Transport {
    settings: Settings,
    overrides: Overrides,
    clients: Mutex<HashMap<String, ByCaBundle>>,
}

impl Transport {
    pub fn new(settings: Settings) -> Transport {
        let overrides = settings
            .service_addresses
            .iter()
            .map(|(namespace, name, addr)| (format!("{name}.{namespace}.svc"), *addr))
            .collect();
        Transport {
            settings,
            overrides: Arc::new(overrides),
            clients: Mutex::new(HashMap::new()),
        }
    }

    /// POSTs `body` (an AdmissionReview) to `endpoint`, bounded by `timeout` (kube's
    /// `timeoutSeconds`, or less when the request has less left); the 2xx answer's body.
    pub async fn post(
        &self,
        endpoint: &Endpoint,
        body: Vec<u8>,
        timeout: Duration,
    ) -> Result<Vec<u8>, CallError> {
        self.call(endpoint, body, Call::admission(timeout)).await
    }

    /// POSTs `body` to `endpoint` as `call` says; the 2xx answer's body.
    pub async fn call(
        &self,
        endpoint: &Endpoint,
        body: Vec<u8>,
        call: Call,
    ) -> Result<Vec<u8>, CallError> {
        let url = match call.query_timeout {
            Some(timeout) => format!("{}?timeout={}", endpoint.base_url(), go_seconds(timeout)),
            None => endpoint.base_url(),
        };
        let timeout = call.bound;
        let authority = authority(&url);
        let (client, credentials, warmup) = self.client(endpoint, &authority)?;
        let request = request(&url, body, &credentials, call.user_agent)?;
        let limit = (self.settings.max_response_bytes)
            .saturating_add(call.returned_bytes.saturating_mul(2));
        let headers_came = AtomicBool::new(false);
        let exchange = async {
            let response = warmup
                .send(&client, request)
                .await
                .map_err(|e| CallError::Post {
                    url: url.clone(),
                    cause: error::go_cause(&e, &authority),
                })?;
            headers_came.store(true, Ordering::Relaxed);
            let code = response.status().as_u16();
            let content_type = response
                .headers()
                .get(http::header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string);
            let bytes = Limited::new(response.into_body(), limit.max(1))
                .collect()
                .await
                .map_err(
                    |e| match e.downcast_ref::<http_body_util::LengthLimitError>() {
                        Some(_) => CallError::TooLarge {
                            url: url.clone(),
                            limit,
                        },
                        None => CallError::Post {
                            url: url.clone(),
                            cause: go_cause_boxed(&*e, &authority),
                        },
                    },
                )?
                .to_bytes();
            Ok::<_, CallError>((code, content_type, bytes))
        };
        let (code, content_type, bytes) =
            tokio::time::timeout(timeout, exchange)
                .await
                .map_err(|_| CallError::Post {
                    url: url.clone(),
                    cause: call
                        .bound_by
                        .text(headers_came.load(Ordering::Relaxed))
                        .into(),
                })??;
        if !(200..=206).contains(&code) {
            return Err(error::status_error(code, content_type.as_deref(), &bytes));
        }
        if bytes.is_empty() {
            let content_type = content_type.unwrap_or_else(|| "application/json".into());
            return Err(CallError::Empty { code, content_type });
        }
        Ok(bytes.to_vec())
    }

    fn client(&self, endpoint: &Endpoint, authority: &str) -> Result<Client, CallError> {
        let ca_bundle = endpoint.ca_bundle();
        let mut clients = self.clients.lock().unwrap_or_else(|e| e.into_inner());
        let same = |(ca, _): &&(Option<Vec<u8>>, Client)| ca.as_deref() == ca_bundle;
        if let Some((_, found)) = clients.get(authority).and_then(|c| c.iter().find(same)) {
            return Ok(found.clone());
        }
        let credentials = self
            .settings
            .users
            .for_target(&target(authority))
            .map_err(CallError::Client)?;
        let client = connect::client(endpoint.ca_bundle(), &credentials, &self.overrides)
            .map_err(CallError::Client)?;
        if clients.values().map(Vec::len).sum::<usize>() >= MAX_CLIENTS {
            clients.clear();
        }
        let entry = (client, credentials, Arc::new(Warmup::default()));
        let known = clients.entry(authority.to_string()).or_default();
        known.push((ca_bundle.map(<[u8]>::to_vec), entry.clone()));
        Ok(entry)
    }
}

fn go_cause_boxed(
    error: &(dyn std::error::Error + Send + Sync + 'static),
    authority: &str,
) -> String {
    error::go_cause(error, authority)
}

/// The URL's `host[:port]`.
fn authority(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    rest.split(['/', '?'])
        .next()
        .unwrap_or_default()
        .to_string()
}

/// kube's credential lookup key: `host:port`, 443 when the URL names none.
fn target(authority: &str) -> String {
    match authority.rsplit_once(':') {
        Some((_, port)) if !port.contains(']') => authority.to_string(),
        _ => format!("{authority}:443"),
    }
}

fn request(
    url: &str,
    body: Vec<u8>,
    credentials: &Credentials,
    user_agent: &str,
) -> Result<http::Request<Full<Bytes>>, CallError> {
    let mut builder = http::Request::post(url)
        .header(http::header::CONTENT_TYPE, "application/json")
        .header(http::header::ACCEPT, "application/json, */*")
        .header(http::header::USER_AGENT, user_agent);
    // The caller's span travels as `traceparent` (otelhttp's transport, which passes an
    // incoming trace context on even when nothing is recorded).
    if let Some(headers) = builder.headers_mut() {
        crate::telemetry::propagation::inject(headers);
    }
    if let Some(token) = &credentials.bearer_token {
        builder = builder.header(http::header::AUTHORIZATION, format!("Bearer {token}"));
    } else if let Some((user, password)) = &credentials.basic {
        let basic = base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
        builder = builder.header(http::header::AUTHORIZATION, format!("Basic {basic}"));
    }
    builder
        .body(Full::new(Bytes::from(body)))
        .map_err(|e| CallError::Client(format!("Unparsable URL: {e}")))
}

/// kube's `?timeout=`: the time left rounded up to whole seconds, as Go prints a Duration.
pub fn go_seconds(timeout: Duration) -> String {
    let mut secs = timeout.as_secs();
    if timeout.subsec_nanos() > 0 {
        secs += 1;
    }
    match (secs / 3600, secs % 3600 / 60, secs % 60) {
        (0, 0, s) => format!("{s}s"),
        (0, m, s) => format!("{m}m{s}s"),
        (h, m, s) => format!("{h}h{m}m{s}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_seconds_rounded_up_as_go_prints() {
        let cases = [
            (Duration::from_secs(10), "10s"),
            (Duration::from_millis(4200), "5s"),
            (Duration::from_secs(90), "1m30s"),
            (Duration::from_secs(3600), "1h0m0s"),
        ];
        for (d, want) in cases {
            assert_eq!(go_seconds(d), want);
        }
    }

    #[test]
    fn target_defaults_port_443() {
        assert_eq!(target("hook.ns.svc:8443"), "hook.ns.svc:8443");
        assert_eq!(target("example.com"), "example.com:443");
        assert_eq!(target("[::1]"), "[::1]:443");
    }
}
