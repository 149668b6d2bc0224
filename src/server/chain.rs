//! The filter chain, as kube's `DefaultBuildHandlerChain` orders it, read top to bottom:
//! request info (with the query, decoded once) → request deadline → authentication →
//! audit (the policy's level, the RequestReceived event) → impersonation → max-in-flight →
//! authorization → body → the handlers' dispatch → one error conversion, the whole traced
//! when tracing is configured. Handlers receive an authorized [`Call`] and never see this
//! module.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderMap, Method};
use tracing::Instrument;

use crate::audit::{self, Auditor, Stage};
use crate::authn::Authenticator;
use crate::authz::Authorizer;
use crate::authz::impersonation::{self, ImpersonationError};
use crate::crd::labels::request_labels;
use crate::error::ApiError;
use crate::handlers::{self, AppState, Call, Reply};
use crate::request::info::{self, RequestInfo, Verb};
use crate::request::query::Query;
use crate::request::user::UserInfo;
use crate::server::audited;
use crate::server::observed::{audit_meta, received_at, server_request};
use crate::telemetry::{RequestTrace, Tracer};

/// What the chain's stages hold, and the handlers' state it dispatches to.
pub struct Chain {
    pub authenticator: Authenticator,
    pub authorizer: Arc<Authorizer>,
    /// How long a request (its body included) may take: kube's `--request-timeout`.
    pub request_timeout: Duration,
    pub handlers: Arc<AppState>,
    /// The audit policy and backend (`--audit-policy-file`); `None` audits nothing.
    pub audit: Option<Arc<Auditor>>,
    /// `--tracing-config-file`'s tracer, or none.
    pub tracer: Tracer,
}

/// The authorizer as the handlers ask it (a creating apply authorizes `create`).
impl handlers::Authorize for Authorizer {
    fn authorize<'a>(
        &'a self,
        user: &'a UserInfo,
        info: &'a RequestInfo,
    ) -> handlers::Authorizing<'a> {
        Box::pin(Authorizer::authorize(self, user, info))
    }
}

/// Who sent a request: the connection's peer and certificates, and the request's audit
/// ID (kube's `Audit-ID`, sent back on every answer).
pub struct Peer<'a> {
    pub certs: &'a [rustls::pki_types::CertificateDer<'static>],
    pub address: std::net::IpAddr,
    /// The connection's peer port.
    pub port: u16,
    pub audit_id: &'a str,
    /// The request's HTTP version.
    pub version: http::Version,
}

/// Runs one request through the stages; never fails (errors become Status replies).
/// The request's spans are the caller's to end once the reply is encoded.
pub async fn serve(
    chain: &Chain,
    method: Method,
    path: &str,
    raw_query: &str,
    headers: HeaderMap,
    body: impl std::future::Future<Output = Result<Bytes, ApiError>>,
    peer: Peer<'_>,
) -> (Reply, RequestTrace) {
    let started = std::time::Instant::now();
    // Request info first: authorization needs verb, resource and name. The query is
    // decoded once here; authorization and the handlers read this one decoding.
    let query = Query::parse(raw_query);
    let info = info::parse(method.as_str(), path, &query);
    let state = &chain.handlers;
    // The catalog is taken once: labels, routing and the handlers see the same one.
    let catalog = state.catalog();
    let labels = request_labels(&info, &catalog);
    let uri = match raw_query {
        "" => path.to_owned(),
        _ => format!("{path}?{raw_query}"),
    };
    let request = Request {
        info,
        catalog,
        method,
        uri,
        query,
        headers,
    };
    let (reply, trace) = stages(chain, request, started, body, peer).await;
    let reply = page_not_found(reply);
    let code = reply.code();
    state
        .metrics
        .observe_request(labels, code, started.elapsed());
    (reply, trace)
}

/// A request as parsed before authentication.
struct Request {
    info: RequestInfo,
    catalog: Arc<crate::crd::catalog::Catalog>,
    method: Method,
    /// The request URI as received (path and query), for upstream's plain-text errors.
    uri: String,
    query: Query,
    headers: HeaderMap,
}

/// Authentication → audit → impersonation → max-in-flight → authorization → body →
/// dispatch, in kube's spans: `authentication` (outside the server span), the server span
/// once the user is known (kube's `WithTracing` follows authentication), `audit` and
/// `constrainedimpersonation` around the rest.
async fn stages(
    chain: &Chain,
    request: Request,
    started: std::time::Instant,
    body: impl std::future::Future<Output = Result<Bytes, ApiError>>,
    peer: Peer<'_>,
) -> (Reply, RequestTrace) {
    let Request {
        info,
        catalog,
        method,
        uri,
        query,
        mut headers,
    } = request;
    // kube's request-deadline filter checks `timeout` before authentication (long-running
    // requests, i.e. watches, ignore it).
    let deadline = match info.verb {
        Verb::Watch => None,
        _ => match crate::request::options::request_timeout(&query) {
            Ok(asked) => Some(request_deadline(started, asked, chain.request_timeout)),
            Err(e) => {
                if let Some(auditor) = &chain.audit {
                    let meta = audit_meta(&peer, &uri, &info, &headers, started);
                    let audit = auditor.begin(None, meta);
                    audited::failed_early(audit, &e).await;
                }
                return (Reply::Error(e), RequestTrace::none());
            }
        },
    };
    let mut trace = RequestTrace::begin(&chain.tracer, received_at(started));
    let authenticated = chain
        .authenticator
        .authenticate(&mut headers, peer.certs)
        .await;
    let user = match authenticated {
        Ok(user) => user,
        Err(e) => {
            if let Some(auditor) = &chain.audit {
                let audit = auditor.begin(None, audit_meta(&peer, &uri, &info, &headers, started));
                audited::failed_early(audit, &e).await;
            }
            return (Reply::Error(e), trace);
        }
    };
    trace.serve(&server_request(
        &info, &method, &uri, &headers, &user, &peer, started,
    ));
    trace.enter("audit");
    let audit = match &chain.audit {
        Some(auditor) => {
            let meta = audit_meta(&peer, &uri, &info, &headers, started);
            auditor.begin(Some(&user), meta)
        }
        None => audit::Context::disabled(),
    };
    if !audit.process_stage(Stage::RequestReceived).await {
        if let Some(auditor) = &chain.audit {
            auditor.observe_rejected();
        }
        let e = std::io::Error::other("failed to store audit event");
        return (internal_error_text(&uri, &e), trace);
    }
    let long_running = info.verb == Verb::Watch;
    trace.enter("constrainedimpersonation");
    let user = match impersonate(chain, user, &mut headers, &uri, &audit).await {
        Ok(user) => user,
        Err(reply) => return (audited::complete(audit, reply, long_running).await, trace),
    };
    let mut call = Call {
        query,
        info,
        method,
        headers,
        body: Bytes::new(),
        user,
        deadline,
        audit,
        catalog,
    };
    let served = audited::guarded(async {
        match deadline {
            Some(at) => {
                let at = tokio::time::Instant::from_std(at);
                tokio::time::timeout_at(at, admitted(chain, &mut call, body, &mut trace))
                    .await
                    .unwrap_or_else(|_| Reply::Error(ApiError::request_timeout()))
            }
            None => admitted(chain, &mut call, body, &mut trace).await,
        }
    })
    .await;
    let reply = match served {
        Ok(reply) => reply,
        Err(message) => return (audited::panicked(&call.audit, &message).await, trace),
    };
    if let Reply::Error(e) | Reply::Failed { error: e, .. } = &reply
        && e.code() >= 500
    {
        let (info, user) = (&call.info, &call.user);
        tracing::warn!(
            verb = info.verb.as_str(),
            group = %info.api_group,
            resource = %info.resource,
            namespace = %info.namespace,
            name = %info.name,
            user = %user.name,
            code = e.code(),
            error = %e,
            "request failed"
        );
    }
    let audit = std::mem::take(&mut call.audit);
    let reply = audited::complete(audit, page_not_found(reply), long_running).await;
    (reply, trace)
}

/// kube's `WithRequestDeadline`: the request's `timeout` when it is positive and below
/// `--request-timeout`, else `--request-timeout`, from when the request arrived.
fn request_deadline(
    started: std::time::Instant,
    asked: Option<std::time::Duration>,
    maximum: std::time::Duration,
) -> std::time::Instant {
    let timeout = match asked {
        Some(t) if !t.is_zero() && t < maximum => t,
        _ => maximum,
    };
    started + timeout
}

/// Max-in-flight → authorization → body → dispatch, for an authenticated call (its body
/// not read yet).
async fn admitted(
    chain: &Chain,
    call: &mut Call,
    body: impl std::future::Future<Output = Result<Bytes, ApiError>>,
    trace: &mut RequestTrace,
) -> Reply {
    // At DEBUG: the fmt layer formats a span's fields when it is created, whether or not
    // anything is logged in it (about a tenth of a GET's server CPU at INFO). A 5xx is
    // logged with the same attributes above.
    let span = tracing::debug_span!(
        "request",
        verb = call.info.verb.as_str(),
        group = %call.info.api_group,
        resource = %call.info.resource,
        namespace = %call.info.namespace,
        name = %call.info.name,
        user = %call.user.name,
    );
    // Max-in-flight after authentication and before authorization, in kube's order;
    // the slot is held until the reply is built.
    let state = &chain.handlers;
    let _in_flight = match state.inflight.admit(&call.info, &call.user) {
        Ok(slot) => slot,
        Err(_) => return Reply::Error(too_many(state, call)),
    };
    // kube's span of its flow control filter (the reference runs APF; our max-in-flight
    // stands in its place), then authorization's.
    trace.enter("priorityandfairness");
    trace.enter("authorization");
    let authorized = trace
        .scope(
            chain
                .authorizer
                .authorize_audited(&call.user, &call.info, &call.audit),
        )
        .await;
    if let Err(e) = authorized {
        return Reply::Error(e);
    }
    // The body is read only after authorization, so strangers cannot make the server
    // buffer megabytes.
    call.body = match body.await {
        Ok(b) => b,
        Err(e) => return Reply::Error(e),
    };
    let handler = trace.in_scope(|| handlers::traced::start(call));
    trace.adopt(handler, handlers::traced::reports_written(&call.info.verb));
    match trace
        .scope(handlers::dispatch(state, call).instrument(span))
        .await
    {
        Ok(reply) => reply,
        Err(e) => Reply::Error(e),
    }
}

/// kube's 429 past the in-flight budget, counted in `apiserver_request_terminations_total`.
fn too_many(state: &AppState, call: &Call) -> ApiError {
    let labels = request_labels(&call.info, &call.catalog);
    state.metrics.count_termination(labels, 429);
    crate::inflight::too_many_requests(crate::inflight::TOO_MANY_REQUESTS.into())
}

/// Impersonation, checked against the authenticated user; it strips the Impersonate-*
/// headers, and authorization then sees the impersonated user (kube's
/// `WithImpersonation`, which logs that user into the audit event).
async fn impersonate(
    chain: &Chain,
    user: UserInfo,
    headers: &mut HeaderMap,
    uri: &str,
    audit: &audit::Context,
) -> Result<UserInfo, Reply> {
    let impersonating = audit.enabled()
        && headers
            .keys()
            .any(|k| k.as_str().starts_with("impersonate-"));
    match impersonation::impersonate(&chain.authorizer, user, headers).await {
        Ok(user) => {
            if impersonating {
                audit.log_impersonated_user(audit::request::user_info(&user));
            }
            Ok(user)
        }
        Err(ImpersonationError::Forbidden(e)) => Err(Reply::Error(e)),
        Err(e @ ImpersonationError::WithoutUser(_)) => Err(internal_error_text(uri, &e)),
    }
}

/// Upstream's `responsewriters.InternalError`: a plain-text 500 quoting the request URI,
/// HTML-escaped (`&`, `<`, `>`), as the impersonation filter answers malformed requests.
fn internal_error_text(uri: &str, err: &dyn std::error::Error) -> Reply {
    let text = format!("Internal Server Error: {}: {err}", crate::gofmt::quote(uri));
    let body = text
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    Reply::Text {
        code: http::StatusCode::INTERNAL_SERVER_ERROR,
        body: format!("{body}\n"),
    }
}

/// A path nothing serves gets kube's mux NotFound page (Go's `http.NotFound`), not a Status.
fn page_not_found(reply: Reply) -> Reply {
    let (Reply::Error(ApiError::PathNotFound)
    | Reply::Failed {
        error: ApiError::PathNotFound,
        ..
    }) = reply
    else {
        return reply;
    };
    let mut resp = http::Response::new(axum::body::Body::from(crate::error::PAGE_NOT_FOUND));
    *resp.status_mut() = http::StatusCode::NOT_FOUND;
    let headers = resp.headers_mut();
    headers.insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    headers.insert(
        http::header::X_CONTENT_TYPE_OPTIONS,
        http::HeaderValue::from_static("nosniff"),
    );
    Reply::Raw(resp)
}

#[cfg(test)]
#[path = "chain_tests.rs"]
mod tests;
