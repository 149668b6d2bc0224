//! String and number formats (`format:`) exactly as kube-apiserver checks them for CRDs.
//!
//! Upstream: apiextensions-apiserver `pkg/apiserver/validation/formats.go` (which formats
//! are kept; any other format is stripped, i.e. never checked) and kube-openapi
//! `pkg/validation/strfmt` (how each kept format judges a string). Format names are
//! normalized by removing every `-` (`date-time` is `datetime`); names are case-sensitive.
//! A string format is only checked when the schema type is `string` or empty and the
//! value is a string; number formats only on numbers of the matching type (see
//! [`is_valid_number`]).
//!
//! # Layout
//! - this file: dispatch, the regex and checksum formats, number ranges
//! - `net`: ipv4, ipv6, cidr, mac, uri (Go's `net`, `net/netip`, `net/url` rules)
//! - `email`: Go's `net/mail.ParseAddress`
//! - `time`: date, date-time, duration

mod email;
mod net;
mod time;

use std::sync::OnceLock;

use regex::Regex;
use serde_json::Number;

/// A regex compiled on first use. A pattern that fails to compile matches nothing; the
/// table tests exercise every pattern, so that cannot go unnoticed.
struct Rx {
    pattern: &'static str,
    compiled: OnceLock<Option<Regex>>,
}

impl Rx {
    const fn new(pattern: &'static str) -> Self {
        Rx {
            pattern,
            compiled: OnceLock::new(),
        }
    }

    fn get(&self) -> Option<&Regex> {
        self.compiled
            .get_or_init(|| Regex::new(self.pattern).ok())
            .as_ref()
    }

    fn is_match(&self, text: &str) -> bool {
        self.get().is_some_and(|re| re.is_match(text))
    }
}

// Go's `\d` and `\s` are ASCII-only; Rust's are Unicode, so the classes are spelled out.
static UUID: Rx =
    Rx::new(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$");
static UUID3: Rx =
    Rx::new(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$");
static UUID4: Rx =
    Rx::new(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$");
static UUID5: Rx =
    Rx::new(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$");
static CREDIT_CARD: Rx = Rx::new(
    r"^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35[0-9]{3})[0-9]{11})$",
);
static ISBN10: Rx = Rx::new(r"^(?:[0-9]{9}X|[0-9]{10})$");
static ISBN13: Rx = Rx::new(r"^(?:[0-9]{13})$");
static HEX_COLOR: Rx = Rx::new(r"^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$");
static RGB_COLOR: Rx = Rx::new(
    r"^rgb\([\t\n\f\r ]*(0|[1-9][0-9]?|1[0-9][0-9]?|2[0-4][0-9]|25[0-5])[\t\n\f\r ]*,[\t\n\f\r ]*(0|[1-9][0-9]?|1[0-9][0-9]?|2[0-4][0-9]|25[0-5])[\t\n\f\r ]*,[\t\n\f\r ]*(0|[1-9][0-9]?|1[0-9][0-9]?|2[0-4][0-9]|25[0-5])[\t\n\f\r ]*\)$",
);
static BASE64: Rx =
    Rx::new(r"^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$");
static SSN: Rx = Rx::new(r"^[0-9]{3}[- ]?[0-9]{2}[- ]?[0-9]{4}$");
static SHORT_NAME: Rx = Rx::new(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$");
static LONG_NAME: Rx =
    Rx::new(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$");
/// A letter or symbol, the non-ASCII part of kube-openapi's hostname label characters.
static LETTER_OR_SYMBOL: Rx = Rx::new(r"^[\p{L}\p{S}]$");
static LETTER: Rx = Rx::new(r"^\p{L}$");

/// Whether kube checks `format` on a value of schema type `type_` (`""` when the type is
/// absent or not a single type); false means kube strips the format (and warns about it
/// at CRD create). Mirrors `GetUnrecognizedFormats`.
pub fn is_recognized(type_: &str, format: &str) -> bool {
    match type_ {
        "" | "string" => STRING_FORMATS.contains(&format.replace('-', "").as_str()),
        "integer" => matches!(format, "int32" | "int64"),
        "number" => matches!(format, "float" | "double"),
        _ => false,
    }
}

/// Normalized names of the string formats kube validates: the list of kube 1.0 plus
/// `k8s-short-name` and `k8s-long-name`, which kube checks from compatibility version
/// 1.34 (binary 1.35+, the reference server's behaviour).
const STRING_FORMATS: &[&str] = &[
    "bsonobjectid",
    "uri",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "cidr",
    "mac",
    "uuid",
    "uuid3",
    "uuid4",
    "uuid5",
    "isbn",
    "isbn10",
    "isbn13",
    "creditcard",
    "ssn",
    "hexcolor",
    "rgbcolor",
    "byte",
    "password",
    "date",
    "duration",
    "datetime",
    "k8sshortname",
    "k8slongname",
];

/// Whether the string `value` satisfies `format` as kube-openapi's `strfmt.Default`
/// judges it. Formats kube does not check (including unknown ones) accept everything.
pub fn is_valid(format: &str, value: &str) -> bool {
    match format.replace('-', "").as_str() {
        "bsonobjectid" => value.len() == 24 && value.bytes().all(|b| b.is_ascii_hexdigit()),
        "uri" => net::is_request_uri(value),
        "email" => email::is_address(value),
        "hostname" => is_hostname(value),
        "ipv4" => net::is_ipv4(value),
        "ipv6" => net::is_ipv6(value),
        "cidr" => net::is_cidr(value),
        "mac" => net::is_mac(value),
        "uuid" => UUID.is_match(value),
        "uuid3" => UUID3.is_match(value),
        "uuid4" => UUID4.is_match(value),
        "uuid5" => UUID5.is_match(value),
        "isbn" => is_isbn10(value) || is_isbn13(value),
        "isbn10" => is_isbn10(value),
        "isbn13" => is_isbn13(value),
        "creditcard" => is_credit_card(value),
        "ssn" => value.len() == 11 && SSN.is_match(value),
        "hexcolor" => HEX_COLOR.is_match(value),
        "rgbcolor" => RGB_COLOR.is_match(value),
        "byte" => BASE64.is_match(value),
        "date" => time::is_date(value),
        "duration" => time::is_duration(value),
        "datetime" => time::is_date_time(value),
        "k8sshortname" => value.len() <= 63 && SHORT_NAME.is_match(value),
        "k8slongname" => value.len() <= 253 && LONG_NAME.is_match(value),
        _ => true,
    }
}

/// Whether a number fits the range kube-openapi enforces for a numeric schema of type
/// `type_` and `format` (kube 1.36+; earlier kube never checks number formats).
///
/// `integer` values must print as an int64 (`int32` narrows that); `number` values with
/// `float` must not overflow float32; anything else passes. The number is judged by its
/// Go text (`strconv.FormatFloat(v, 'f', -1, 64)` for floats), so `1.0` is a fine
/// integer and `1.5` or a `u64` above `i64::MAX` (a float64 in Go) is not. The same
/// check applies to `maximum`, `minimum` and `multipleOf` of such a schema.
pub fn is_valid_number(type_: &str, format: &str, value: &Number) -> bool {
    match (type_, format) {
        ("integer", "int32") => go_integer(value).is_some_and(|i| i32::try_from(i).is_ok()),
        ("integer", _) => go_integer(value).is_some(),
        ("number", "float") => value.as_f64().is_some_and(|f| {
            f.is_finite() && f.to_string().parse::<f32>().is_ok_and(f32::is_finite)
        }),
        _ => true,
    }
}

/// kube-openapi's message for a number outside its format's range; `what` is `Checked`
/// for the value itself or `Maximum boundary`, `Minimum boundary`, `MultipleOf`.
/// kube reports it as `field.Invalid(<status or nil path>, "", message)`.
pub fn number_range_message(what: &str, type_: &str, format: &str, path: &str) -> String {
    let checked = match (type_, format) {
        ("integer", "int32" | "int64") | ("number", "float" | "double") => format,
        _ => "",
    };
    if checked.is_empty() {
        format!("{what} value must be of type {type_} (default format) in {path}")
    } else {
        format!("{what} value must be of type {type_} with format {checked} in {path}")
    }
}

/// The value as Go's `strconv.ParseInt(text, 10, 64)` reads its decoded form: an int64
/// as is, anything else (a float64 in Go) by its shortest plain text, which Rust's float
/// `Display` writes the same way (`1`, `1.5`, `9223372036854776000`).
fn go_integer(value: &Number) -> Option<i64> {
    value
        .as_i64()
        .or_else(|| value.as_f64()?.to_string().parse().ok())
}

/// RFC 1034 host names as kube-openapi's `IsHostname` (its regex, spelled out): either
/// one label (a character, then an optional `-` and up to 62 characters) or dotted labels
/// ending in a top-level domain of 2 to 63 letters; at most 255 bytes, labels at most 63.
fn is_hostname(value: &str) -> bool {
    if value.len() > 255 || value.split('.').any(|label| label.len() > 63) {
        return false;
    }
    let label_char = |c: char| {
        c.is_ascii_alphanumeric() || LETTER_OR_SYMBOL.is_match(c.encode_utf8(&mut [0; 4]))
    };
    let Some((labels, tld)) = value.rsplit_once('.') else {
        let mut chars = value.chars();
        let Some(first) = chars.next() else {
            return false;
        };
        let rest = chars.as_str();
        let rest = rest.strip_prefix('-').unwrap_or(rest);
        return label_char(first) && rest.chars().count() <= 62 && rest.chars().all(label_char);
    };
    let tld_len = tld.chars().count();
    let tld_ok = (2..=63).contains(&tld_len)
        && tld
            .chars()
            .all(|c| c.is_ascii_alphabetic() || LETTER.is_match(c.encode_utf8(&mut [0; 4])));
    tld_ok
        && labels.split('.').all(|label| {
            let chars: Vec<char> = label.chars().collect();
            match chars.as_slice() {
                [one] => label_char(*one),
                [first, middle @ .., last] => {
                    label_char(*first)
                        && label_char(*last)
                        && middle.len() <= 61
                        && middle.iter().all(|c| *c == '-' || label_char(*c))
                }
                [] => false,
            }
        })
}

/// Whitespace (Go's ASCII `\s`) and dashes are ignored, then ten digits (the last may be
/// `X`) with a mod-11 checksum.
fn is_isbn10(value: &str) -> bool {
    let digits = isbn_digits(value);
    if !ISBN10.is_match(&digits) {
        return false;
    }
    let sum: u32 = digits
        .bytes()
        .enumerate()
        .map(|(i, b)| {
            let digit = if b == b'X' { 10 } else { u32::from(b - b'0') };
            (i as u32 + 1) * digit
        })
        .sum();
    sum.is_multiple_of(11)
}

/// Thirteen digits after removing whitespace and dashes, with the EAN-13 check digit.
fn is_isbn13(value: &str) -> bool {
    let digits = isbn_digits(value);
    if !ISBN13.is_match(&digits) {
        return false;
    }
    let bytes = digits.as_bytes();
    let sum: u32 = bytes[..12]
        .iter()
        .enumerate()
        .map(|(i, b)| if i % 2 == 0 { 1 } else { 3 } * u32::from(b - b'0'))
        .sum();
    u32::from(bytes[12] - b'0') == (10 - sum % 10) % 10
}

fn isbn_digits(value: &str) -> String {
    value
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\x0c' | '\r' | ' ' | '-'))
        .collect()
}

/// Non-digits are dropped, then a known issuer pattern and the Luhn checksum.
fn is_credit_card(value: &str) -> bool {
    let digits: String = value.chars().filter(char::is_ascii_digit).collect();
    if !CREDIT_CARD.is_match(&digits) {
        return false;
    }
    let sum: u32 = digits
        .bytes()
        .rev()
        .enumerate()
        .map(|(i, b)| {
            let digit = u32::from(b - b'0');
            match (i % 2 == 1, digit * 2) {
                (true, doubled) if doubled >= 10 => doubled % 10 + 1,
                (true, doubled) => doubled,
                (false, _) => digit,
            }
        })
        .sum();
    sum.is_multiple_of(10)
}

#[cfg(test)]
mod tests;
