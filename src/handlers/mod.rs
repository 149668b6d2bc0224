//! Handlers stage: dispatch on verb after authn/authz; one module per concern.
//!
//! [`serve`] is the whole request pipeline in one function, in kube's order:
//! request info (with the query, decoded once) → authentication → impersonation →
//! max-in-flight → authorization → dispatch → one error conversion.

pub mod admit;
pub mod apply;
pub mod change;
pub mod collection;
pub mod context;
pub mod discovery;
pub mod guaranteed;
pub mod health;
pub mod managed;
pub mod object;
pub mod openapi;
pub mod reply;
pub mod scale;
pub mod state;
pub mod watch;
pub mod write;

use std::sync::Arc;

use bytes::Bytes;
use http::{HeaderMap, Method};
use tracing::Instrument;

use crate::authn::UserInfo;
use crate::authn::impersonation::{self, ImpersonationError};
use crate::error::ApiError;
use crate::request::info::{self, RequestInfo, Subresource, Verb};
use crate::request::query::Query;
pub use reply::Reply;
pub use state::AppState;

/// Everything a handler needs from the HTTP request, as plain data.
pub struct Call {
    pub info: RequestInfo,
    pub method: Method,
    /// The query request info was parsed from; options read its first values.
    pub query: Query,
    pub headers: HeaderMap,
    pub body: Bytes,
    pub user: UserInfo,
}

impl Call {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

/// Runs one request through the stages; never fails (errors become Status replies).
pub async fn serve(
    state: &Arc<AppState>,
    method: Method,
    path: &str,
    raw_query: &str,
    headers: HeaderMap,
    body: impl std::future::Future<Output = Result<Bytes, ApiError>>,
    peer_certs: &[rustls::pki_types::CertificateDer<'static>],
) -> Reply {
    let started = std::time::Instant::now();
    // Request info first: authorization needs verb, resource and name. The query is
    // decoded once here; authorization and the handlers read this one decoding.
    let query = Query::parse(raw_query);
    let info = info::parse(method.as_str(), path, &query);
    let labels = crate::metrics::RequestLabels::of(&info, &state.catalog);
    let uri = match raw_query {
        "" => path.to_owned(),
        _ => format!("{path}?{raw_query}"),
    };
    let request = Request {
        info,
        method,
        uri,
        query,
        headers,
    };
    let reply = stages(state, request, body, peer_certs).await;
    let code = reply.code();
    state
        .metrics
        .observe_request(labels, code, started.elapsed());
    reply
}

/// A request as parsed before authentication.
struct Request {
    info: RequestInfo,
    method: Method,
    /// The request URI as received (path and query), for upstream's plain-text errors.
    uri: String,
    query: Query,
    headers: HeaderMap,
}

/// Authentication → authorization → body → dispatch.
async fn stages(
    state: &Arc<AppState>,
    request: Request,
    body: impl std::future::Future<Output = Result<Bytes, ApiError>>,
    peer_certs: &[rustls::pki_types::CertificateDer<'static>],
) -> Reply {
    let Request {
        info,
        method,
        uri,
        query,
        mut headers,
    } = request;
    let user = match identify(state, &mut headers, peer_certs, &uri).await {
        Ok(user) => user,
        Err(reply) => return reply,
    };
    let span = tracing::info_span!(
        "request",
        verb = info.verb.as_str(),
        group = %info.api_group,
        resource = %info.resource,
        namespace = %info.namespace,
        name = %info.name,
        user = %user.name,
    );
    // Max-in-flight after authentication and before authorization, in kube's order;
    // the slot is held until the reply is built.
    let _in_flight = match crate::server::inflight::admit(state, &info, &user) {
        Ok(slot) => slot,
        Err(e) => return Reply::Error(e),
    };
    if let Err(e) = state.authorizer.authorize(&user, &info).await {
        return Reply::Error(e);
    }
    // The body is read only after authorization, so strangers cannot make the server
    // buffer megabytes.
    let body = match body.await {
        Ok(b) => b,
        Err(e) => return Reply::Error(e),
    };
    let call = Call {
        query,
        info,
        method,
        headers,
        body,
        user,
    };
    match dispatch(state, &call).instrument(span).await {
        Ok(reply) => reply,
        Err(e) => Reply::Error(e),
    }
}

/// Authentication, then impersonation: the user authorization will see.
async fn identify(
    state: &AppState,
    headers: &mut HeaderMap,
    peer_certs: &[rustls::pki_types::CertificateDer<'static>],
    uri: &str,
) -> Result<UserInfo, Reply> {
    // Authentication also strips the front-proxy headers, whatever its outcome, so no
    // handler ever sees them.
    let user = state
        .authenticator
        .authenticate(headers, peer_certs)
        .await
        .map_err(Reply::Error)?;
    // Impersonation is checked against the authenticated user and strips the
    // Impersonate-* headers; authorization then sees the impersonated user.
    match impersonation::impersonate(&state.authorizer, user, headers).await {
        Ok(user) => Ok(user),
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

async fn dispatch(state: &Arc<AppState>, call: &Call) -> Result<Reply, ApiError> {
    if !call.info.is_resource_request {
        return non_resource(state, call).await;
    }
    let ctx = context::Target::resolve(state, &call.info)?;
    let named = !call.info.name.is_empty();
    if !named && matches!(call.info.verb, Verb::Update | Verb::Patch) {
        return Err(ApiError::BadRequest("name must be provided".into()));
    }
    match (&call.info.verb, &call.info.subresource) {
        (Verb::Get, Subresource::None | Subresource::Status) => {
            object::get(state, call, &ctx).await
        }
        (Verb::List, Subresource::None) => collection::list(state, call, &ctx).await,
        (Verb::Watch, Subresource::None) => self::watch::serve(state, call, &ctx).await,
        (Verb::Create, Subresource::None) => write::create(state, call, &ctx).await,
        (Verb::Update, Subresource::None | Subresource::Status) => {
            write::update(state, call, &ctx).await
        }
        (Verb::Patch, Subresource::None | Subresource::Status) => {
            write::patch(state, call, &ctx).await
        }
        (Verb::Delete, Subresource::None) => object::delete(state, call, &ctx).await,
        (Verb::DeleteCollection, Subresource::None) => {
            collection::delete_collection(state, call, &ctx).await
        }
        (Verb::Get, Subresource::Scale) => scale::get(state, call, &ctx).await,
        (Verb::Update, Subresource::Scale) => scale::update(state, call, &ctx).await,
        (Verb::Patch, Subresource::Scale) => scale::patch(state, call, &ctx).await,
        _ => Err(context::not_supported(&call.info)),
    }
}

async fn non_resource(state: &Arc<AppState>, call: &Call) -> Result<Reply, ApiError> {
    let path = call.info.path.trim_end_matches('/');
    let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
    let is_get = matches!(call.method, Method::GET | Method::HEAD);
    match (parts.as_slice(), is_get) {
        (["healthz" | "livez" | "readyz", ..], true) => health::check(state, call, &parts).await,
        (["version"], true) => Ok(health::version()),
        (["metrics"], true) => Ok(Reply::metrics(state.metrics.render())),
        (["apis"], true) => discovery::groups(state, call),
        (["apis", group], true) => discovery::group(state, call, group),
        (["apis", group, version], true) => discovery::resources(state, call, group, version),
        (["openapi", ..], true) => openapi::serve(state, call, &parts),
        (["apis", ..], false) => Err(ApiError::MethodNotAllowed(format!(
            "{} is not supported on this path",
            call.method
        ))),
        _ => Err(ApiError::PathNotFound),
    }
}
