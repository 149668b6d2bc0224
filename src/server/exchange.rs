//! One HTTP request on a connection: its body read within the size limit and the request
//! timeout, then the filter chain, then the HEAD rule on the response.

use std::sync::Arc;

use axum::body::Body;
use bytes::{Bytes, BytesMut};
use http::{Method, Request, Response};
use http_body_util::BodyExt;
use hyper::body::Incoming;
use rustls::pki_types::CertificateDer;
use tokio::time::Instant;

use super::chain::{self, Chain};
use crate::error::ApiError;
use crate::request::body::MAX_BODY_BYTES;

/// One HTTP request: body read within the limit and the request timeout, then the
/// handler pipeline.
pub async fn handle(
    chain: Arc<Chain>,
    certs: &[CertificateDer<'static>],
    peer: std::net::SocketAddr,
    req: Request<Incoming>,
) -> Response<Body> {
    // The deadline runs from the request head, as kube's timeout filter: the body is only
    // read after authorization, but a client cannot stretch it past the request timeout.
    let deadline = Instant::now() + chain.request_timeout;
    let (parts, body) = req.into_parts();
    let body = read_body_by(deadline, parts.method.clone(), body);
    let path = parts.uri.path().to_string();
    let query = parts.uri.query().unwrap_or_default().to_string();
    let method = parts.method.clone();
    // kube's `WithAuditInit`: the client's `Audit-ID`, else a new UUID, on every answer.
    let audit_id = audit_id(&parts.headers);
    let peer = chain::Peer {
        certs,
        address: peer.ip(),
        port: peer.port(),
        audit_id: std::str::from_utf8(audit_id.as_bytes()).unwrap_or_default(),
        version: parts.version,
    };
    // Boxed: the chain's future is deep (audit, tracing, admission, conversion), and
    // inlined whole into this one its layout overflows rustc's query depth in release.
    let (reply, trace) = Box::pin(chain::serve(
        &chain,
        parts.method,
        &path,
        &query,
        parts.headers,
        body,
        peer,
    ))
    .await;
    // The reply is encoded in the handler's span (kube's `SerializeObject` is its child).
    let mut resp = trace.in_scope(|| reply.into_response());
    // A streamed body of known length (served bytes) says it in its Content-Length.
    let size = hyper::body::Body::size_hint(resp.body())
        .exact()
        .or_else(|| content_length(resp.headers()));
    trace.end(resp.status().as_u16(), size);
    resp.headers_mut().insert(AUDIT_ID, audit_id);
    super::head::answer(&method, resp)
}

/// The `Content-Length` a response was given, if any.
fn content_length(headers: &http::HeaderMap) -> Option<u64> {
    headers
        .get(http::header::CONTENT_LENGTH)?
        .to_str()
        .ok()?
        .parse()
        .ok()
}

/// The `Audit-ID` header, as kube's `WithAuditInit` reads and sends it.
const AUDIT_ID: http::HeaderName = http::HeaderName::from_static("audit-id");

/// The request's `Audit-ID` when it sent a non-empty one, else a new UUID.
fn audit_id(headers: &http::HeaderMap) -> http::HeaderValue {
    match headers.get(&AUDIT_ID) {
        Some(id) if !id.is_empty() => id.clone(),
        _ => {
            let mut buf = uuid::Uuid::encode_buffer();
            let text = uuid::Uuid::new_v4().hyphenated().encode_lower(&mut buf);
            http::HeaderValue::from_str(text).unwrap_or(http::HeaderValue::from_static(""))
        }
    }
}

async fn read_body_by(
    deadline: Instant,
    method: Method,
    body: Incoming,
) -> Result<Bytes, ApiError> {
    tokio::time::timeout_at(deadline, read_body(method, body))
        .await
        .unwrap_or_else(|_| Err(ApiError::request_timeout()))
}

/// Bodies over the limit are still read (and dropped) up to this size, so the client
/// receives the 413 instead of a reset connection.
const DRAIN_LIMIT: usize = 16 * 1024 * 1024;

async fn read_body(method: Method, body: Incoming) -> Result<Bytes, ApiError> {
    if !matches!(
        method,
        Method::POST | Method::PUT | Method::PATCH | Method::DELETE
    ) {
        return Ok(Bytes::new());
    }
    let mut body = body;
    let mut buf = BytesMut::new();
    let mut seen = 0usize;
    while let Some(frame) = body.frame().await {
        let frame = frame
            .map_err(|e| ApiError::BadRequest(format!("error reading the request body: {e}")))?;
        let Ok(data) = frame.into_data() else {
            continue;
        };
        seen += data.len();
        if seen > DRAIN_LIMIT {
            break;
        }
        if seen <= MAX_BODY_BYTES {
            buf.extend_from_slice(&data);
        }
    }
    if seen > MAX_BODY_BYTES {
        return Err(ApiError::RequestEntityTooLarge(format!(
            "Request entity too large: limit is {MAX_BODY_BYTES}"
        )));
    }
    Ok(buf.freeze())
}
