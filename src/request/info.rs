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

use crate::selector::field::FieldSelector;
use crate::selector::label::LabelSelector;

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
    /// A resource path requested with a method kube has no verb for (upstream leaves it `""`).
    Unknown,
    /// A non-resource request: the lowercase HTTP method (`get`, `post`, `head`, ...).
    NonResource(String),
}

impl Verb {
    /// Kube's verb name as authorization and audit see it.
    pub fn as_str(&self) -> &str {
        match self {
            Verb::Get => "get",
            Verb::List => "list",
            Verb::Watch => "watch",
            Verb::Create => "create",
            Verb::Update => "update",
            Verb::Patch => "patch",
            Verb::Delete => "delete",
            Verb::DeleteCollection => "deletecollection",
            Verb::Proxy => "proxy",
            Verb::Unknown => "",
            Verb::NonResource(method) => method,
        }
    }
}

impl fmt::Display for Verb {
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
    pub subresource: String,
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
pub fn parse(method: &str, path: &str, query: &str) -> RequestInfo {
    resolve(method, path, query).unwrap_or_else(|e| *e.partial)
}

/// Parses a request; `path` is the raw (percent-encoded) path, `query` the raw query without `?`.
pub fn resolve(method: &str, raw_path: &str, query: &str) -> Result<RequestInfo, RequestInfoError> {
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
            let url = if query.is_empty() {
                raw_path.to_owned()
            } else {
                format!("{raw_path}?{query}")
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
    let pairs = query_pairs(query);
    if info.name.is_empty() && info.verb == Verb::Get {
        list_or_watch(&mut info, &pairs);
    }
    if info.name.is_empty() && info.verb == Verb::Delete {
        info.verb = Verb::DeleteCollection;
    }
    // the deprecated /watch/ prefix does not support selectors consistently: not recorded
    let selectable = matches!(info.verb, Verb::List | Verb::Watch | Verb::DeleteCollection);
    if selectable && !via_path {
        info.field_selector = query_value(&pairs, "fieldSelector")
            .unwrap_or_default()
            .to_owned();
        info.label_selector = query_value(&pairs, "labelSelector")
            .unwrap_or_default()
            .to_owned();
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
            subresource: String::new(),
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
        info.subresource = parts[2].clone();
    }
    if let Some(name) = parts.get(1) {
        info.name = name.clone();
    }
    if let Some(resource) = parts.first() {
        info.resource = resource.clone();
    }
}

/// A `get` without a name is a list, or a watch when `watch` is set. When the list options
/// decode, a field selector pinning `metadata.name` to a path-safe name supplies the name.
fn list_or_watch(info: &mut RequestInfo, pairs: &[(String, String)]) {
    let watch = query_value(pairs, "watch");
    let decoded = decode_list_options(pairs);
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

/// The field selector of `metav1.ListOptions` decoded from the query, `None` if any option
/// fails to decode (bad selectors, non-integer `limit` or `timeoutSeconds`).
fn decode_list_options(pairs: &[(String, String)]) -> Option<FieldSelector> {
    LabelSelector::parse(query_value(pairs, "labelSelector").unwrap_or_default()).ok()?;
    for key in ["limit", "timeoutSeconds"] {
        if let Some(v) = query_value(pairs, key) {
            v.parse::<i64>().ok()?;
        }
    }
    FieldSelector::parse(query_value(pairs, "fieldSelector").unwrap_or_default()).ok()
}

/// apimachinery's `IsPathSegmentName`: not `.` or `..`, no `/` or `%`.
fn is_path_segment_name(name: &str) -> bool {
    !matches!(name, "." | "..") && !name.contains(['/', '%'])
}

fn split_path(path: &str) -> Vec<&str> {
    let trimmed = path.trim_matches('/');
    if trimmed.is_empty() {
        Vec::new()
    } else {
        trimmed.split('/').collect()
    }
}

/// A query boolean as apimachinery converts it: false only for `0` or (case-folded) `false`;
/// present-but-empty is true.
pub fn query_bool(value: &str) -> bool {
    // Go's strings.EqualFold also folds U+017F (long s) to 's'
    let folded = value.replace('\u{17f}', "s");
    !(value == "0" || folded.eq_ignore_ascii_case("false"))
}

/// The first value of `key`, as Go's `url.Values.Get`.
pub fn query_value<'a>(pairs: &'a [(String, String)], key: &str) -> Option<&'a str> {
    pairs
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

/// Decodes a raw query like Go's `url.ParseQuery` as `Request.URL.Query()` uses it: pairs split
/// on `&`, `+` is a space, and pairs with a `;`, a bad `%` escape or nothing at all are dropped.
pub fn query_pairs(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|pair| !pair.is_empty() && !pair.contains(';'))
        .filter_map(|pair| {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            Some((unescape(key, true)?, unescape(value, true)?))
        })
        .collect()
}

/// Go's `url` unescaping: `%XX` becomes the byte, `+` a space in query components; `None` on a
/// malformed escape. Bytes that are not UTF-8 are replaced.
fn unescape(s: &str, plus_is_space: bool) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'%' => {
                let digit = |at: usize| bytes.get(at).and_then(|c| char::from(*c).to_digit(16));
                out.push(u8::try_from(digit(i + 1)? * 16 + digit(i + 2)?).ok()?);
                i += 3;
            }
            b'+' if plus_is_space => {
                out.push(b' ');
                i += 1;
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    Some(String::from_utf8_lossy(&out).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `verb|prefix|group|version|namespace|resource|subresource|name|parts` (parts `/`-joined).
    fn summary(i: &RequestInfo) -> String {
        let fields = [
            i.verb.as_str(),
            &i.api_prefix,
            &i.api_group,
            &i.api_version,
            &i.namespace,
        ];
        let more = [&i.resource, &i.subresource, &i.name];
        format!(
            "{}|{}|{}",
            fields.join("|"),
            more.map(String::as_str).join("|"),
            i.parts.join("/")
        )
    }

    fn split_url(url: &str) -> (&str, &str) {
        url.split_once('?').unwrap_or((url, ""))
    }

    #[test]
    fn parse_resource_paths_match_upstream_table() {
        #[rustfmt::skip]
        let cases = [
            ("GET", "/api/v1/namespaces", "list|api||v1||namespaces|||namespaces"),
            ("GET", "/api/v1/namespaces/other", "get|api||v1|other|namespaces||other|namespaces/other"),
            ("GET", "/api/v1/namespaces/other/pods", "list|api||v1|other|pods|||pods"),
            ("GET", "/api/v1/namespaces/other/pods/foo", "get|api||v1|other|pods||foo|pods/foo"),
            ("HEAD", "/api/v1/namespaces/other/pods/foo", "get|api||v1|other|pods||foo|pods/foo"),
            ("GET", "/api/v1/pods", "list|api||v1||pods|||pods"),
            ("HEAD", "/api/v1/pods", "list|api||v1||pods|||pods"),
            ("GET", "/api/v1/proxy/namespaces/other/pods/foo", "proxy|api||v1|other|pods||foo|pods/foo"),
            ("GET", "/api/v1/proxy/namespaces/other/pods/foo/sub/path", "proxy|api||v1|other|pods||foo|pods/foo/sub/path"),
            ("GET", "/api/v1/watch/pods", "watch|api||v1||pods|||pods"),
            ("GET", "/api/v1/pods?watch=true", "watch|api||v1||pods|||pods"),
            ("GET", "/api/v1/pods?watch=false", "list|api||v1||pods|||pods"),
            ("GET", "/api/v1/watch/namespaces/other/pods", "watch|api||v1|other|pods|||pods"),
            ("GET", "/api/v1/namespaces/other/pods?watch=1", "watch|api||v1|other|pods|||pods"),
            ("GET", "/api/v1/namespaces/other/pods?watch=0", "list|api||v1|other|pods|||pods"),
            ("GET", "/api/v1/namespaces/other/pods?watch=", "watch|api||v1|other|pods|||pods"),
            ("GET", "/api/v1/namespaces/other/pods?watch=FALSE", "list|api||v1|other|pods|||pods"),
            ("GET", "/api/v1/namespaces/other/pods?watch=0&watch=1", "list|api||v1|other|pods|||pods"),
            ("GET", "/api/v1/namespaces/other/pods/foo?watch=1", "get|api||v1|other|pods||foo|pods/foo"),
            ("GET", "/api/v1/namespaces/other/pods/foo/status", "get|api||v1|other|pods|status|foo|pods/foo/status"),
            ("GET", "/api/v1/namespaces/other/pods/foo/proxy/subpath", "get|api||v1|other|pods|proxy|foo|pods/foo/proxy/subpath"),
            ("PUT", "/api/v1/namespaces/other/finalize", "update|api||v1|other|namespaces|finalize|other|namespaces/other/finalize"),
            ("PUT", "/api/v1/namespaces/other/status", "update|api||v1|other|namespaces|status|other|namespaces/other/status"),
            ("PATCH", "/api/v1/namespaces/other/pods/foo", "patch|api||v1|other|pods||foo|pods/foo"),
            ("DELETE", "/api/v1/namespaces/other/pods/foo", "delete|api||v1|other|pods||foo|pods/foo"),
            ("POST", "/api/v1/namespaces/other/pods", "create|api||v1|other|pods|||pods"),
            ("OPTIONS", "/api/v1/namespaces/other/pods", "|api||v1|other|pods|||pods"),
            ("DELETE", "/api/v1/nodes", "deletecollection|api||v1||nodes|||nodes"),
            ("DELETE", "/api/v1/namespaces", "deletecollection|api||v1||namespaces|||namespaces"),
            ("DELETE", "/apis/ex.io/v1/namespaces/other/foos", "deletecollection|apis|ex.io|v1|other|foos|||foos"),
            ("POST", "/apis/ex.io/v1beta3/namespaces/other/foos", "create|apis|ex.io|v1beta3|other|foos|||foos"),
            ("GET", "/apis/ex.io/v1/foos/", "list|apis|ex.io|v1||foos|||foos"),
            ("GET", "/apis/ex.io/v1/foos/a/scale/", "get|apis|ex.io|v1||foos|scale|a|foos/a/scale"),
            ("GET", "/apis/ex.io/v1//foos", "get|apis|ex.io|v1||||foos|/foos"),
            ("GET", "/apis/ex.io/v1/namespaces/ns/foos/a%2Fb", "get|apis|ex.io|v1|ns|foos|b|a|foos/a/b"),
        ];
        for (method, url, want) in cases {
            let (path, query) = split_url(url);
            let info = resolve(method, path, query).unwrap_or_else(|e| panic!("{url}: {e}"));
            assert!(info.is_resource_request, "{method} {url}");
            assert_eq!(summary(&info), want, "{method} {url}");
        }
    }

    #[test]
    fn parse_non_resource_paths_use_lowercase_method() {
        #[rustfmt::skip]
        let cases = [
            ("GET", "", "get||||||||"),
            ("GET", "/", "get||||||||"),
            ("GET", "/api", "get||||||||"),
            ("GET", "/api/v1", "get||||||||"),
            ("GET", "/api/version/", "get||||||||"),
            ("GET", "/apis", "get||||||||"),
            ("GET", "/apis/group", "get||||||||"),
            ("GET", "/apis/group/version", "get|apis|||||||"),
            ("GET", "/apis/group/version/", "get|apis|||||||"),
            ("GET", "/badprefix/version/resource", "get||||||||"),
            ("HEAD", "/healthz", "head||||||||"),
            ("POST", "/openapi/v2", "post||||||||"),
            ("OPTIONS", "/apis", "options||||||||"),
        ];
        for (method, url, want) in cases {
            let info = resolve(method, url, "").unwrap_or_else(|e| panic!("{url}: {e}"));
            assert!(!info.is_resource_request, "{method} {url}");
            assert_eq!(summary(&info), want, "{method} {url}");
        }
    }

    #[test]
    fn parse_selectors_promote_name_and_copy_raw_text() {
        #[rustfmt::skip]
        let cases = [
            ("no selector", "GET", "/apis/g/v/r", "list", "", "", ""),
            ("name selector", "GET", "/apis/g/v/r?fieldSelector=metadata.name=name1", "list", "name1", "metadata.name=name1", ""),
            ("name selector watch", "GET", "/apis/g/v/r?watch=true&fieldSelector=metadata.name%3Dname1", "watch", "name1", "metadata.name=name1", ""),
            ("double equals", "GET", "/apis/g/v/r?fieldSelector=metadata.name==n", "list", "n", "metadata.name==n", ""),
            ("other selectors", "GET", "/apis/g/v/r?fieldSelector=foo=bar&labelSelector=baz=qux", "list", "", "foo=bar", "baz=qux"),
            ("invalid field selector", "GET", "/apis/g/v/r?fieldSelector=metadata.name=name1,foo", "list", "", "metadata.name=name1,foo", ""),
            ("invalid selector watch", "GET", "/apis/g/v/r?fieldSelector=metadata.name=n,foo&watch=true", "watch", "", "metadata.name=n,foo", ""),
            ("invalid selector watch false", "GET", "/apis/g/v/r?fieldSelector=metadata.name=n,foo&watch=false", "list", "", "metadata.name=n,foo", ""),
            ("invalid label selector blocks name", "GET", "/apis/g/v/r?fieldSelector=metadata.name=n&labelSelector=!", "list", "", "metadata.name=n", "!"),
            ("bad limit blocks name", "GET", "/apis/g/v/r?fieldSelector=metadata.name=n&limit=x", "list", "", "metadata.name=n", ""),
            ("bad timeout blocks name", "GET", "/apis/g/v/r?fieldSelector=metadata.name=n&timeoutSeconds=1.5", "list", "", "metadata.name=n", ""),
            ("unsafe name not promoted", "GET", "/apis/g/v/r?fieldSelector=metadata.name=a%25b", "list", "", "metadata.name=a%b", ""),
            ("dot name not promoted", "GET", "/apis/g/v/r?fieldSelector=metadata.name=..", "list", "", "metadata.name=..", ""),
            ("not-equals not promoted", "GET", "/apis/g/v/r?fieldSelector=metadata.name!=n", "list", "", "metadata.name!=n", ""),
            ("deletecollection selectors", "DELETE", "/apis/g/v/r?fieldSelector=foo=bar&labelSelector=baz=qux", "deletecollection", "", "foo=bar", "baz=qux"),
            ("first of repeated", "GET", "/apis/g/v/r?fieldSelector=metadata.name=foo&fieldSelector=metadata.name=bar&labelSelector=a%20in%20(b)", "list", "foo", "metadata.name=foo", "a in (b)"),
            ("plus is space", "GET", "/apis/g/v/r?labelSelector=a+in+(b)", "list", "", "", "a in (b)"),
            ("get ignores selectors", "GET", "/apis/g/v/r/name?fieldSelector=foo=bar&labelSelector=foo=bar", "get", "name", "", ""),
            ("watch prefix collection", "GET", "/apis/g/v/watch/r?fieldSelector=metadata.name=foo&labelSelector=foo=bar", "watch", "", "", ""),
            ("watch prefix item", "GET", "/apis/g/v/watch/r/name?fieldSelector=metadata.name=foo", "watch", "name", "", ""),
        ];
        for (name, method, url, verb, obj, fields, labels) in cases {
            let (path, query) = split_url(url);
            let info = parse(method, path, query);
            let got = (
                info.verb.as_str(),
                info.name.as_str(),
                info.field_selector.as_str(),
                info.label_selector.as_str(),
            );
            assert_eq!(got, (verb, obj, fields, labels), "{name}");
        }
    }

    #[test]
    fn resolve_bare_special_verb_fails_with_partial_info() {
        #[rustfmt::skip]
        let cases = [
            ("/apis/g/v/watch", "", "unable to determine kind and namespace from url, /apis/g/v/watch"),
            ("/api/v1/proxy/", "a=b", "unable to determine kind and namespace from url, /api/v1/proxy/?a=b"),
        ];
        for (path, query, want) in cases {
            let err = resolve("GET", path, query).expect_err(path);
            assert_eq!(err.to_string(), want, "{path}");
            assert!(err.partial.is_resource_request, "{path}");
            assert_eq!(parse("GET", path, query), *err.partial, "{path}");
        }
    }

    #[test]
    fn query_pairs_decode_like_go_parse_query() {
        #[rustfmt::skip]
        let cases: [(_, _, &[(&str, &str)]); 8] = [
            ("empty", "", &[]),
            ("plain", "a=1&b=2", &[("a", "1"), ("b", "2")]),
            ("no value", "a&b=", &[("a", ""), ("b", "")]),
            ("first equals splits", "f=a=b", &[("f", "a=b")]),
            ("escapes and plus", "k%20x=a+b%2Bc", &[("k x", "a b+c")]),
            ("empty pairs skipped", "&&a=1&", &[("a", "1")]),
            ("semicolon pair dropped", "a=1;b=2&c=3", &[("c", "3")]),
            ("bad escape dropped", "a=%zz&b=%4&c=%41", &[("c", "A")]),
        ];
        for (name, query, want) in cases {
            let want: Vec<(String, String)> = want
                .iter()
                .map(|(k, v)| ((*k).into(), (*v).into()))
                .collect();
            assert_eq!(query_pairs(query), want, "{name}");
        }
    }

    #[test]
    fn query_bool_false_only_for_zero_or_false() {
        let cases = [
            ("", true),
            ("true", true),
            ("1", true),
            ("yes", true),
            ("0", false),
            ("false", false),
            ("False", false),
            ("falſe", false),
            ("00", true),
        ];
        for (value, want) in cases {
            assert_eq!(query_bool(value), want, "{value:?}");
        }
    }
}
