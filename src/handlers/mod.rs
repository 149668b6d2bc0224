//! Handlers stage: an authorized request ([`Call`]) dispatched on its path and verb
//! ([`dispatch`]); the filter chain before it is `server::chain`.

pub mod apply;
pub mod collection;
pub mod context;
pub mod convert;
pub mod create;
pub mod delete;
pub mod discovery;
pub mod health;
pub mod object;
pub mod openapi;
pub mod restore;
pub mod scale;
pub mod state;
pub mod storedversions;
pub mod strategy;
pub mod traced;
pub mod watch;
pub mod wire;
pub mod write;

use std::sync::Arc;

use bytes::Bytes;
use http::{HeaderMap, Method};

use crate::error::ApiError;
use crate::request::info::{self, RequestInfo, Subresource, Verb};
use crate::request::query::Query;
use crate::request::user::UserInfo;
pub use state::{AppState, Authorize, Authorizing};
pub use wire::reply::Reply;

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
    /// The request's audit (disabled when it is not audited): handlers and admission
    /// record the request and response objects and annotations into it.
    pub audit: crate::audit::Context,
    /// The catalog this request is served with, taken once when it arrived (a catalog
    /// swapped in meanwhile serves the later requests).
    pub catalog: Arc<crate::crd::catalog::Catalog>,
}

impl Call {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

/// The handlers' entry: an authenticated, authorized call with its body, served by the
/// handler of its path and verb.
pub async fn dispatch(state: &Arc<AppState>, call: &Call) -> Result<Reply, ApiError> {
    if !call.info.is_resource_request {
        return non_resource(state, call).await;
    }
    // kube's CRD handler records a deprecated version's warning before serving anything.
    let warning = context::deprecation_warning(&call.catalog, &call.info);
    let reply = resource(state, call).await.unwrap_or_else(Reply::Error);
    Ok(reply.with_leading_warning(warning.as_deref()))
}

/// A request for a custom resource, its subresources or its collection.
async fn resource(state: &Arc<AppState>, call: &Call) -> Result<Reply, ApiError> {
    let ctx = context::Target::resolve(&call.catalog, &call.info)?;
    check_name(&call.info)?;
    match (&call.info.verb, &call.info.subresource) {
        (Verb::Get, Subresource::None | Subresource::Status) => {
            object::get(state, call, &ctx).await
        }
        (Verb::List, Subresource::None) => collection::list(state, call, &ctx).await,
        (Verb::Watch, Subresource::None) => self::watch::serve(state, call, &ctx).await,
        (Verb::Create, Subresource::None) => create::create(state, call, &ctx).await,
        (Verb::Update, Subresource::None | Subresource::Status) => {
            write::update(state, call, &ctx).await
        }
        (Verb::Patch, Subresource::None | Subresource::Status) => {
            write::patch(state, call, &ctx).await
        }
        (Verb::Delete, Subresource::None) => delete::delete(state, call, &ctx).await,
        (Verb::DeleteCollection, Subresource::None) => {
            delete::delete_collection(state, call, &ctx).await
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
        ["storedversions"] => storedversions::serve(state, call, None),
        ["storedversions", resource] => storedversions::serve(state, call, Some(resource)),
        ["apis"] => discovery::groups(call),
        ["apis", group] => discovery::group(call, group),
        ["apis", group, version] => discovery::resources(call, group, version),
        ["openapi", ..] => openapi::serve(call, &parts),
        _ => Err(ApiError::PathNotFound),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::query::Query;

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
}
