//! Cases from k8s.io/apiserver `library/ip_test.go`, plus kube's refusals.

use super::*;
use crate::cel::lib::argv::testing::{call, outcome, s};

fn ip<'a>(text: &str) -> Value<'a> {
    call(&library(), "string_to_ip", &[s(text)]).unwrap()
}

#[test]
fn ip_string_functions_table_match_kube() {
    let lib = library();
    let cases: &[(&str, &str, &str)] = &[
        (
            "string_to_ip",
            "192.168.0.1",
            "Opaque(Ip(Addr { bits: 281473913978881, is4: true }))",
        ),
        (
            "string_to_ip",
            "192.168.0.1.0",
            "error: IP Address \"192.168.0.1.0\" parse error during conversion from string: ParseAddr(\"192.168.0.1.0\"): IPv4 address too long",
        ),
        (
            "string_to_ip",
            "2001:db8:::68",
            "error: IP Address \"2001:db8:::68\" parse error during conversion from string: ParseAddr(\"2001:db8:::68\"): each colon-separated field must have at least one digit (at \":68\")",
        ),
        (
            "string_to_ip",
            "::ffff:1.2.3.4",
            "error: IPv4-mapped IPv6 address \"::ffff:1.2.3.4\" is not allowed",
        ),
        (
            "string_to_ip",
            "fe80::1%eth0",
            "error: IP address \"fe80::1%eth0\" with zone value is not allowed",
        ),
        ("is_ip", "192.168.0.1", "true"),
        ("is_ip", "192.168.0.1.0", "false"),
        ("is_ip", "2001:db8::68", "true"),
        ("is_ip", "2001:db8:::68", "false"),
        ("is_ip", "::ffff:1.2.3.4", "false"),
        ("is_ip", "fe80::1%eth0", "false"),
        ("ip_is_canonical", "127.0.0.1", "true"),
        ("ip_is_canonical", "2001:db8::68", "true"),
        ("ip_is_canonical", "2001:DB8::68", "false"),
        (
            "ip_is_canonical",
            "127.0.0.1.0",
            "error: IP Address \"127.0.0.1.0\" parse error during conversion from string: ParseAddr(\"127.0.0.1.0\"): IPv4 address too long",
        ),
    ];
    for (id, arg, want) in cases {
        assert_eq!(outcome(call(&lib, id, &[s(arg)])), *want, "{id}({arg:?})");
    }
}

#[test]
fn ip_methods_table_match_kube() {
    let lib = library();
    let cases: &[(&str, &str, &str)] = &[
        ("192.168.0.1", "ip_family", "4"),
        ("2001:db8::68", "ip_family", "6"),
        ("0.0.0.0", "ip_is_unspecified", "true"),
        ("127.0.0.1", "ip_is_unspecified", "false"),
        ("::", "ip_is_unspecified", "true"),
        ("::1", "ip_is_unspecified", "false"),
        ("127.0.0.1", "ip_is_loopback", "true"),
        ("1.2.3.4", "ip_is_loopback", "false"),
        ("::1", "ip_is_loopback", "true"),
        ("2001:db8::abcd", "ip_is_loopback", "false"),
        ("224.0.0.1", "ip_is_link_local_multicast", "true"),
        ("224.0.1.1", "ip_is_link_local_multicast", "false"),
        ("ff02::1", "ip_is_link_local_multicast", "true"),
        ("fd00::1", "ip_is_link_local_multicast", "false"),
        ("169.254.169.254", "ip_is_link_local_unicast", "true"),
        ("192.168.0.1", "ip_is_link_local_unicast", "false"),
        ("fe80::1", "ip_is_link_local_unicast", "true"),
        ("fd80::1", "ip_is_link_local_unicast", "false"),
        ("192.168.0.1", "ip_is_global_unicast", "true"),
        ("255.255.255.255", "ip_is_global_unicast", "false"),
        ("2001:db8::abcd", "ip_is_global_unicast", "true"),
        ("ff00::1", "ip_is_global_unicast", "false"),
        ("192.168.0.1", "ip_to_string", "192.168.0.1"),
        ("2001:db8:0:0:1:0:0:1", "ip_to_string", "2001:db8::1:0:0:1"),
        ("0::1", "ip_to_string", "::1"),
    ];
    for (addr, id, want) in cases {
        assert_eq!(
            outcome(call(&lib, id, &[ip(addr)])),
            *want,
            "ip({addr:?}).{id}"
        );
    }
}

#[test]
fn ip_equality_compares_addresses() {
    let (Value::Opaque(a), Value::Opaque(b), Value::Opaque(c)) = (ip("::1"), ip("0::1"), ip("::2"))
    else {
        panic!("ip values are opaque");
    };
    assert!(a.equals(b.as_ref()));
    assert!(!a.equals(c.as_ref()));
    assert_eq!(a.type_name(), "net.IP");
}

#[test]
fn ip_method_on_string_no_such_overload() {
    assert_eq!(
        outcome(call(&library(), "ip_family", &[s("1.2.3.4")])),
        "error: no such overload"
    );
}
