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
pub mod served;
pub mod splice;
pub mod state;
pub mod stored;
pub mod watch;
pub mod write;

use std::sync::Arc;

use bytes::Bytes;
use http::{HeaderMap, Method};
use tracing::Instrument;

use crate::authz::impersonation::{self, ImpersonationError};
use crate::error::ApiError;
use crate::request::info::{self, RequestInfo, Subresource, Verb};
use crate::request::query::Query;
use crate::request::user::UserInfo;
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
    /// When a request that is not long-running must be done (kube's request deadline:
    /// `?timeout=` capped by `--request-timeout`); `None` for watches.
    pub deadline: Option<std::time::Instant>,
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
    let labels = crate::server::labels::request_labels(&info, &state.catalog);
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
    let reply = page_not_found(stages(state, request, started, body, peer_certs).await);
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
    started: std::time::Instant,
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
    // kube's request-deadline filter checks `timeout` before authentication (long-running
    // requests, i.e. watches, ignore it).
    let deadline = match info.verb {
        Verb::Watch => None,
        _ => match crate::request::options::request_timeout(&query) {
            Ok(asked) => Some(request_deadline(started, asked, state.request_timeout)),
            Err(e) => return Reply::Error(e),
        },
    };
    let user = match identify(state, &mut headers, peer_certs, &uri).await {
        Ok(user) => user,
        Err(reply) => return reply,
    };
    let mut call = Call {
        query,
        info,
        method,
        headers,
        body: Bytes::new(),
        user,
        deadline,
    };
    let reply = match deadline {
        Some(at) => {
            let at = tokio::time::Instant::from_std(at);
            tokio::time::timeout_at(at, admitted(state, &mut call, body))
                .await
                .unwrap_or_else(|_| Reply::Error(ApiError::request_timeout()))
        }
        None => admitted(state, &mut call, body).await,
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
    reply
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
    state: &Arc<AppState>,
    call: &mut Call,
    body: impl std::future::Future<Output = Result<Bytes, ApiError>>,
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
    let _in_flight = match crate::server::inflight::admit(state, &call.info, &call.user) {
        Ok(slot) => slot,
        Err(e) => return Reply::Error(e),
    };
    if let Err(e) = state.authorizer.authorize(&call.user, &call.info).await {
        return Reply::Error(e);
    }
    // The body is read only after authorization, so strangers cannot make the server
    // buffer megabytes.
    call.body = match body.await {
        Ok(b) => b,
        Err(e) => return Reply::Error(e),
    };
    match dispatch(state, call).instrument(span).await {
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
    // kube's CRD handler records a deprecated version's warning before serving anything.
    let warning = context::deprecation_warning(state, &call.info);
    let reply = resource(state, call).await.unwrap_or_else(Reply::Error);
    Ok(reply.with_leading_warning(warning.as_deref()))
}

/// A request for a custom resource, its subresources or its collection.
async fn resource(state: &Arc<AppState>, call: &Call) -> Result<Reply, ApiError> {
    let ctx = context::Target::resolve(state, &call.info)?;
    check_name(&call.info)?;
    // kube's NamespaceLifecycle admission (creates and updates; see its module).
    crate::namespaces::request::check(state, call, &ctx).await?;
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

/// The object name a handler would turn into a storage key: kube's key functions refuse
/// an empty name on update and patch, and one that cannot be a path segment on every
/// named verb (before the body is looked at, but for an update's decoding).
fn check_name(info: &RequestInfo) -> Result<(), ApiError> {
    let named_verb = matches!(
        info.verb,
        Verb::Get | Verb::Update | Verb::Patch | Verb::Delete
    );
    if info.name.is_empty() && matches!(info.verb, Verb::Update | Verb::Patch) {
        return Err(ApiError::BadRequest("name must be provided".into()));
    }
    let errors = info::path_segment_name_errors(&info.name);
    if named_verb && !errors.is_empty() {
        return Err(ApiError::BadRequest(format!(
            "Name parameter invalid: {}: {}",
            crate::gofmt::quote(&info.name),
            errors.join(";")
        )));
    }
    Ok(())
}

/// Non-resource paths. As kube's mux handlers, health, metrics, discovery and OpenAPI
/// answer any method; `/version` is a GET-only route.
async fn non_resource(state: &Arc<AppState>, call: &Call) -> Result<Reply, ApiError> {
    let path = call.info.path.trim_end_matches('/');
    let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
    match parts.as_slice() {
        ["healthz" | "livez" | "readyz", ..] => health::check(state, call, &parts).await,
        ["version"] if call.method == Method::GET => Ok(health::version()),
        ["version"] => Err(ApiError::MethodNotAllowed(
            "the server does not allow this method on the requested resource".into(),
        )),
        ["metrics"] => Ok(Reply::metrics(state.metrics.render())),
        ["apis"] => discovery::groups(state, call),
        ["apis", group] => discovery::group(state, call, group),
        ["apis", group, version] => discovery::resources(state, call, group, version),
        ["openapi", ..] => openapi::serve(state, call, &parts),
        _ => Err(ApiError::PathNotFound),
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
mod tests {
    use super::*;

    fn parsed(method: &str, path: &str) -> RequestInfo {
        info::parse(method, path, &Query::default())
    }

    #[test]
    fn check_name_refuses_what_kube_key_functions_refuse() {
        const CT: &str = "/apis/g/v/namespaces/ns/crontabs";
        #[rustfmt::skip]
        let cases = [
            ("GET", "/..", Some(r#"Name parameter invalid: "..": may not be '..'"#)),
            ("PUT", "/.", Some(r#"Name parameter invalid: ".": may not be '.'"#)),
            ("PATCH", "/%2E%2E/status", Some(r#"Name parameter invalid: "..": may not be '..'"#)),
            ("DELETE", "/..", Some(r#"Name parameter invalid: "..": may not be '..'"#)),
            ("PUT", "", Some("name must be provided")),
            ("PATCH", "//status", Some("name must be provided")),
            ("GET", "/a", None),
            ("GET", "", None),
            ("DELETE", "", None),
            ("POST", "/..", None),
            ("GET", "/a%00b", None),
        ];
        for (method, tail, want) in cases {
            let got = check_name(&parsed(method, &format!("{CT}{tail}")));
            let got = got.err().map(|e| (e.code(), e.to_string()));
            assert_eq!(got, want.map(|m| (400, m.to_string())), "{method} {tail}");
        }
    }

    #[tokio::test]
    async fn page_not_found_answers_text_for_unrouted_paths_only() {
        use http_body_util::BodyExt;
        let resp = match page_not_found(Reply::Error(ApiError::PathNotFound)) {
            Reply::Raw(resp) => resp,
            _ => panic!("not a page"),
        };
        assert_eq!(resp.status(), http::StatusCode::NOT_FOUND);
        let headers = resp.headers();
        assert_eq!(
            headers[http::header::CONTENT_TYPE],
            "text/plain; charset=utf-8"
        );
        assert_eq!(headers[http::header::X_CONTENT_TYPE_OPTIONS], "nosniff");
        let body = resp.into_body().collect().await.unwrap().to_bytes();
        assert_eq!(body, "404 page not found\n");
        let object = ApiError::NotFound {
            resource: crate::error::GroupResource::new("g", "rs"),
            name: "a".into(),
        };
        assert!(matches!(
            page_not_found(Reply::Error(object)),
            Reply::Error(ApiError::NotFound { .. })
        ));
    }

    #[test]
    fn request_deadline_timeout_capped_by_request_timeout() {
        let started = std::time::Instant::now();
        let max = std::time::Duration::from_secs(60);
        let secs = std::time::Duration::from_secs;
        let cases = [
            (None, secs(60)),
            (Some(secs(5)), secs(5)),
            (Some(secs(0)), secs(60)),
            (Some(secs(60)), secs(60)),
            (Some(secs(3600)), secs(60)),
        ];
        for (asked, want) in cases {
            assert_eq!(
                request_deadline(started, asked, max),
                started + want,
                "{asked:?}"
            );
        }
    }
}
