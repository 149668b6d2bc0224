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
    Text {
        code: StatusCode,
        body: String,
    },
    Error(ApiError),
    /// A response its handler built whole (OpenAPI: ETag, 304, 301 Location, caching headers).
    Raw(Response<Body>),
}

impl Reply {
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
        if let (Some(w), Reply::Object { warnings, .. } | Reply::Stream { warnings, .. }) =
            (warning, &mut self)
        {
            warnings.push(w.to_string());
        }
        self
    }

    /// Adds `Warning` headers after those already present (schema admission's
    /// unknown and duplicate field warnings come after a deprecation warning).
    pub fn with_warnings(mut self, more: Vec<String>) -> Reply {
        if let Reply::Object { warnings, .. } | Reply::Stream { warnings, .. } = &mut self {
            warnings.extend(more);
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
            Reply::Text { code, body } => {
                let mut resp = Response::new(Body::from(body));
                *resp.status_mut() = code;
                set_content_type(&mut resp, "text/plain; charset=utf-8");
                resp
            }
            Reply::Error(err) => error_response(&err),
            Reply::Raw(resp) => resp,
        }
    }
}

/// The single place an [`ApiError`] becomes an HTTP response.
pub fn error_response(err: &ApiError) -> Response<Body> {
    let code = StatusCode::from_u16(err.code()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    if code.is_server_error() {
        tracing::warn!(code = code.as_u16(), error = %err, "request failed");
    }
    let mut resp = object_response(code, &err.to_status(), Representation::Json, &[]);
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
    let bytes = match representation {
        Representation::Yaml => serde_saphyr::to_string(body).map(String::into_bytes).ok(),
        _ => serde_json::to_vec(body).ok(),
    };
    let Some(bytes) = bytes else {
        let err = ApiError::Internal("failed to encode the response".into());
        return error_response(&err);
    };
    let mut resp = Response::new(Body::from(bytes));
    *resp.status_mut() = code;
    set_content_type(&mut resp, representation.content_type());
    add_warnings(&mut resp, warnings);
    resp
}

fn set_content_type(resp: &mut Response<Body>, content_type: &'static str) {
    resp.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
}

fn add_warnings(resp: &mut Response<Body>, warnings: &[String]) {
    for w in warnings {
        let text = format!("299 - \"{}\"", w.replace('\\', "\\\\").replace('"', "\\\""));
        if let Ok(v) = HeaderValue::from_str(&text) {
            resp.headers_mut().append(header::WARNING, v);
        }
    }
}
