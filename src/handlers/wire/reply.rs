//! Replies: objects in the negotiated representation, watch streams, plain text, and
//! errors — converted into `metav1.Status` bodies here and nowhere else.

use std::pin::Pin;

use axum::body::Body;
use bytes::Bytes;
use futures::Stream;
use http::{HeaderValue, Response, StatusCode, header};
use serde_json::Value;

use crate::error::ApiError;
use crate::request::negotiate::Representation;

/// A body stream (watch events).
pub type ByteStream = Pin<Box<dyn Stream<Item = Result<Bytes, std::io::Error>> + Send>>;

/// What a handler answers.
pub enum Reply {
    Object {
        code: StatusCode,
        body: Value,
        representation: Representation,
        warnings: Vec<String>,
    },
    Stream {
        content_type: &'static str,
        stream: ByteStream,
        warnings: Vec<String>,
    },
    /// A 200 JSON body already encoded (served bytes), streamed with its exact length.
    Encoded {
        body: ByteStream,
        len: usize,
        warnings: Vec<String>,
    },
    Text {
        code: StatusCode,
        body: String,
    },
    Error(ApiError),
    /// An error with the warnings recorded before it (kube sends them with the Status).
    Failed {
        error: ApiError,
        warnings: Vec<String>,
    },
    /// A response its handler built whole (OpenAPI: ETag, 304, 301 Location, caching headers).
    Raw(Response<Body>),
}

impl Reply {
    /// The `/metrics` reply: the registry in the OpenMetrics text format.
    pub fn metrics(text: String) -> Reply {
        let body = Bytes::from(text);
        Reply::Stream {
            content_type: crate::metrics::CONTENT_TYPE,
            stream: Box::pin(futures::stream::once(async move { Ok(body) })),
            warnings: Vec::new(),
        }
    }

    /// The HTTP status code the reply will be sent with.
    pub fn code(&self) -> u16 {
        match self {
            Reply::Object { code, .. } | Reply::Text { code, .. } => code.as_u16(),
            Reply::Stream { .. } | Reply::Encoded { .. } => 200,
            Reply::Error(e) | Reply::Failed { error: e, .. } => e.code(),
            Reply::Raw(resp) => resp.status().as_u16(),
        }
    }

    /// A 200 JSON-family object.
    pub fn ok(body: Value, representation: Representation) -> Reply {
        Reply::Object {
            code: StatusCode::OK,
            body,
            representation,
            warnings: Vec::new(),
        }
    }

    /// Adds a `Warning` header (kube's `299 - "text"` form).
    pub fn with_warning(mut self, warning: Option<&str>) -> Reply {
        if let (
            Some(w),
            Reply::Object { warnings, .. }
            | Reply::Stream { warnings, .. }
            | Reply::Encoded { warnings, .. },
        ) = (warning, &mut self)
        {
            warnings.push(w.to_string());
        }
        self
    }

    /// Puts `warning` before every other warning, on errors too (kube's CRD handler
    /// records a deprecated version's warning before it serves the request).
    pub fn with_leading_warning(mut self, warning: Option<&str>) -> Reply {
        let Some(first) = warning.map(str::to_string) else {
            return self;
        };
        match &mut self {
            Reply::Object { warnings, .. }
            | Reply::Stream { warnings, .. }
            | Reply::Encoded { warnings, .. }
            | Reply::Failed { warnings, .. } => warnings.insert(0, first),
            Reply::Error(_) => return self.with_warnings(vec![first]),
            Reply::Text { .. } | Reply::Raw(_) => {}
        }
        self
    }

    /// Adds `Warning` headers after those already present (schema admission's
    /// unknown and duplicate field warnings come after a deprecation warning).
    pub fn with_warnings(mut self, more: Vec<String>) -> Reply {
        match &mut self {
            Reply::Object { warnings, .. }
            | Reply::Stream { warnings, .. }
            | Reply::Encoded { warnings, .. }
            | Reply::Failed { warnings, .. } => warnings.extend(more),
            Reply::Error(_) if !more.is_empty() => {
                let Reply::Error(error) = self else {
                    return self;
                };
                return Reply::Failed {
                    error,
                    warnings: more,
                };
            }
            _ => {}
        }
        self
    }

    pub fn into_response(self) -> Response<Body> {
        match self {
            Reply::Object {
                code,
                body,
                representation,
                warnings,
            } => object_response(code, &body, representation, &warnings),
            Reply::Stream {
                content_type,
                stream,
                warnings,
            } => {
                let mut resp = Response::new(Body::from_stream(stream));
                set_content_type(&mut resp, content_type);
                add_warnings(&mut resp, &warnings);
                resp
            }
            Reply::Encoded {
                body,
                len,
                warnings,
            } => {
                // Served bytes, encoded already: kube's SerializeObject span all the same.
                let span = serialize_span(Representation::Json);
                written(&span, len);
                let mut resp = Response::new(Body::from_stream(body));
                set_content_type(&mut resp, Representation::Json.content_type());
                resp.headers_mut()
                    .insert(header::CONTENT_LENGTH, HeaderValue::from(len));
                add_warnings(&mut resp, &warnings);
                resp
            }
            Reply::Text { code, body } => {
                let mut resp = Response::new(Body::from(body));
                *resp.status_mut() = code;
                set_content_type(&mut resp, "text/plain; charset=utf-8");
                resp
            }
            Reply::Error(err) => error_response(&err),
            Reply::Failed { error, warnings } => {
                let mut resp = error_response(&error);
                add_warnings(&mut resp, &warnings);
                resp
            }
            Reply::Raw(resp) => resp,
        }
    }
}

/// The single place an [`ApiError`] becomes an HTTP response.
pub fn error_response(err: &ApiError) -> Response<Body> {
    // A 5xx is logged with the request's attributes where they are at hand
    // (`handlers::stages`).
    let code = StatusCode::from_u16(err.code()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let status = err.to_status();
    let mut resp = object_response(code, &status, Representation::Json, &[]);
    // As kube's ErrorNegotiated: a Status that names a retry delay also sends it as
    // Retry-After.
    if let Some(seconds) = status["details"]["retryAfterSeconds"]
        .as_u64()
        .filter(|s| *s > 0)
    {
        resp.headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
    }
    if let ApiError::RequestTimeout = err {
        resp.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/plain; charset=utf-8"),
        );
    }
    if let ApiError::Unauthorized = err {
        resp.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static("Basic realm=\"kubernetes-master\""),
        );
    }
    resp
}

fn object_response(
    code: StatusCode,
    body: &Value,
    representation: Representation,
    warnings: &[String],
) -> Response<Body> {
    let span = serialize_span(representation);
    let bytes = match representation {
        Representation::Yaml => serde_saphyr::to_string(body).map(String::into_bytes).ok(),
        _ => {
            // Sent and dropped at once: sized for most objects, never trimmed.
            let mut bytes = Vec::with_capacity(1024);
            serde_json::to_writer(&mut bytes, body).ok().map(|()| bytes)
        }
    };
    let Some(bytes) = bytes else {
        tracing::error!(code = code.as_u16(), "failed to encode the response");
        let err = ApiError::Internal("failed to encode the response".into());
        return error_response(&err);
    };
    written(&span, bytes.len());
    let mut resp = Response::new(Body::from(bytes));
    *resp.status_mut() = code;
    set_content_type(&mut resp, representation.content_type());
    add_warnings(&mut resp, warnings);
    resp
}

/// kube's `SerializeObject` span of a response body.
fn serialize_span(representation: Representation) -> crate::telemetry::Span {
    use crate::telemetry::KeyValue;
    crate::telemetry::Span::start("SerializeObject", || {
        use crate::telemetry::server::Facts;
        let facts = Facts::current();
        let fact = |read: fn(&Facts) -> String| facts.as_ref().map(read).unwrap_or_default();
        vec![
            KeyValue::new("audit-id", fact(|f| f.audit_id.clone())),
            KeyValue::new("method", fact(|f| f.method.clone())),
            KeyValue::new("url", fact(|f| f.url.clone())),
            KeyValue::new("protocol", fact(|f| f.protocol.to_string())),
            KeyValue::new("mediaType", representation.content_type()),
            KeyValue::new(
                "encoder",
                encoder(representation, &fact(|f| f.group_version.clone())),
            ),
        ]
    })
}

/// The serialization's events, as kube's deferred writer adds them (the body is handed
/// to the connection whole).
fn written(span: &crate::telemetry::Span, size: usize) {
    use crate::telemetry::KeyValue;
    let size = || {
        vec![KeyValue::new(
            "size",
            i64::try_from(size).unwrap_or(i64::MAX),
        )]
    };
    span.event_with("About to start writing response", || {
        // Go's `%T` of the response writer kube writes to.
        let writer = match crate::telemetry::server::Facts::current().map(|f| f.protocol) {
            Some("HTTP/2.0") => "*http2.responseWriter",
            _ => "*http.response",
        };
        let mut attributes = vec![KeyValue::new("writer", writer)];
        attributes.extend(size());
        attributes
    });
    span.event_with("Write call succeeded", size);
}

/// The encoder's identifier as kube's span names it (`runtime.Identifier` of its
/// versioning JSON or YAML serializer for `group_version`).
fn encoder(representation: Representation, group_version: &str) -> String {
    let yaml = matches!(representation, Representation::Yaml);
    let inner = format!(r#"{{"name":"json","pretty":"false","strict":"false","yaml":"{yaml}"}}"#);
    serde_json::json!({"encodeGV": group_version, "encoder": inner, "name": "versioning"})
        .to_string()
}

fn set_content_type(resp: &mut Response<Body>, content_type: &'static str) {
    resp.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
}

fn add_warnings(resp: &mut Response<Body>, warnings: &[String]) {
    for w in recorded_warnings(warnings) {
        let text = format!("299 - \"{}\"", w.replace('\\', "\\\\").replace('"', "\\\""));
        // UTF-8 text is sent as obs-text bytes, as Go writes it.
        if let Ok(v) = HeaderValue::from_bytes(text.as_bytes()) {
            resp.headers_mut().append(header::WARNING, v);
        }
    }
}

/// Total runes of warning text before kube's recorder starts truncating.
const WARNINGS_TOTAL_RUNES: usize = 4 * 1024;
/// Runes each warning keeps once truncating.
const WARNING_ITEM_RUNES: usize = 256;

/// The warnings kube's recorder (k8s.io/apiserver filters/warning.go) would send:
/// duplicates dropped; past 4096 runes in all, every warning is cut to 256 runes and
/// no more are added once 4096 runes are written again.
fn recorded_warnings(warnings: &[String]) -> Vec<String> {
    let cut = |t: &str| -> (String, usize) {
        let n = t.chars().count();
        if n > WARNING_ITEM_RUNES {
            (
                t.chars().take(WARNING_ITEM_RUNES).collect(),
                WARNING_ITEM_RUNES,
            )
        } else {
            (t.to_string(), n)
        }
    };
    let mut seen = std::collections::HashSet::new();
    let mut ordered: Vec<&str> = Vec::new();
    let (mut out, mut written, mut truncating) = (Vec::new(), 0, false);
    for text in warnings.iter().filter(|t| !t.is_empty()) {
        if truncating && written >= WARNINGS_TOTAL_RUNES {
            break;
        }
        if !seen.insert(text.as_str()) {
            continue;
        }
        ordered.push(text);
        let (t, n) = if truncating {
            cut(text)
        } else {
            (text.clone(), text.chars().count())
        };
        if truncating || written + n <= WARNINGS_TOTAL_RUNES {
            written += n;
            out.push(t);
            continue;
        }
        truncating = true;
        out.clear();
        written = 0;
        for w in &ordered {
            let (t, n) = cut(w);
            written += n;
            out.push(t);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recorded_warnings_dedupe_and_truncate_as_kube() {
        let long = |c: char, n: usize| c.to_string().repeat(n);
        let many: Vec<String> = (0..40)
            .map(|i| format!("{i:03}{}", long('x', 300)))
            .collect();
        let got = recorded_warnings(&many);
        // 4096 runes exceeded at the 14th (13 × 303 = 3939): from then on every warning
        // is cut to 256 runes, until 4096 are written again (16 × 256 = 4096).
        assert_eq!(got.len(), 16);
        assert!(got.iter().all(|w| w.chars().count() == 256));
        assert!(got[0].starts_with("000") && got[15].starts_with("015"));
        let small = vec![
            "a".to_string(),
            "b".to_string(),
            "a".to_string(),
            String::new(),
        ];
        assert_eq!(recorded_warnings(&small), vec!["a", "b"]);
    }

    #[test]
    fn error_with_warnings_sends_status_and_warning_headers() {
        let reply = Reply::Error(ApiError::PathNotFound).with_warnings(vec!["x \"y\"".into()]);
        let resp = reply.into_response();
        assert_eq!(resp.status(), StatusCode::NOT_FOUND);
        let warnings: Vec<_> = resp.headers().get_all(header::WARNING).iter().collect();
        assert_eq!(warnings, [r#"299 - "x \"y\"""#]);
        let plain = Reply::Error(ApiError::PathNotFound).with_warnings(Vec::new());
        assert!(matches!(plain, Reply::Error(_)));
    }

    #[test]
    fn with_leading_warning_comes_first_and_once() {
        let deprecated = Some("v1beta1 is deprecated");
        let reply = Reply::Error(ApiError::BadRequest("x".into()))
            .with_warnings(vec!["unknown field \"spec\"".into()])
            .with_leading_warning(deprecated);
        let Reply::Failed { warnings, .. } = &reply else {
            panic!("an error with warnings is Failed");
        };
        assert_eq!(
            warnings,
            &["v1beta1 is deprecated", "unknown field \"spec\""]
        );
        let ok = Reply::ok(Value::Null, Representation::Json)
            .with_warning(deprecated)
            .with_leading_warning(deprecated);
        let resp = ok.into_response();
        let sent: Vec<_> = resp.headers().get_all(header::WARNING).iter().collect();
        assert_eq!(sent, [r#"299 - "v1beta1 is deprecated""#]);
        let error = Reply::Error(ApiError::PathNotFound).with_leading_warning(deprecated);
        assert!(matches!(error, Reply::Failed { .. }));
        let none = Reply::Error(ApiError::PathNotFound).with_leading_warning(None);
        assert!(matches!(none, Reply::Error(_)));
    }
}
