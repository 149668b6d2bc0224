//! Go's `strconv.Quote` (`%q` of a string, and `%#v`).

use std::fmt::Write as _;
use std::sync::LazyLock;

use regex::Regex;

/// Go's `unicode.IsPrint` outside ASCII: letters, marks, numbers, punctuation and symbols.
static PRINTABLE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^[\p{L}\p{M}\p{N}\p{P}\p{S}]$").ok());

/// Whether Go's `strconv.IsPrint` holds: the categories above plus the ASCII space, so
/// controls, other spaces, format characters, private use and unassigned code points fail.
pub fn is_print(c: char) -> bool {
    if c.is_ascii() {
        return (' '..='~').contains(&c);
    }
    match PRINTABLE.as_ref() {
        Some(re) => re.is_match(c.encode_utf8(&mut [0; 4])),
        None => !c.is_control() && !c.is_whitespace(),
    }
}

/// Go's `strconv.Quote`: double-quoted, `"` and `\` backslashed, printable characters as
/// they are, the rest as `\a`..`\v`, `\xNN` (other ASCII controls), `\uNNNN` or `\UNNNNNNNN`.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if is_print(c) => out.push(c),
            '\x07' => out.push_str("\\a"),
            '\x08' => out.push_str("\\b"),
            '\x0c' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\x0b' => out.push_str("\\v"),
            c if c < ' ' || c == '\x7f' => {
                let _ = write!(out, "\\x{:02x}", u32::from(c));
            }
            c if u32::from(c) < 0x10000 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => {
                let _ = write!(out, "\\U{:08x}", u32::from(c));
            }
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quote_matches_strconv_quote() {
        let cases = [
            ("plain", "abc", r#""abc""#),
            ("path", "a.b[0]", r#""a.b[0]""#),
            ("quote_and_backslash", r#"a"b\c"#, r#""a\"b\\c""#),
            (
                "named_escapes",
                "\n\t\r\u{7}\u{8}\u{c}\u{b}",
                r#""\n\t\r\a\b\f\v""#,
            ),
            (
                "ascii_controls_hex",
                "\u{0}\u{1}\u{1b}\u{1f}\u{7f}",
                r#""\x00\x01\x1b\x1f\x7f""#,
            ),
            ("unicode_printable", "äö€é", "\"äö€é\""),
            ("combining_mark_kept", "e\u{301}", "\"e\u{301}\""),
            ("emoji_kept", "😀", "\"😀\""),
            ("non_breaking_space", "a\u{a0}b", r#""a\u00a0b""#),
            ("mixed", "é\u{1}\u{a0}\\", r#""é\x01\u00a0\\""#),
            ("tab_escape_and_accent", "x\ty\u{1b}é", r#""x\ty\x1bé""#),
            ("c1_control", "\u{85}", r#""\u0085""#),
            ("line_separator", "\u{2028}", r#""\u2028""#),
            ("zero_width_space", "\u{200b}", r#""\u200b""#),
            ("soft_hyphen", "\u{ad}", r#""\u00ad""#),
            ("private_use", "\u{e000}", r#""\ue000""#),
            ("unassigned", "\u{378}", r#""\u0378""#),
            ("astral_format", "\u{e0001}", r#""\U000e0001""#),
            ("html_chars_raw", "<>&", r#""<>&""#),
        ];
        for (name, input, want) in cases {
            assert_eq!(quote(input), want, "{name}");
        }
    }
}
