//! Table tests for the format dispatch, the regex/checksum formats and number ranges.
//! Values come from kube-openapi's strfmt and govalidator tests; every expectation was
//! confirmed against kube-openapi's `strfmt.Default.Validates`.

use serde_json::Number;

use super::*;

/// One case: name, value, whether kube accepts it.
pub(super) type Case<'a> = (&'a str, &'a str, bool);

/// Runs a table against `format`, reporting every failing case by name.
pub(super) fn check_table(format: &str, cases: &[Case]) {
    let failures: Vec<String> = cases
        .iter()
        .filter(|(_, value, want)| is_valid(format, value) != *want)
        .map(|(name, value, want)| format!("{name}: {value:?} should be {want}"))
        .collect();
    assert!(failures.is_empty(), "{format}: {failures:#?}");
}

#[test]
fn bsonobjectid_hex_of_twelve_bytes_only() {
    check_table(
        "bsonobjectid",
        &[
            ("lowercase", "507f1f77bcf86cd799439011", true),
            ("uppercase", "507F1F77BCF86CD799439011", true),
            ("short", "507f1f77bcf86cd79943901", false),
            ("long", "507f1f77bcf86cd7994390111", false),
            ("not_hex", "g07f1f77bcf86cd799439011", false),
            ("empty", "", false),
        ],
    );
}

#[test]
fn uuid_variants_check_version_and_variant_nibbles() {
    let any = "a8098c1a-f86e-11da-bd1a-00112444be1e";
    check_table(
        "uuid",
        &[
            ("v1", any, true),
            ("uppercase", "A8098C1A-F86E-11DA-BD1A-00112444BE1E", true),
            ("no_dashes", "a8098c1af86e11dabd1a00112444be1e", true),
            ("not_a_uuid", "not-a-uuid", false),
            ("short", "a8098c1a-f86e-11da-bd1a-00112444be1", false),
        ],
    );
    check_table(
        "uuid3",
        &[
            ("v3", "a3bb189e-8bf9-3888-9912-ace4e6543002", true),
            ("v4_digit", "a3bb189e-8bf9-4888-9912-ace4e6543002", false),
            ("not_a_uuid", "not-a-uuid", false),
        ],
    );
    check_table(
        "uuid4",
        &[
            ("v4", "f47ac10b-58cc-4372-a567-0e02b2c3d479", true),
            ("bad_variant", "f47ac10b-58cc-4372-c567-0e02b2c3d479", false),
            ("v1", any, false),
        ],
    );
    check_table(
        "uuid5",
        &[
            ("v5", "886313e1-3b8a-5372-9b90-0c9aee199e5d", true),
            ("bad_variant", "886313e1-3b8a-5372-cb90-0c9aee199e5d", false),
        ],
    );
}

#[test]
fn isbn_checksums_after_dropping_spaces_and_dashes() {
    check_table(
        "isbn10",
        &[
            ("plain", "0321751043", true),
            ("x_check_digit", "080442957X", true),
            ("lowercase_x", "080442957x", false),
            ("spaced", "0 8044\t2957 X", true),
            ("bad_checksum", "836217463", false),
        ],
    );
    check_table(
        "isbn13",
        &[
            ("dashed", "978-0321751041", true),
            ("newline", "978\n0321751041", true),
            ("bad_checksum", "978-0321751042", false),
        ],
    );
    check_table(
        "isbn",
        &[
            ("isbn10", "0-8044-2957-X", true),
            ("isbn13", "978 0321751041", true),
            ("neither", "9780321751042", false),
        ],
    );
}

#[test]
fn creditcard_ignores_non_digits_then_luhn() {
    check_table(
        "creditcard",
        &[
            ("visa_dashed", "4111-1111-1111-1111", true),
            ("visa_letters_mixed_in", "a4111b1111c1111d1111", true),
            ("amex", "378282246310005", true),
            ("discover", "6011111111111117", true),
            ("diners", "30569309025904", true),
            ("bad_luhn", "4111111111111112", false),
            ("unknown_issuer", "9999-9999-9999-999", false),
            ("fullwidth_digit_dropped", "４111111111111111", false),
        ],
    );
}

#[test]
fn ssn_hexcolor_rgbcolor_byte_follow_govalidator() {
    check_table(
        "ssn",
        &[
            ("dashed", "111-11-1111", true),
            ("spaced", "999 99 9999", true),
            ("short", "999 99 999", false),
            ("bare_digits_wrong_length", "111111111", false),
            ("mixed_separators", "111-11 1111", true),
        ],
    );
    check_table(
        "hexcolor",
        &[
            ("six", "#FFFFFF", true),
            ("three_no_hash", "fff", true),
            ("four", "#ffff", false),
            ("bad_digit", "#fffffffz", false),
        ],
    );
    check_table(
        "rgbcolor",
        &[
            ("white", "rgb(255,255,255)", true),
            ("spaces", "rgb( 1 , 2 , 3 )", true),
            ("ascii_whitespace", "rgb(\t1,2,3\n)", true),
            ("over_255", "rgb(300,0,0)", false),
            ("leading_zero", "rgb(01,2,3)", false),
            ("uppercase", "RGB(1,2,3)", false),
        ],
    );
    check_table(
        "byte",
        &[
            ("padded", "VGhpcyBpcyBhIGJ5dGU=", true),
            ("missing_pad", "ZWxpemFiZXRocG9zZXk", false),
            ("empty", "", false),
            ("url_alphabet", "_-ab", false),
            ("slash_plus", "ab+/", true),
        ],
    );
    check_table("password", &[("anything", "", true)]);
}

#[test]
fn hostname_follows_kube_openapi_pattern() {
    let long = "a".repeat(64);
    let long_label = format!("x.y.{long}");
    let too_long = "a".repeat(256);
    check_table(
        "hostname",
        &[
            ("dotted", "somewhere.com", true),
            ("digit_start", "888.com", true),
            ("punycode", "xn--bcher-kva.example.com", true),
            ("symbols", "☁→❄→☃→☀→☺→☂→☹→✝.ws", true),
            ("unicode_tld", "www.example.ôlà", true),
            ("single_label_symbol", "ex$ample", true),
            ("single_label_dash", "x-y", true),
            ("single_label_dash_after_first", "a-bc", true),
            ("single_label_dash_later", "ab-c", false),
            ("trailing_dash_single", "xyz-", false),
            ("leading_dash", "-www.example.org", false),
            ("label_trailing_dash", "www.example-.org", false),
            ("underscore", "www.example_underscored.org", false),
            ("one_letter_tld", "a.b.c.d", false),
            ("digit_tld", "1.1.1.1", false),
            ("trailing_dot", "x.", false),
            ("space", "www.ex ample.org", false),
            ("label_over_63", &long_label, false),
            ("over_255", &too_long, false),
            ("empty", "", false),
        ],
    );
}

#[test]
fn k8s_names_are_dns_labels_and_subdomains() {
    check_table(
        "k8s-short-name",
        &[
            ("label", "a-b", true),
            ("uppercase", "Abc", false),
            ("dot", "a.b", false),
            ("trailing_dash", "ab-", false),
            ("too_long", &"a".repeat(64), false),
        ],
    );
    check_table(
        "k8s-long-name",
        &[
            ("subdomain", "a.b.c", true),
            ("long_label", &"a".repeat(100), true),
            ("empty_label", "a..b", false),
            ("too_long", &"a".repeat(254), false),
        ],
    );
}

#[test]
fn format_names_normalize_dashes_and_unknown_pass() {
    let cases = [
        ("dashes_removed", "u-u-i-d", "not-a-uuid", false),
        ("date_time_alias", "datetime", "nope", false),
        ("case_sensitive_unknown", "UUID", "not-a-uuid", true),
        ("unknown", "color", "anything", true),
        ("empty", "", "anything", true),
    ];
    for (name, format, value, want) in cases {
        assert_eq!(is_valid(format, value), want, "{name}");
    }
}

#[test]
fn is_recognized_mirrors_strip_rules() {
    let cases = [
        ("string_uuid", "string", "uuid", true),
        ("untyped_date_time", "", "date-time", true),
        ("string_int32", "string", "int32", false),
        ("integer_int32", "integer", "int32", true),
        ("integer_uuid", "integer", "uuid", false),
        ("number_double", "number", "double", true),
        ("number_int64", "number", "int64", false),
        ("boolean_any", "boolean", "byte", false),
    ];
    for (name, type_, format, want) in cases {
        assert_eq!(is_recognized(type_, format), want, "{name}");
    }
}

#[test]
fn number_ranges_match_kube_openapi() {
    let cases = [
        ("int32_max", "integer", "int32", "2147483647", true),
        ("int32_over", "integer", "int32", "2147483648", false),
        ("int32_under", "integer", "int32", "-2147483649", false),
        ("int32_integral_float", "integer", "int32", "1.0", true),
        ("int32_fraction", "integer", "int32", "1.5", false),
        ("int64_max", "integer", "int64", "9223372036854775807", true),
        (
            "int64_u64",
            "integer",
            "int64",
            "9223372036854775808",
            false,
        ),
        (
            "int64_min_as_float",
            "integer",
            "int64",
            "-9.2233720368547758e18",
            false,
        ),
        ("default_integer_is_int64", "integer", "", "1e30", false),
        (
            "float_max",
            "number",
            "float",
            "3.4028235677973366e38",
            true,
        ),
        ("float_over", "number", "float", "3.40282357e38", false),
        ("float_negative_over", "number", "float", "-3.5e38", false),
        ("float_underflow_ok", "number", "float", "1e-50", true),
        ("double_unchecked", "number", "double", "1e308", true),
        ("number_default_unchecked", "number", "", "1e308", true),
        ("int32_on_number_ignored", "number", "int32", "1e30", true),
    ];
    for (name, type_, format, text, want) in cases {
        let number: Number = serde_json::from_str(text).expect("number");
        assert_eq!(is_valid_number(type_, format, &number), want, "{name}");
    }
}

#[test]
fn number_range_message_matches_kube_openapi() {
    assert_eq!(
        number_range_message("Checked", "integer", "int32", "spec.replicas"),
        "Checked value must be of type integer with format int32 in spec.replicas"
    );
    assert_eq!(
        number_range_message("Maximum boundary", "integer", "", "a[1]"),
        "Maximum boundary value must be of type integer (default format) in a[1]"
    );
}
