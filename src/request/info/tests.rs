//! Table tests for request info parsing, with cases modelled on upstream's `requestinfo_test.go`.

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
    let more = [i.resource.as_str(), i.subresource.as_str(), i.name.as_str()];
    format!(
        "{}|{}|{}",
        fields.join("|"),
        more.join("|"),
        i.parts.join("/")
    )
}

fn split_url(url: &str) -> (&str, Query) {
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    (path, Query::parse(query))
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
        // Dot segments are kept as they come (no cleaning), `%2E%2E` decoded to one.
        ("GET", "/apis/ex.io/v1/namespaces/ns/foos/..", "get|apis|ex.io|v1|ns|foos||..|foos/.."),
        ("PUT", "/apis/ex.io/v1/namespaces/ns/foos/.", "update|apis|ex.io|v1|ns|foos||.|foos/."),
        ("GET", "/apis/ex.io/v1/namespaces/ns/foos/%2E%2E", "get|apis|ex.io|v1|ns|foos||..|foos/.."),
        ("GET", "/apis/ex.io/v1/namespaces/ns/foos/a/..", "get|apis|ex.io|v1|ns|foos|..|a|foos/a/.."),
        ("GET", "/apis/ex.io/v1/namespaces/ns/foos/../foos/a", "get|apis|ex.io|v1|ns|foos|foos|..|foos/../foos/a"),
        // Empty segments count: `//name` is a list with subresource `name`, `a//status` has none.
        ("GET", "/apis/ex.io/v1/namespaces/ns/foos//a", "list|apis|ex.io|v1|ns|foos|a||foos//a"),
        ("GET", "/apis/ex.io/v1/namespaces/ns/foos/a//status", "get|apis|ex.io|v1|ns|foos||a|foos/a//status"),
        ("GET", "/apis/ex.io/v1/namespaces/ns//foos", "get|apis|ex.io|v1|ns|||foos|/foos"),
        ("GET", "/apis/ex.io/v1/namespaces/ns/foos/a%2fb/status", "get|apis|ex.io|v1|ns|foos|b|a|foos/a/b/status"),
        ("GET", "/apis/ex.io/v1/namespaces/ns/foos/a%2Fstatus", "get|apis|ex.io|v1|ns|foos|status|a|foos/a/status"),
        ("GET", "/apis/ex.io/v1/namespaces/ns/foos/a%00b", "get|apis|ex.io|v1|ns|foos||a\0b|foos/a\0b"),
        ("GET", "/apis/ex.io/v1/namespaces/ns/foos/a%31", "get|apis|ex.io|v1|ns|foos||a1|foos/a1"),
        ("OPTIONS", "/apis/ex.io/v1/namespaces/ns/foos/a/status", "|apis|ex.io|v1|ns|foos|status|a|foos/a/status"),
    ];
    for (method, url, want) in cases {
        let (path, query) = split_url(url);
        let info = resolve(method, path, &query).unwrap_or_else(|e| panic!("{url}: {e}"));
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
        let info = resolve(method, url, &Query::default()).unwrap_or_else(|e| panic!("{url}: {e}"));
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
        let info = parse(method, path, &query);
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
        let query = Query::parse(query);
        let err = resolve("GET", path, &query).expect_err(path);
        assert_eq!(err.to_string(), want, "{path}");
        assert!(err.partial.is_resource_request, "{path}");
        assert_eq!(parse("GET", path, &query), *err.partial, "{path}");
    }
}

#[test]
fn subresource_parse_names_known_and_keeps_other_text() {
    let cases = [
        ("", Subresource::None),
        ("status", Subresource::Status),
        ("scale", Subresource::Scale),
        ("Status", Subresource::Other("Status".into())),
        ("foo", Subresource::Other("foo".into())),
    ];
    for (name, want) in cases {
        let got = Subresource::parse(name);
        assert_eq!(got, want, "{name:?}");
        assert_eq!(got.as_str(), name, "{name:?} round trip");
        assert_eq!(got.is_empty(), name.is_empty(), "{name:?} is_empty");
    }
}

#[test]
fn path_segment_name_errors_match_is_path_segment_name() {
    #[rustfmt::skip]
    let cases: [(&str, &[&str]); 9] = [
        ("a", &[]),
        ("", &[]),
        ("a.b", &[]),
        ("...", &[]),
        ("..", &["may not be '..'"]),
        (".", &["may not be '.'"]),
        ("a/b", &["may not contain '/'"]),
        ("a%b/c", &["may not contain '/'", "may not contain '%'"]),
        ("a\0b", &[]),
    ];
    for (name, want) in cases {
        assert_eq!(path_segment_name_errors(name), want, "{name:?}");
        assert_eq!(is_path_segment_name(name), want.is_empty(), "{name:?}");
    }
}
