//! `url.Parse` against Go's answers for the same inputs.

use super::*;

fn parts(
    scheme: &str,
    user: Option<&str>,
    host: &str,
    path: &str,
    query: &str,
    fragment: &str,
) -> Url {
    Url {
        scheme: scheme.into(),
        opaque: String::new(),
        user: user.map(Into::into),
        host: host.into(),
        path: path.into(),
        raw_query: query.into(),
        fragment: fragment.into(),
    }
}

#[test]
fn parse_url_valid_urls_give_go_parts() {
    let cases = [
        (
            "plain",
            "https://example.com/convert",
            parts("https", None, "example.com", "/convert", "", ""),
        ),
        (
            "scheme lower-cased",
            "HTTPS://example.com",
            parts("https", None, "example.com", "", "", ""),
        ),
        (
            "port",
            "https://example.com:8443/",
            parts("https", None, "example.com:8443", "/", "", ""),
        ),
        (
            "ipv6 with port",
            "https://[::1]:8443/x",
            parts("https", None, "[::1]:8443", "/x", "", ""),
        ),
        (
            "query and fragment",
            "https://h/a?b=c#frag",
            parts("https", None, "h", "/a", "b=c", "frag"),
        ),
        (
            "lone question mark",
            "https://h/a?",
            parts("https", None, "h", "/a", "", ""),
        ),
        (
            "user",
            "https://me@h/",
            parts("https", Some("me"), "h", "/", "", ""),
        ),
        (
            "user and password re-escaped",
            "https://me:p%40ss@h/",
            parts("https", Some("me:p%40ss"), "h", "/", "", ""),
        ),
        ("empty", "", parts("", None, "", "", "", "")),
        (
            "path only",
            "/just/a/path",
            parts("", None, "", "/just/a/path", "", ""),
        ),
        (
            "escaped path",
            "https://h/a%20b",
            parts("https", None, "h", "/a b", "", ""),
        ),
        (
            "non-ascii host",
            "https://bücher.example/",
            parts("https", None, "bücher.example", "/", "", ""),
        ),
    ];
    for (name, raw, want) in cases {
        assert_eq!(parse_url(raw), Ok(want), "case {name}");
    }
    let opaque = parse_url("https:opaque/x").unwrap();
    assert_eq!(
        (
            opaque.scheme.as_str(),
            opaque.opaque.as_str(),
            opaque.host.as_str()
        ),
        ("https", "opaque/x", "")
    );
}

#[test]
fn parse_url_invalid_urls_report_go_text() {
    let cases = [
        (
            "space in host",
            "http://a b.com/",
            r#"parse "http://a b.com/": invalid character " " in host name"#,
        ),
        (
            "brace in host",
            "https://a{b}/",
            r#"parse "https://a{b}/": invalid character "{" in host name"#,
        ),
        (
            "port not numeric",
            "https://example.com:abc/x",
            r#"parse "https://example.com:abc/x": invalid port ":abc" after host"#,
        ),
        (
            "two colons in https host",
            "https://a:1:2/",
            r#"parse "https://a:1:2/": invalid port ":1:2" after host"#,
        ),
        (
            "non-ascii userinfo",
            "https://ü@example.com/",
            r#"parse "https://ü@example.com/": net/url: invalid userinfo"#,
        ),
        (
            "bad escape in path",
            "https://example.com/%zz",
            r#"parse "https://example.com/%zz": invalid URL escape "%zz""#,
        ),
        (
            "escape cut inside a character",
            "https://example.com/%zé",
            r#"parse "https://example.com/%zé": invalid URL escape "%z\xc3""#,
        ),
        (
            "short escape at end",
            "https://h/%a",
            r#"parse "https://h/%a": invalid URL escape "%a""#,
        ),
        (
            "ascii escaped in host",
            "https://%41.com/",
            r#"parse "https://%41.com/": invalid URL escape "%41""#,
        ),
        (
            "missing scheme",
            "://x",
            r#"parse "://x": missing protocol scheme"#,
        ),
        (
            "colon in first segment",
            "1a:b/x",
            r#"parse "1a:b/x": first path segment in URL cannot contain colon"#,
        ),
        (
            "control character",
            "https://h/\n",
            r#"parse "https://h/\n": net/url: invalid control character in URL"#,
        ),
        (
            "ipv4 in brackets",
            "https://[1.2.3.4]/",
            r#"parse "https://[1.2.3.4]/": invalid IP-literal"#,
        ),
        (
            "bracket inside host",
            "https://x[::1]/",
            r#"parse "https://x[::1]/": invalid IP-literal"#,
        ),
        (
            "unclosed bracket",
            "https://[::1/",
            r#"parse "https://[::1/": missing ']' in host"#,
        ),
        (
            "port after bracket",
            "https://[::1]x/",
            r#"parse "https://[::1]x/": invalid port "x" after host"#,
        ),
        (
            "bracketed name",
            "https://[abc]/",
            r#"parse "https://[abc]/": invalid host: ParseAddr("abc"): unable to parse IP"#,
        ),
        (
            "bad escape in fragment names the whole url",
            "https://h/#%zz",
            r#"parse "https://h/#%zz": invalid URL escape "%zz""#,
        ),
    ];
    for (name, raw, want) in cases {
        assert_eq!(parse_url(raw), Err(want.to_string()), "case {name}");
    }
}
