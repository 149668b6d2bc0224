//! Table tests for ipv4, ipv6, cidr, mac and uri; values from kube-openapi, k8s.io/utils
//! and Go's own tests, each confirmed against kube-openapi's `strfmt.Default`.

use super::super::tests::check_table;

#[test]
fn ipv4_is_sloppy_and_needs_a_dot() {
    check_table(
        "ipv4",
        &[
            ("local", "127.0.0.1", true),
            ("leading_zeros", "192.168.1.01", true),
            ("many_leading_zeros", "0000000001.2.3.4", true),
            ("ipv4_mapped_ipv6", "::ffff:1.2.3.4", true),
            ("five_fields", "198.168.254.2.2", false),
            ("three_fields", "1.2.3", false),
            ("over_255", "1.2.3.256", false),
            ("negative", "1.2.3.-4", false),
            ("ipv6_without_dot", "::1", false),
            ("trailing_space", "1.2.3.4 ", false),
            ("empty", "", false),
        ],
    );
}

#[test]
fn ipv6_is_strict_go_parse_ip_with_a_colon() {
    check_table(
        "ipv6",
        &[
            ("loopback", "::1", true),
            ("unspecified", "::", true),
            ("full", "1:2:3:4:5:6:7:8", true),
            ("ellipsis_at_end", "1:2:3:4:5:6:7::", true),
            ("embedded_ipv4", "::ffff:1.2.3.4", true),
            ("embedded_ipv4_at_end", "1:2:3:4:5:6:1.2.3.4", true),
            ("ipv4", "127.0.0.1", false),
            ("zone", "fe80::1%lo0", false),
            ("nine_groups", "1:2:3:4:5:6:7:8:9", false),
            ("two_ellipses", "1::2::3", false),
            ("five_hex_digits", "00001::", false),
            ("ellipsis_for_nothing", "a1:a2:a3:a4::b1:b2:b3:b4", false),
            ("embedded_leading_zero", "::ffff:1.2.3.04", false),
            ("embedded_too_early", "1:2:3:4:5:1.2.3.4", false),
            ("leading_single_colon", ":1::", false),
            ("trailing_colon", "1:", false),
        ],
    );
}

#[test]
fn cidr_is_sloppy_address_and_prefix_in_range() {
    check_table(
        "cidr",
        &[
            ("ipv4", "192.0.2.1/24", true),
            ("leading_zeros", "192.0.02.1/24", true),
            ("ipv6", "2001:db8:a0b:12f0::1/32", true),
            ("prefix_leading_zero", "1.2.3.4/032", true),
            ("mapped_uses_ipv6_length", "::ffff:1.2.3.4/120", true),
            ("no_prefix", "198.168.254.2", false),
            ("ipv6_no_prefix", "2001:db8:a0b:12f0::1", false),
            ("ipv4_prefix_33", "1.2.3.4/33", false),
            ("ipv6_prefix_129", "::/129", false),
            ("negative_zero", "1.2.3.4/-0", false),
            ("empty_prefix", "1.2.3.4/", false),
            ("two_slashes", "1.2.3.4/1/2", false),
        ],
    );
}

#[test]
fn mac_accepts_go_parse_mac_forms() {
    check_table(
        "mac",
        &[
            ("colons", "01:02:03:04:05:06", true),
            ("dashes", "01-02-03-04-05-06", true),
            ("dots", "0102.0304.0506", true),
            ("bare", "010203040506", true),
            ("eui64", "01:02:03:04:05:06:07:08", true),
            (
                "infiniband",
                "00:00:5e:00:53:01:02:03:04:05:06:07:08:09:0a:0b:0c:0d:0e:0f",
                true,
            ),
            ("five_bytes", "01:02:03:04:05", false),
            ("mixed_separators", "01:02-03:04:05:06", false),
            ("bad_hex", "01:02:03:04:05:0g", false),
            ("seven_bare_bytes", "01020304050607", false),
        ],
    );
}

#[test]
fn uri_is_go_parse_request_uri() {
    check_table(
        "uri",
        &[
            ("http", "http://somewhere.com", true),
            ("absolute_path", "/a/b?c#d", true),
            ("asterisk", "*", true),
            ("opaque", "mailto:x@y", true),
            ("space_in_path", "/a b", true),
            ("ipv6_zone", "http://[fe80::1%25en0]:80/", true),
            ("ipv4_mapped_literal", "http://[::ffff:1.2.3.4]/", true),
            ("userinfo", "http://u:p@h:1/p", true),
            ("at_in_userinfo", "http://a@b@c/", true),
            ("comma_host_list", "mongodb://a:1,b:2/", true),
            ("extra_colons_lenient", "http://a:1:2/", true),
            ("escaped_non_ascii_host", "http://%c3%a9/", true),
            ("no_scheme", "somewhere.com", false),
            ("empty", "", false),
            ("leading_colon", ":foo", false),
            ("ipv4_literal", "http://[1.2.3.4]/", false),
            ("unescaped_zone", "http://[fe80::1%en0]/", false),
            ("space_in_host", "http://a b/", false),
            ("escaped_ascii_host", "http://%41/", false),
            ("bad_port", "http://h:x/", false),
            ("bad_escape", "http://h/%zz", false),
            ("control_char", "/a\u{7f}", false),
            ("bracket_after_start", "http://x[::1]/", false),
        ],
    );
}
