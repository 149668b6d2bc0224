//! Go's `encoding/json` output for decoded JSON: map keys sorted, HTML-safe string escapes,
//! numbers as the Go value they decoded into.

use std::fmt::Write as _;

use serde_json::Value;

use super::{Num, float_json};

/// How the Go side decoded the numbers it marshals again.
#[derive(Clone, Copy)]
enum Numbers {
    /// apimachinery's decoder: int64 when the number parses as one, else float64.
    Int64OrFloat64,
    /// `encoding/json` into `interface{}`: every number a float64.
    Float64,
}

/// Go's `json.Marshal` of a value apimachinery decoded (`1`, `1.5`, `1e+21`).
pub fn marshal(value: &Value) -> String {
    let mut out = String::new();
    write_value(value, Numbers::Int64OrFloat64, &mut out);
    out
}

/// Go's `json.Marshal` of a value `encoding/json` decoded into `interface{}`: every number
/// went through float64, so integers beyond 2^53 lose digits (`18446744073709552000`).
pub fn marshal_float64(value: &Value) -> String {
    let mut out = String::new();
    write_value(value, Numbers::Float64, &mut out);
    out
}

/// Go's `encoding/json` text of a string (`"a\u003cb"`).
pub fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    write_string(s, &mut out);
    out
}

fn write_value(value: &Value, numbers: Numbers, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => match (numbers, Num::of(n)) {
            (Numbers::Int64OrFloat64, Num::Int(i)) => out.push_str(&i.to_string()),
            (_, num) => out.push_str(&float_json(num.as_f64())),
        },
        Value::String(s) => write_string(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(item, numbers, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut entries: Vec<_> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (key, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(key, out);
                out.push(':');
                write_value(item, numbers, out);
            }
            out.push('}');
        }
    }
}

/// A JSON string as Go escapes it with `SetEscapeHTML(true)` (the `json.Marshal` default):
/// `\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`, other controls and `<`, `>`, `&`, U+2028,
/// U+2029 as `\u00XX`; DEL and everything else as is.
fn write_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\x08' => out.push_str("\\b"),
            '\x0c' => out.push_str("\\f"),
            c if c < ' ' || matches!(c, '<' | '>' | '&' | '\u{2028}' | '\u{2029}') => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Value {
        serde_json::from_str(text).expect(text)
    }

    #[test]
    fn marshal_matches_encoding_json() {
        let cases = [
            (
                "sorted_keys",
                r#"{"b":1,"a":[true,null]}"#,
                r#"{"a":[true,null],"b":1}"#,
            ),
            ("integral_float", "1.0", "1"),
            ("small_float", "1.5e-7", "1.5e-7"),
            ("big_float", "1e21", "1e+21"),
            ("html_escaped", r#""<a&b>""#, r#""\u003ca\u0026b\u003e""#),
            ("control", r#""a\u0001\n""#, r#""a\u0001\n""#),
            (
                "mixed_array",
                r#"[1,"a",null,true,1.5,1e21,1e-7,3.0,{"b":1,"a":[]}]"#,
                r#"[1,"a",null,true,1.5,1e+21,1e-7,3,{"a":[],"b":1}]"#,
            ),
            (
                "nested_sorted_html_escaped",
                r#"{"b":[1,2.5,true,null],"a":"<x&y>\n\u0001","c":{"z":1.0}}"#,
                r#"{"a":"\u003cx\u0026y\u003e\n\u0001","b":[1,2.5,true,null],"c":{"z":1}}"#,
            ),
            (
                "separators_and_del",
                r#"{"z":1,"a":"<x>","m":{"\u2028":"\u0007\b\n\u007f"}}"#,
                "{\"a\":\"\\u003cx\\u003e\",\"m\":{\"\\u2028\":\"\\u0007\\b\\n\u{7f}\"},\"z\":1}",
            ),
            (
                "float_forms",
                "[1e20, 0.000001, 9.99999e-7, 18446744073709551615, 5e-324]",
                "[100000000000000000000,0.000001,9.99999e-7,18446744073709552000,5e-324]",
            ),
            ("empty_containers", "[[],{}]", "[[],{}]"),
        ];
        for (name, input, want) in cases {
            assert_eq!(marshal(&parse(input)), want, "{name}");
        }
    }

    #[test]
    fn marshal_float64_prints_every_number_as_float64() {
        let cases = [
            ("small_int", "[5,-3,0]", "[5,-3,0]"),
            (
                "int_beyond_2_pow_53",
                "9007199254740993",
                "9007199254740992",
            ),
            ("max_int64", "9223372036854775807", "9223372036854776000"),
            ("int_from_1e21", "1000000000000000000000", "1e+21"),
            ("float", "0.5", "0.5"),
            ("object_sorted", r#"{"b":1,"a":2}"#, r#"{"a":2,"b":1}"#),
        ];
        for (name, input, want) in cases {
            assert_eq!(marshal_float64(&parse(input)), want, "{name}");
        }
    }

    #[test]
    fn json_string_escapes_like_go() {
        let cases = [
            ("html", "a<b>&\"c\"\n", r#""a\u003cb\u003e\u0026\"c\"\n""#),
            ("controls", "\u{1}\u{8}\u{c}\u{1f}", r#""\u0001\b\f\u001f""#),
            ("separators", "\u{2028}\u{2029}", r#""\u2028\u2029""#),
            ("unicode_raw", "é😀\u{7f}", "\"é😀\u{7f}\""),
        ];
        for (name, input, want) in cases {
            assert_eq!(json_string(input), want, "{name}");
        }
    }
}
