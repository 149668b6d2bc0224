//! Cases from k8s.io/apiserver `library/cidr_test.go`, plus kube's refusals.

use super::*;
use crate::cel::lib::argv::testing::{call, outcome, s};
use crate::cel::lib::ip;

fn cidr<'a>(text: &str) -> Value<'a> {
    call(&library(), "string_to_cidr", &[s(text)]).unwrap()
}

fn ip<'a>(text: &str) -> Value<'a> {
    call(&ip::library(), "string_to_ip", &[s(text)]).unwrap()
}

/// The text of a CIDR or IP result, through `string(...)`.
fn text(value: Value<'_>) -> String {
    let (lib, id) = match &value {
        Value::Opaque(o) if o.type_name() == CIDR_TYPE => (library(), "cidr_to_string"),
        _ => (ip::library(), "ip_to_string"),
    };
    outcome(call(&lib, id, &[value]))
}

#[test]
fn cidr_parse_table_match_kube() {
    let cases = [
        ("192.168.0.0/24", "192.168.0.0/24"),
        ("2001:db8::/32", "2001:db8::/32"),
        (
            "192.168.0.0/",
            "error: network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix(\"192.168.0.0/\"): bad bits after slash: \"\"",
        ),
        (
            "2001:db8::/",
            "error: network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix(\"2001:db8::/\"): bad bits after slash: \"\"",
        ),
        (
            "::ffff:1.2.3.4/120",
            "error: network address parse error during conversion from string: IPv4-mapped IPv6 address \"::ffff:1.2.3.4/120\" is not allowed",
        ),
    ];
    for (input, want) in cases {
        let got = match call(&library(), "string_to_cidr", &[s(input)]) {
            Ok(v) => text(v),
            Err(e) => format!("error: {e}"),
        };
        assert_eq!(got, want, "cidr({input:?})");
        let is = outcome(call(&library(), "is_cidr", &[s(input)]));
        assert_eq!(
            is,
            (!want.starts_with("error")).to_string(),
            "isCIDR({input:?})"
        );
    }
}

#[test]
fn cidr_contains_table_match_kube() {
    let lib = library();
    let cases: &[(&str, &str, Value<'_>, &str)] = &[
        (
            "192.168.0.0/24",
            "cidr_contains_ip_ip",
            ip("192.168.0.1"),
            "true",
        ),
        (
            "192.168.0.0/24",
            "cidr_contains_ip_ip",
            ip("192.168.1.1"),
            "false",
        ),
        (
            "192.168.0.0/24",
            "cidr_contains_ip_string",
            s("192.168.0.1"),
            "true",
        ),
        (
            "192.168.0.0/24",
            "cidr_contains_ip_string",
            s("192.168.1.1"),
            "false",
        ),
        (
            "192.168.0.0/24",
            "cidr_contains_ip_string",
            s("foo"),
            "error: no such overload",
        ),
        (
            "192.168.0.0/24",
            "cidr_contains_cidr",
            cidr("192.168.0.0/25"),
            "true",
        ),
        (
            "192.168.0.0/24",
            "cidr_contains_cidr",
            cidr("192.168.0.1/32"),
            "true",
        ),
        (
            "192.168.0.0/24",
            "cidr_contains_cidr",
            cidr("192.168.0.0/23"),
            "false",
        ),
        (
            "192.168.0.0/24",
            "cidr_contains_cidr",
            cidr("192.169.0.1/32"),
            "false",
        ),
        (
            "192.168.0.0/24",
            "cidr_contains_cidr_string",
            s("192.168.0.0/25"),
            "true",
        ),
        (
            "192.168.0.0/24",
            "cidr_contains_cidr_string",
            s("192.168.0.0/23"),
            "false",
        ),
        (
            "192.168.0.0/24",
            "cidr_contains_cidr_string",
            s("foo"),
            "error: network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix(\"foo\"): no '/'",
        ),
        (
            "2001:db8::/32",
            "cidr_contains_ip_ip",
            ip("2001:db8::1"),
            "true",
        ),
        (
            "2001:db8::/32",
            "cidr_contains_ip_ip",
            ip("2001:dc8::1"),
            "false",
        ),
        (
            "2001:db8::/32",
            "cidr_contains_ip_string",
            s("2001:db8::1"),
            "true",
        ),
        (
            "2001:db8::/32",
            "cidr_contains_ip_string",
            s("2001:dc8::1"),
            "false",
        ),
        (
            "2001:db8::/32",
            "cidr_contains_cidr",
            cidr("2001:db8::/33"),
            "true",
        ),
        (
            "2001:db8::/32",
            "cidr_contains_cidr",
            cidr("2001:db8::/31"),
            "false",
        ),
        (
            "2001:db8::/32",
            "cidr_contains_cidr_string",
            s("2001:db8::/33"),
            "true",
        ),
        (
            "2001:db8::/32",
            "cidr_contains_cidr_string",
            s("2001:db8::/31"),
            "false",
        ),
        ("0.0.0.0/0", "cidr_contains_ip_ip", ip("::1"), "false"),
    ];
    for (receiver, id, arg, want) in cases {
        let got = outcome(call(&lib, id, &[cidr(receiver), arg.clone()]));
        assert_eq!(got, *want, "cidr({receiver:?}).{id}({arg:?})");
    }
}

#[test]
fn cidr_accessors_table_match_kube() {
    let lib = library();
    let cases = [
        ("192.168.0.0/24", "cidr_ip", "192.168.0.0"),
        ("192.168.0.0/24", "cidr_masked", "192.168.0.0/24"),
        ("192.168.0.1/24", "cidr_masked", "192.168.0.0/24"),
        ("192.168.0.1/24", "cidr_ip", "192.168.0.1"),
        ("2001:db8::/32", "cidr_ip", "2001:db8::"),
        ("2001:db8:1::/32", "cidr_masked", "2001:db8::/32"),
    ];
    for (receiver, id, want) in cases {
        let got = call(&lib, id, &[cidr(receiver)]).unwrap();
        assert_eq!(text(got), want, "cidr({receiver:?}).{id}()");
    }
    let length = |c| outcome(call(&lib, "cidr_prefix_length", &[cidr(c)]));
    assert_eq!(length("192.168.0.0/24"), "24");
    assert_eq!(length("2001:db8::/32"), "32");
}

#[test]
fn cidr_equality_compares_address_and_length() {
    let opaque = |v: Value<'static>| match v {
        Value::Opaque(o) => o,
        _ => panic!("cidr values are opaque"),
    };
    let a = opaque(cidr("10.0.0.0/8"));
    assert!(a.equals(opaque(cidr("10.0.0.0/8")).as_ref()));
    assert!(!a.equals(opaque(cidr("10.0.0.1/8")).as_ref()));
    assert!(!a.equals(opaque(ip("10.0.0.0")).as_ref()));
}
