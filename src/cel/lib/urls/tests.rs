//! `url()`, `isURL` and the accessors, expectations taken from kube 1.36 (Go 1.27).

use super::*;
use crate::cel::lib::argv::testing::{call, outcome, s};

/// Go prints a map sorted by key: `map[k:[v1, v2] ...]`.
fn go_map(value: Value<'_>) -> String {
    let Value::Map(Map::Owned(entries)) = value else {
        panic!("getQuery returns a map");
    };
    let mut parts: Vec<String> = entries
        .iter()
        .map(|(k, v)| {
            let list = crate::cel::lib::argv::testing::show(v);
            format!("{}:{list}", crate::cel::lib::argv::testing::show(k))
        })
        .collect();
    parts.sort();
    format!("map[{}]", parts.join(" "))
}

/// `(input, accessor results or url()'s error, isURL)`.
type Case<'a> = (&'a str, Result<[&'a str; 6], &'a str>, bool);

#[test]
fn url_accessors_table_match_kube() {
    let lib = library();
    let getters = [
        "url_get_scheme",
        "url_get_host",
        "url_get_hostname",
        "url_get_port",
        "url_get_escaped_path",
    ];
    #[rustfmt::skip]
    let cases: &[Case] = &[
        ("https://example.com:80/", Ok(["https", "example.com:80", "example.com", "80", "/", "map[]"]), true),
        ("https://example.com/path", Ok(["https", "example.com", "example.com", "", "/path", "map[]"]), true),
        ("https://user:pass@example.com:8080/a%20b/c?x=1&y=2&x=3#frag", Ok(["https", "example.com:8080", "example.com", "8080", "/a%20b/c", "map[x:[1, 3] y:[2]]"]), true),
        ("https://[::1]:80/", Ok(["https", "[::1]:80", "::1", "80", "/", "map[]"]), true),
        ("https://[fe80::1%25en0]:8080/p", Ok(["https", "[fe80::1%en0]:8080", "fe80::1%en0", "8080", "/p", "map[]"]), true),
        ("https:://kubernetes.io/", Ok(["https", "", "", "", "", "map[]"]), true),
        ("http://x.b", Ok(["http", "x.b", "x.b", "", "", "map[]"]), true),
        ("/absolute-path", Ok(["", "", "", "", "/absolute-path", "map[]"]), true),
        ("relative", Err("URL parse error during conversion from string: parse \"relative\": invalid URI for request"), false),
        ("*", Ok(["", "", "", "", "*", "map[]"]), true),
        ("mailto:user@example.com", Ok(["mailto", "", "", "", "", "map[]"]), true),
        ("https://a b.com/", Err("URL parse error during conversion from string: parse \"https://a b.com/\": invalid character \" \" in host name"), false),
        ("https://example.com:foo/", Err("URL parse error during conversion from string: parse \"https://example.com:foo/\": invalid port \":foo\" after host"), false),
        ("https://[1.2.3.4]/", Err("URL parse error during conversion from string: parse \"https://[1.2.3.4]/\": invalid IP-literal"), false),
        ("https://ex%41mple.com/", Err("URL parse error during conversion from string: parse \"https://ex%41mple.com/\": invalid URL escape \"%41\""), false),
        ("https://example.com/%zz", Err("URL parse error during conversion from string: parse \"https://example.com/%zz\": invalid URL escape \"%zz\""), false),
        ("http://host/p?q=%zz&r=1&s=a+b&t=1;2", Ok(["http", "host", "host", "", "/p", "map[r:[1] s:[a b]]"]), true),
        ("HTTP://Example.COM/Mixed%2Fpath", Ok(["http", "Example.COM", "Example.COM", "", "/Mixed%2Fpath", "map[]"]), true),
        ("https://example.com/a%2Fb?k=v#x%20y", Ok(["https", "example.com", "example.com", "", "/a%2Fb", "map[k:[v]]"]), true),
        (":foo", Err("URL parse error during conversion from string: parse \":foo\": missing protocol scheme"), false),
        ("http://[::1", Err("URL parse error during conversion from string: parse \"http://[::1\": missing ']' in host"), false),
        ("http://a@b@c/", Ok(["http", "c", "c", "", "/", "map[]"]), true),
        ("http://a:b:c@host/", Ok(["http", "host", "host", "", "/", "map[]"]), true),
        ("http://user^x@host/", Err("URL parse error during conversion from string: parse \"http://user^x@host/\": net/url: invalid userinfo"), false),
        ("http://example.com:8080:90/", Ok(["http", "example.com:8080:90", "example.com:8080", "90", "/", "map[]"]), true),
        ("", Err("URL parse error during conversion from string: parse \"\": empty url"), false),
        ("http://h/\u{7f}", Err("URL parse error during conversion from string: parse \"http://h/\\x7f\": net/url: invalid control character in URL"), false),
    ];
    for (raw, want, is_url) in cases {
        assert_eq!(
            outcome(call(&lib, "is_url_string", &[s(raw)])),
            is_url.to_string(),
            "isURL({raw:?})"
        );
        let url = call(&lib, "string_to_url", &[s(raw)]);
        let (url, want) = match (url, want) {
            (Err(e), Err(want)) => {
                assert_eq!(e.to_string(), *want, "url({raw:?})");
                continue;
            }
            (Ok(url), Ok(want)) => (url, want),
            (got, want) => panic!("url({raw:?}): got {got:?}, want {want:?}"),
        };
        for (id, want) in getters.iter().zip(want) {
            let got = outcome(call(&lib, id, std::slice::from_ref(&url)));
            assert_eq!(got, *want, "url({raw:?}).{id}()");
        }
        let query = go_map(call(&lib, "url_get_query", &[url]).unwrap());
        assert_eq!(query, want[5], "url({raw:?}).getQuery()");
    }
}

#[test]
fn url_equality_compares_go_string_forms() {
    let url = |raw: &str| match call(&library(), "string_to_url", &[s(raw)]).unwrap() {
        Value::Opaque(o) => o,
        _ => panic!("url values are opaque"),
    };
    assert!(url("HTTP://x.b/").equals(url("http://x.b/").as_ref()));
    assert!(url("http://x.b/a b").equals(url("http://x.b/a%20b").as_ref()));
    assert!(!url("http://x.b").equals(url("http://x.b/").as_ref()));
}

#[test]
fn url_getter_on_string_no_such_overload() {
    assert_eq!(
        outcome(call(&library(), "url_get_host", &[s("http://x")])),
        "error: no such overload"
    );
}
