//! Go's `URL.String` of parsed URLs (checked against Go 1.27).

use super::*;

#[test]
fn url_string_table_match_go() {
    let cases = [
        (
            "https://user:pass@example.com:8080/a%20b/c?x=1&y=2&x=3#frag",
            "https://user:pass@example.com:8080/a%20b/c?x=1&y=2&x=3#frag",
        ),
        (
            "HTTP://Example.COM/Mixed%2Fpath",
            "http://Example.COM/Mixed%2Fpath",
        ),
        (
            "https://example.com/a%2Fb?k=v#x%20y",
            "https://example.com/a%2Fb?k=v#x%20y",
        ),
        ("https:://kubernetes.io/", "https:://kubernetes.io/"),
        ("mailto:user@example.com", "mailto:user@example.com"),
        ("*", "*"),
        ("/a b", "/a%20b"),
        ("http://a:b:c@host/", "http://a:b%3Ac@host/"),
        ("http://us%20er@host/", "http://us%20er@host/"),
        (
            "https://[fe80::1%25en0]:8080/p",
            "https://[fe80::1%25en0]:8080/p",
        ),
        ("file:///etc/passwd", "file:///etc/passwd"),
        ("x:/p", "x:/p"),
        ("x:////p", "x:////p"),
        ("http://h/p?", "http://h/p?"),
        ("http://h/p#a b", "http://h/p#a%20b"),
        ("http://h/ü", "http://h/%C3%BC"),
        ("http://h/a;b=c", "http://h/a;b=c"),
        ("//host/p", "//host/p"),
        ("a/b:c", "a/b:c"),
        ("./a:b", "./a:b"),
    ];
    for (raw, want) in cases {
        assert_eq!(
            parse(raw).map(|u| u.to_string()),
            Ok(want.to_string()),
            "{raw}"
        );
    }
}

#[test]
fn parse_errors_table_match_go() {
    let cases = [
        ("a:b/c", "parse_request_uri", Ok(())),
        ("a:b", "parse", Ok(())),
        (
            "1a:b",
            "parse",
            Err("parse \"1a:b\": first path segment in URL cannot contain colon"),
        ),
        (
            "http://h/p#%zz",
            "parse",
            Err("parse \"http://h/p#%zz\": invalid URL escape \"%zz\""),
        ),
        (
            "http://[::1]x/",
            "parse",
            Err("parse \"http://[::1]x/\": invalid port \"x\" after host"),
        ),
        (
            "http://a[::1]/",
            "parse",
            Err("parse \"http://a[::1]/\": invalid IP-literal"),
        ),
        (
            "http://[::x]/",
            "parse",
            Err(
                "parse \"http://[::x]/\": invalid host: ParseAddr(\"::x\"): each colon-separated field must have at least one digit (at \"x\")",
            ),
        ),
    ];
    for (raw, how, want) in cases {
        let got = match how {
            "parse" => parse(raw).map(|_| ()),
            _ => parse_request_uri(raw).map(|_| ()),
        };
        assert_eq!(got, want.map_err(str::to_string), "{how}({raw:?})");
    }
}
