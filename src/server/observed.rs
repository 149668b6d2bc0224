//! What audit and tracing see of a request before it is served: the audit event's
//! request metadata (kube's `LogRequestMetadata`) and the server span's request.

use http::{HeaderMap, Method};

use super::chain::Peer;
use crate::audit;
use crate::audit::request::RequestMeta;
use crate::request::info::RequestInfo;
use crate::request::user::UserInfo;
use crate::telemetry::server::{PRIVILEGED_GROUPS, Route, ServerRequest};

/// The wall-clock time of `started` (the server span's start).
pub(super) fn received_at(started: std::time::Instant) -> std::time::SystemTime {
    let now = std::time::SystemTime::now();
    now.checked_sub(started.elapsed()).unwrap_or(now)
}

/// What the request's server span is made of (see `telemetry::server`).
pub(super) fn server_request<'a>(
    info: &'a RequestInfo,
    method: &'a Method,
    uri: &'a str,
    headers: &'a HeaderMap,
    user: &UserInfo,
    peer: &Peer<'a>,
    started: std::time::Instant,
) -> ServerRequest<'a> {
    let route = info.is_resource_request.then(|| Route {
        api_prefix: &info.api_prefix,
        api_group: &info.api_group,
        api_version: &info.api_version,
        namespaced: !info.namespace.is_empty(),
        resource: &info.resource,
        named: !info.name.is_empty(),
        subresource: info.subresource.as_str(),
    });
    let privileged = user
        .groups
        .iter()
        .any(|g| PRIVILEGED_GROUPS.contains(&g.as_str()));
    let body_size = headers
        .get(http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok());
    ServerRequest {
        method: method.as_str(),
        uri,
        route,
        version: peer.version,
        headers,
        privileged,
        received: received_at(started),
        body_size,
        peer: peer.address,
        peer_port: peer.port,
        audit_id: peer.audit_id,
    }
}

/// What the audit event records of the request before it is served (kube's
/// `LogRequestMetadata`).
pub(super) fn audit_meta<'a>(
    peer: &Peer<'a>,
    uri: &'a str,
    info: &'a RequestInfo,
    headers: &'a HeaderMap,
    started: std::time::Instant,
) -> RequestMeta<'a> {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let received = jiff::Timestamp::now() - started.elapsed();
    RequestMeta {
        audit_id: peer.audit_id,
        uri,
        info,
        user: None,
        source_ips: audit::request::source_ips(
            header("x-forwarded-for"),
            header("x-real-ip"),
            peer.address,
        ),
        user_agent: header("user-agent").unwrap_or_default(),
        received,
    }
}
