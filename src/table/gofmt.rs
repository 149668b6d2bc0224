//! Go-compatible text for printer cells: `fmt` `%v` floats, `%q` strings, `encoding/json` output.

use serde_json::Value;

/// A float as Go's `fmt.Sprint(f)` (`%v` = `%g` with the shortest digits): exponent form when
/// the decimal exponent is below -4 or at least 6 (`1e+06`, `1.5e-05`), else plain (`123456`).
pub fn format_float_v(value: f64) -> String {
    let (mantissa, exponent) = shortest_exponent_form(value);
    if !(-4..6).contains(&exponent) {
        let sign = if exponent < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exponent.unsigned_abs())
    } else {
        format!("{value}")
    }
}

/// A float as Go's `encoding/json` writes a `float64`: plain unless `|f| < 1e-6` or `>= 1e21`,
/// then exponent form with Go's `e-7` / `e+21` spelling.
pub fn format_float_json(value: f64) -> String {
    let abs = value.abs();
    if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
        let (mantissa, exponent) = shortest_exponent_form(value);
        if exponent < 0 {
            format!("{mantissa}e-{}", exponent.unsigned_abs())
        } else {
            format!("{mantissa}e+{exponent:02}")
        }
    } else {
        format!("{value}")
    }
}

/// Splits Rust's shortest round-trip `{:e}` rendering (`-1.25e-7`) into mantissa and exponent.
fn shortest_exponent_form(value: f64) -> (String, i32) {
    let text = format!("{value:e}");
    match text.split_once('e') {
        Some((mantissa, exponent)) => (mantissa.to_owned(), exponent.parse().unwrap_or(0)),
        None => (text, 0),
    }
}

/// Go's `json.Marshal` of a decoded JSON value: map keys sorted, HTML-safe string escaping,
/// integers as integers, other numbers as Go's float64.
pub fn marshal_json(value: &Value) -> String {
    let mut out = String::new();
    write_json(value, &mut out);
    out
}

fn write_json(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => match n.as_i64() {
            Some(i) => out.push_str(&i.to_string()),
            None => out.push_str(&format_float_json(n.as_f64().unwrap_or(0.0))),
        },
        Value::String(s) => write_json_string(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (key, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json_string(key, out);
                out.push(':');
                write_json(item, out);
            }
            out.push('}');
        }
    }
}

/// `encoding/json` string escaping with `SetEscapeHTML(true)` (the `json.Marshal` default).
fn write_json_string(text: &str, out: &mut String) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                out.push_str(&format!("\\u{:04x}", u32::from(c)));
            }
            c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Go's `%q` of a string: double-quoted with Go escapes for quotes, backslashes and ASCII
/// control characters (other characters are kept as they are).
pub fn quote(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            c if u32::from(c) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\x{:02x}", u32::from(c)));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn format_float_v_matches_go_fmt() {
        let cases: &[(f64, &str)] = &[
            (0.0, "0"),
            (-0.0, "-0"),
            (1.5, "1.5"),
            (2.0, "2"),
            (123456.0, "123456"),
            (999999.0, "999999"),
            (1e6, "1e+06"),
            (1234567.0, "1.234567e+06"),
            (1e21, "1e+21"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (-1.25e-7, "-1.25e-07"),
            (1e100, "1e+100"),
        ];
        for (value, want) in cases {
            assert_eq!(format_float_v(*value), *want, "value {value}");
        }
    }

    #[test]
    fn format_float_json_matches_encoding_json() {
        let cases: &[(f64, &str)] = &[
            (2.0, "2"),
            (1e6, "1000000"),
            (1e20, "100000000000000000000"),
            (1e21, "1e+21"),
            (0.000001, "0.000001"),
            (1.5e-7, "1.5e-7"),
            (1e-10, "1e-10"),
        ];
        for (value, want) in cases {
            assert_eq!(format_float_json(*value), *want, "value {value}");
        }
    }

    #[test]
    fn marshal_json_sorted_and_html_escaped() {
        let value = json!({"b": [1, 2.5, true, null], "a": "<x&y>\n\u{1}", "c": {"z": 1.0}});
        assert_eq!(
            marshal_json(&value),
            r#"{"a":"\u003cx\u0026y\u003e\n\u0001","b":[1,2.5,true,null],"c":{"z":1}}"#
        );
    }

    #[test]
    fn quote_escapes_like_go() {
        assert_eq!(quote(r#"a"b\c"#), r#""a\"b\\c""#);
        assert_eq!(quote("x\ty\u{1b}é"), "\"x\\ty\\x1bé\"");
    }
}
