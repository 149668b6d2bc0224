//! Request info: verb, group, version, namespace, resource, name — parsed from method, path and
//! query before authentication, as k8s.io/apiserver's `RequestInfoFactory.NewRequestInfo`.
//!
//! Resource paths (prefixes `api`, groupless, and `apis`):
//!
//! ```text
//! /apis/{group}/{version}[/{watch|proxy}][/namespaces/{namespace}]/{resource}[/{name}[/{subresource}[/...]]]
//! /api/{version}/namespaces/{namespace}[/{status|finalize}]     (the namespaces resource itself)
//! ```
//!
//! Anything else (`/apis`, `/apis/{group}`, `/apis/{group}/{version}`, `/api/{version}`,
//! `/healthz`, ...) is a non-resource request whose verb is the lowercase HTTP method.

use std::fmt;

use crate::request::options::ListOptions;
use crate::request::query::{Query, query_bool, unescape};

/// The Kubernetes verb of a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verb {
    Get,
    List,
    Watch,
    Create,
    Update,
    Patch,
    Delete,
    DeleteCollection,
    /// The deprecated `/{version}/proxy/...` path prefix.
    Proxy,
    /// Acting as another user, group, uid or extra value (checked for `Impersonate-*`
    /// headers; never parsed from a path).
    Impersonate,
    /// A resource path requested with a method kube has no verb for (upstream leaves it `""`).
    Unknown,
    /// A non-resource request: the lowercase HTTP method (`get`, `post`, `head`, ...).
    NonResource(String),
}

impl Verb {
    /// Kube's verb name as authorization and audit see it.
    pub fn as_str(&self) -> &str {
        match self {
            Verb::NonResource(method) => method,
            other => other.resource_verb().unwrap_or_default(),
        }
    }

    /// The fixed name of a resource verb (`None` for non-resource requests, whose verb is
    /// the lowercase HTTP method).
    pub fn resource_verb(&self) -> Option<&'static str> {
        Some(match self {
            Verb::Get => "get",
            Verb::List => "list",
            Verb::Watch => "watch",
            Verb::Create => "create",
            Verb::Update => "update",
            Verb::Patch => "patch",
            Verb::Delete => "delete",
            Verb::DeleteCollection => "deletecollection",
            Verb::Proxy => "proxy",
            Verb::Impersonate => "impersonate",
            Verb::Unknown => "",
            Verb::NonResource(_) => return None,
        })
    }
}

impl fmt::Display for Verb {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The subresource a path names after the object's name (`/foos/a/status`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Subresource {
    /// The path stops at the object or collection (or is a proxy path).
    #[default]
    None,
    /// `status`: the object's status, written without touching the rest.
    Status,
    /// `scale`: an `autoscaling/v1` Scale over the object's replica paths.
    Scale,
    /// Anything else a client sends; never served, but authorization sees its exact text.
    Other(String),
}

impl Subresource {
    /// The subresource a path segment names; `""` is none.
    pub fn parse(name: &str) -> Subresource {
        match name {
            "" => Subresource::None,
            "status" => Subresource::Status,
            "scale" => Subresource::Scale,
            other => Subresource::Other(other.to_owned()),
        }
    }

    /// The name as it appeared in the path (`""` for none).
    pub fn as_str(&self) -> &str {
        match self {
            Subresource::None => "",
            Subresource::Status => "status",
            Subresource::Scale => "scale",
            Subresource::Other(name) => name,
        }
    }

    /// Whether the path names no subresource.
    pub fn is_empty(&self) -> bool {
        *self == Subresource::None
    }
}

impl fmt::Display for Subresource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a request asks for; empty strings where the path does not say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestInfo {
    pub is_resource_request: bool,
    /// The percent-decoded URL path.
    pub path: String,
    pub verb: Verb,
    /// `"api"` or `"apis"` (set even for the too-short `/apis/{group}/{version}`, as upstream).
    pub api_prefix: String,
    pub api_group: String,
    pub api_version: String,
    pub namespace: String,
    pub resource: String,
    pub subresource: Subresource,
    /// From the path, or from a `metadata.name=X` field selector on list/watch.
    pub name: String,
    /// Path parts starting at `{resource}`: resource, name, subresource, anything further.
    pub parts: Vec<String>,
    /// The raw first `fieldSelector`, for list/watch/deletecollection not via `/watch/`.
    pub field_selector: String,
    /// The raw first `labelSelector`, under the same conditions.
    pub label_selector: String,
}

/// The deprecated `/watch/` or `/proxy/` prefix with nothing after it; kube answers 500
/// `failed to create RequestInfo: <this>`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unable to determine kind and namespace from url, {url}")]
pub struct RequestInfoError {
    /// The request URL as received (path and query).
    pub url: String,
    /// What was known before the failure.
    pub partial: Box<RequestInfo>,
}

/// Root verbs given as a path segment after the version.
const SPECIAL_VERBS: [&str; 2] = ["proxy", "watch"];
/// Subresources of a namespace, distinguishing `/namespaces/x/status` from a namespaced resource.
const NAMESPACE_SUBRESOURCES: [&str; 2] = ["status", "finalize"];

/// [`resolve`], with the best-effort info upstream keeps when it fails.
pub fn parse(method: &str, path: &str, query: &Query) -> RequestInfo {
    resolve(method, path, query).unwrap_or_else(|e| *e.partial)
}

/// Parses a request; `path` is the raw (percent-encoded) path, `query` the decoded query the
/// handlers will read too.
pub fn resolve(
    method: &str,
    raw_path: &str,
    query: &Query,
) -> Result<RequestInfo, RequestInfoError> {
    let path = unescape(raw_path, false).unwrap_or_else(|| raw_path.to_owned());
    let mut info = RequestInfo::non_resource(method, &path);
    let parts = split_path(&path);
    let Some(rest) = api_parts(&mut info, &parts) else {
        return Ok(info);
    };
    let via_path = rest.first().is_some_and(|p| SPECIAL_VERBS.contains(p));
    let rest = match rest {
        [special, rest @ ..] if via_path && !rest.is_empty() => {
            info.verb = if *special == "proxy" {
                Verb::Proxy
            } else {
                Verb::Watch
            };
            rest
        }
        _ if via_path => {
            let url = match query.raw() {
                "" => raw_path.to_owned(),
                raw => format!("{raw_path}?{raw}"),
            };
            return Err(RequestInfoError {
                url,
                partial: Box::new(info),
            });
        }
        _ => {
            info.verb = method_verb(method);
            rest
        }
    };
    let rest = scope_namespace(&mut info, rest);
    info.parts = rest.iter().map(|p| (*p).to_owned()).collect();
    fill_resource(&mut info);
    if info.name.is_empty() && info.verb == Verb::Get {
        list_or_watch(&mut info, query);
    }
    if info.name.is_empty() && info.verb == Verb::Delete {
        info.verb = Verb::DeleteCollection;
    }
    // the deprecated /watch/ prefix does not support selectors consistently: not recorded
    let selectable = matches!(info.verb, Verb::List | Verb::Watch | Verb::DeleteCollection);
    if selectable && !via_path {
        info.field_selector = query.get("fieldSelector").unwrap_or_default().to_owned();
        info.label_selector = query.get("labelSelector").unwrap_or_default().to_owned();
    }
    Ok(info)
}

impl RequestInfo {
    /// A non-resource request until the path proves otherwise.
    fn non_resource(method: &str, path: &str) -> Self {
        Self {
            is_resource_request: false,
            path: path.to_owned(),
            verb: Verb::NonResource(method.to_lowercase()),
            api_prefix: String::new(),
            api_group: String::new(),
            api_version: String::new(),
            namespace: String::new(),
            resource: String::new(),
            subresource: Subresource::None,
            name: String::new(),
            parts: Vec::new(),
            field_selector: String::new(),
            label_selector: String::new(),
        }
    }
}

/// `namespaces/{ns}/...` sets the namespace and drops the two parts, unless what follows is a
/// namespace subresource (then, like `namespaces/{ns}` alone, the resource is `namespaces`).
fn scope_namespace<'a>(info: &mut RequestInfo, rest: &'a [&'a str]) -> &'a [&'a str] {
    let ["namespaces", namespace, tail @ ..] = rest else {
        return rest;
    };
    info.namespace = (*namespace).to_owned();
    match tail.first() {
        Some(next) if !NAMESPACE_SUBRESOURCES.contains(next) => tail,
        _ => rest,
    }
}

/// Consumes prefix, group and version; `None` for a non-resource request.
fn api_parts<'a>(info: &mut RequestInfo, parts: &'a [&'a str]) -> Option<&'a [&'a str]> {
    let [prefix, rest @ ..] = parts else {
        return None;
    };
    if parts.len() < 3 || !matches!(*prefix, "api" | "apis") {
        return None;
    }
    info.api_prefix = (*prefix).to_owned();
    let rest = if *prefix == "apis" {
        let [group, rest @ ..] = rest else {
            return None;
        };
        if rest.len() < 2 {
            return None;
        }
        info.api_group = (*group).to_owned();
        rest
    } else {
        rest
    };
    let [version, rest @ ..] = rest else {
        return None;
    };
    info.is_resource_request = true;
    info.api_version = (*version).to_owned();
    Some(rest)
}

fn method_verb(method: &str) -> Verb {
    match method {
        "POST" => Verb::Create,
        "GET" | "HEAD" => Verb::Get,
        "PUT" => Verb::Update,
        "PATCH" => Verb::Patch,
        "DELETE" => Verb::Delete,
        _ => Verb::Unknown,
    }
}

/// `resource/name/subresource/...`; a proxy request has no subresource.
fn fill_resource(info: &mut RequestInfo) {
    let parts = &info.parts;
    if parts.len() >= 3 && info.verb != Verb::Proxy {
        info.subresource = Subresource::parse(&parts[2]);
    }
    if let Some(name) = parts.get(1) {
        info.name = name.clone();
    }
    if let Some(resource) = parts.first() {
        info.resource = resource.clone();
    }
}

/// A `get` without a name is a list, or a watch when `watch` is set. When the list options
/// decode (with the decoder the handlers use), a field selector pinning `metadata.name` to a
/// path-safe name supplies the name.
fn list_or_watch(info: &mut RequestInfo, query: &Query) {
    let watch = query.get("watch");
    let decoded = ListOptions::from_query(query)
        .ok()
        .map(|o| o.field_selector);
    let watching = match (&decoded, watch) {
        (_, None) => false,
        (Some(_), Some(w)) => query_bool(w),
        // upstream's fallback when ListOptions fail to decode: lowercase "false"/"0" only
        (None, Some(w)) => !matches!(w.to_lowercase().as_str(), "false" | "0"),
    };
    info.verb = if watching { Verb::Watch } else { Verb::List };
    let name = decoded
        .as_ref()
        .and_then(|fs| fs.requires_exact_match("metadata.name"));
    if let Some(name) = name.filter(|n| is_path_segment_name(n)) {
        info.name = name.to_owned();
    }
}

fn is_path_segment_name(name: &str) -> bool {
    path_segment_name_errors(name).is_empty()
}

/// apimachinery's `IsPathSegmentName`: why `name` cannot be a path segment (`.` and `..`
/// outright; `/` and `%` anywhere). Kube's storage key functions refuse such names with
/// `Name parameter invalid`, whatever the verb.
pub fn path_segment_name_errors(name: &str) -> Vec<String> {
    if matches!(name, "." | "..") {
        return vec![format!("may not be '{name}'")];
    }
    ["/", "%"]
        .iter()
        .filter(|illegal| name.contains(**illegal))
        .map(|illegal| format!("may not contain '{illegal}'"))
        .collect()
}

fn split_path(path: &str) -> Vec<&str> {
    let trimmed = path.trim_matches('/');
    if trimmed.is_empty() {
        Vec::new()
    } else {
        trimmed.split('/').collect()
    }
}

#[cfg(test)]
mod tests;
