//! Go `net/netip` parse errors and text forms (checked against Go 1.27).

use super::*;

#[test]
fn parse_addr_errors_table_match_go() {
    let cases = [
        ("foo", "ParseAddr(\"foo\"): unable to parse IP"),
        ("", "ParseAddr(\"\"): unable to parse IP"),
        ("%eth0", "ParseAddr(\"%eth0\"): missing IPv6 address"),
        (
            "1.2.3.04",
            "ParseAddr(\"1.2.3.04\"): IPv4 field has octet with leading zero",
        ),
        (
            "1.2.3.256",
            "ParseAddr(\"1.2.3.256\"): IPv4 field has value >255",
        ),
        (
            "1..2.3",
            "ParseAddr(\"1..2.3\"): IPv4 field must have at least one digit (at \".2.3\")",
        ),
        ("1.2.3", "ParseAddr(\"1.2.3\"): IPv4 address too short"),
        (
            "1.2.3.x",
            "ParseAddr(\"1.2.3.x\"): unexpected character (at \"x\")",
        ),
        ("1:2", "ParseAddr(\"1:2\"): address string too short"),
        (
            "fe80::1%",
            "ParseAddr(\"fe80::1%\"): zone must be a non-empty string",
        ),
        (
            "12345::",
            "ParseAddr(\"12345::\"): each group must have 4 or less digits (at \"12345::\")",
        ),
        (
            "1:2:3:4:5:6:7:8:9",
            "ParseAddr(\"1:2:3:4:5:6:7:8:9\"): trailing garbage after address (at \"9\")",
        ),
        (
            "1::2::3",
            "ParseAddr(\"1::2::3\"): multiple :: in address (at \":3\")",
        ),
        (
            "1:2:3:4:5:6:7::8",
            "ParseAddr(\"1:2:3:4:5:6:7::8\"): the :: must expand to at least one field of zeros",
        ),
        (
            "1.2.3.4.",
            "ParseAddr(\"1.2.3.4.\"): IPv4 field must have at least one digit (at \".\")",
        ),
        (
            "1:2:3:4:5:6:7:1.2.3.4",
            "ParseAddr(\"1:2:3:4:5:6:7:1.2.3.4\"): embedded IPv4 address must replace the final 2 fields of the address (at \"1.2.3.4\")",
        ),
        (
            "ffff0::",
            "ParseAddr(\"ffff0::\"): each group must have 4 or less digits (at \"ffff0::\")",
        ),
        (
            "1:2:3:4:5:6:7:8::",
            "ParseAddr(\"1:2:3:4:5:6:7:8::\"): the :: must expand to at least one field of zeros",
        ),
        (
            "1:2:3:4:1.2.3.4",
            "ParseAddr(\"1:2:3:4:1.2.3.4\"): embedded IPv4 address must replace the final 2 fields of the address (at \"1.2.3.4\")",
        ),
        (
            "1:2g::",
            "ParseAddr(\"1:2g::\"): unexpected character, want colon (at \"g::\")",
        ),
        (
            "1:",
            "ParseAddr(\"1:\"): colon must be followed by more characters (at \":\")",
        ),
    ];
    for (input, want) in cases {
        assert_eq!(
            parse_addr(input).map(|(a, _)| a.to_string()),
            Err(want.to_string()),
            "{input}"
        );
    }
}

#[test]
fn addr_string_table_match_go() {
    let cases = [
        ("1.2.3.4", "1.2.3.4"),
        ("::", "::"),
        ("0:0:0:0:0:0:0:1", "::1"),
        ("2001:DB8::", "2001:db8::"),
        ("1:0:0:1:0:0:0:1", "1:0:0:1::1"),
        ("1:0:0:2:0:0:3:4", "1::2:0:0:3:4"),
        ("1:2:3:4:5:6:7:0", "1:2:3:4:5:6:7:0"),
        ("::ffff:1.2.3.4", "::ffff:1.2.3.4"),
        ("64:ff9b::1.2.3.4", "64:ff9b::102:304"),
        ("1:2:3:4:5:6:1.2.3.4", "1:2:3:4:5:6:102:304"),
        ("::1.2.3.4", "::102:304"),
    ];
    for (input, want) in cases {
        assert_eq!(
            parse_addr(input).map(|(a, _)| a.to_string()),
            Ok(want.to_string()),
            "{input}"
        );
    }
}

#[test]
fn parse_prefix_table_match_go() {
    let cases = [
        ("10.0.0.1/8", Ok("10.0.0.1/8")),
        ("2001:db8::/32", Ok("2001:db8::/32")),
        ("1.2.3.4", Err("netip.ParsePrefix(\"1.2.3.4\"): no '/'")),
        (
            "1.2.3.4/33",
            Err("netip.ParsePrefix(\"1.2.3.4/33\"): prefix length out of range"),
        ),
        (
            "1.2.3.4/08",
            Err("netip.ParsePrefix(\"1.2.3.4/08\"): bad bits after slash: \"08\""),
        ),
        (
            "1.2.3.4/",
            Err("netip.ParsePrefix(\"1.2.3.4/\"): bad bits after slash: \"\""),
        ),
        (
            "1.2.3.4/+1",
            Err("netip.ParsePrefix(\"1.2.3.4/+1\"): bad bits after slash: \"+1\""),
        ),
        (
            "::/99999999999999999999",
            Err(
                "netip.ParsePrefix(\"::/99999999999999999999\"): bad bits after slash: \"99999999999999999999\"",
            ),
        ),
        (
            "fe80::1%eth0/64",
            Err("netip.ParsePrefix(\"fe80::1%eth0/64\"): IPv6 zones cannot be present in a prefix"),
        ),
        (
            "x/8",
            Err("netip.ParsePrefix(\"x/8\"): ParseAddr(\"x\"): unable to parse IP"),
        ),
    ];
    for (input, want) in cases {
        assert_eq!(
            parse_prefix(input).map(|p| p.to_string()),
            want.map(str::to_string).map_err(str::to_string),
            "{input}"
        );
    }
}

#[test]
fn prefix_relations_table_match_go() {
    let p = |s: &str| parse_prefix(s).unwrap();
    let a = |s: &str| parse_addr(s).unwrap().0;
    assert!(p("10.0.0.0/8").contains(a("10.255.0.1")));
    assert!(!p("10.0.0.0/8").contains(a("11.0.0.1")));
    assert!(!p("0.0.0.0/0").contains(a("::1")));
    assert!(p("::/0").contains(a("2001:db8::1")));
    assert!(p("10.0.0.0/8").overlaps(p("10.1.0.0/16")));
    assert!(!p("10.0.0.0/8").overlaps(p("11.0.0.0/16")));
    assert!(!p("0.0.0.0/0").overlaps(p("::/0")));
    assert_eq!(p("10.1.2.3/8").masked().to_string(), "10.0.0.0/8");
    assert_eq!(p("2001:db8::1/32").masked().to_string(), "2001:db8::/32");
    assert_eq!(p("1.2.3.4/0").masked().to_string(), "0.0.0.0/0");
}
