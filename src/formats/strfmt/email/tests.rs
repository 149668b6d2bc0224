//! Table tests for `email`; values from kube-openapi and Go's net/mail tests, each
//! confirmed against kube-openapi's `strfmt.Default`.

use super::super::tests::check_table;

#[test]
fn email_accepts_what_go_parse_address_accepts() {
    check_table(
        "email",
        &[
            ("plain", "blah@gmail.com", true),
            ("long_tld", "test@d.verylongtoplevel", true),
            ("plus_tag", "email+tag@gmail.com", true),
            ("quoted_space", "\" \"@example.com", true),
            ("quoted_escaped_at", "\"Abc\\@def\"@example.com", true),
            ("all_atext", "!#$%&'*+-/=?^_`{}|~@example.com", true),
            ("unicode_domain", "postmaster@☁→❄→☃→☀→☺→☂→☹→✝.ws", true),
            ("no_dot_domain", "root@localhost", true),
            ("display_name", "Barry Gibbs <bg@example.com>", true),
            ("angle_only", "<bg@example.com>", true),
            ("comment_name", "a@b (Comment)", true),
            ("quoted_name", "\"quoted name\" <a@b>", true),
            ("encoded_name", "=?utf-8?b?SGk=?= <a@b>", true),
            ("group_of_one", "G: a@b;", true),
            ("ipv4_literal", "a@[1.2.3.4]", true),
            ("ipv6_literal", "a@[IPv6:::1]", true),
            ("surrounding_space", " a@b ", true),
            ("two_ats", "somebody@somewhere@com", false),
            ("empty_group", "G:;", false),
            ("group_of_two", "G: a@b, c@d;", false),
            (
                "unsupported_charset_comment",
                "a@b (=?x-unknown?q?abc?=)",
                false,
            ),
            (
                "unsupported_charset_name",
                "=?x-unknown?q?abc?= <a@b>",
                false,
            ),
            ("ipv6_literal_without_tag", "a@[::1]", false),
            ("literal_leading_zero", "a@[1.2.3.04]", false),
            ("leading_dot", ".a@b", false),
            ("double_dot", "a..b@c", false),
            ("empty_quoted", "\"\"@b", false),
            ("space_before_at", "a @b", false),
            ("unclosed_comment", "a@b (unclosed", false),
            ("no_at", "a.b", false),
            ("unclosed_angle", "<a@b", false),
        ],
    );
}
