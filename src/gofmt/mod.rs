//! Go's text for values, as kube prints them in messages, errors and table cells.
//!
//! # Layout
//!
//! - `quote`: [`quote()`], `strconv.Quote` (`%q`).
//! - `duration`: [`parse_duration`], `time.ParseDuration` with its error texts, and
//!   [`format_duration`], `time.Duration.String`.
//! - `float`: [`float_v`] (`%v`, `strconv` `'g'` shortest) and [`float_json`]
//!   (`encoding/json`), from Go's shortest round-trip digits (ties to even).
//! - `json`: [`marshal`], [`marshal_float64`] and [`json_string`], `json.Marshal` with
//!   sorted keys and HTML-safe escapes.
//! - `num`: [`Num`], a decoded number as Go holds it, and [`f64_to_i64`], Go's `int64(f)`.
//! - `url`: [`parse_url`], `url.Parse` with its error texts.
//! - [`field_value`]: a field error's bad value, combining the above.

mod duration;
mod float;
mod json;
mod num;
mod quote;
mod url;

use serde_json::Value;

pub use duration::{format_duration, parse_duration, parse_duration_nanos};
pub use float::{float_json, float_v};
pub use json::{json_string, marshal, marshal_float64};
pub use num::{Num, f64_to_i64};
pub use quote::{is_print, quote};
pub use url::{Url, parse_url};

/// A bad value as apimachinery's `field.Error.ErrorBody()` prints a value decoded from JSON:
/// int64, float64 and bool with `%v`, strings with `%q`, and null, arrays and objects as
/// `json.Marshal` writes them. JSON integers beyond int64 are float64 in Go.
pub fn field_value(value: &Value) -> String {
    match value {
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => Num::of(n).go(),
        Value::String(s) => quote(s),
        Value::Null | Value::Array(_) | Value::Object(_) => marshal(value),
    }
}

/// `%v` of a value decoded from JSON, as unstructured accessor errors print it: strings
/// bare, `<nil>`, numbers as int64/float64, `[a b]` for arrays, `map[k:v]` (keys sorted)
/// for objects.
pub fn value_v(value: &Value) -> String {
    match value {
        Value::Null => "<nil>".to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => Num::of(n).go(),
        Value::String(s) => s.clone(),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(value_v).collect();
            format!("[{}]", items.join(" "))
        }
        Value::Object(map) => {
            let entries: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{k}:{}", value_v(v)))
                .collect();
            format!("map[{}]", entries.join(" "))
        }
    }
}

/// `%T` of a value decoded from JSON.
pub fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "<nil>",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_i64() => "int64",
        Value::Number(_) => "float64",
        Value::String(_) => "string",
        Value::Array(_) => "[]interface {}",
        Value::Object(_) => "map[string]interface {}",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_v_prints_like_go_percent_v() {
        let cases = [
            ("null", "null", "<nil>", "<nil>"),
            ("string bare", r#""a b""#, "a b", "string"),
            ("float", "1e21", "1e+21", "float64"),
            ("int", "7", "7", "int64"),
            (
                "array",
                r#"[1, "a", null]"#,
                "[1 a <nil>]",
                "[]interface {}",
            ),
            (
                "map sorted",
                r#"{"b": 1, "a": [true]}"#,
                "map[a:[true] b:1]",
                "map[string]interface {}",
            ),
        ];
        for (name, json, want, type_want) in cases {
            let value: Value = serde_json::from_str(json).unwrap();
            assert_eq!(value_v(&value), want, "case {name}");
            assert_eq!(type_name(&value), type_want, "case {name}");
        }
    }

    #[test]
    fn field_value_prints_like_go_error_body() {
        // Expected texts are apimachinery's ErrorBody output for the same JSON.
        let cases = [
            ("int", "-5", "-5"),
            ("integral_float", "1.0", "1"),
            ("fraction", "1.5", "1.5"),
            ("float_below_1e6_plain", "100000.0", "100000"),
            ("float_from_1e6_exponent", "1000000.0", "1e+06"),
            ("float_big", "1e21", "1e+21"),
            ("float_small", "0.00001", "1e-05"),
            ("float_1e_minus_4_plain", "0.0001", "0.0001"),
            ("negative_zero", "-0.0", "-0"),
            (
                "beyond_int64_is_float",
                "18446744073709551615",
                "1.8446744073709552e+19",
            ),
            (
                "tie_rounds_to_even",
                "1629824278314106.25",
                "1.6298242783141062e+15",
            ),
            ("bool", "true", "true"),
            ("null", "null", "null"),
            ("string", r#""abc""#, r#""abc""#),
            (
                "string_go_escapes",
                r#""a\"b\\c\n\t\r\u0007\b\f\u000b\u0000\u001f\u007f""#,
                r#""a\"b\\c\n\t\r\a\b\f\v\x00\x1f\x7f""#,
            ),
            (
                "string_unicode",
                r#""é\u00a0\u2028\u200b😀\u0301\u00ad""#,
                "\"é\\u00a0\\u2028\\u200b😀\u{301}\\u00ad\"",
            ),
            ("string_html_chars_raw", r#""<>&""#, r#""<>&""#),
            (
                "array_as_json",
                r#"[1,"a",null,true,1.5,1e21,1e-7,3.0,{"b":1,"a":[]}]"#,
                r#"[1,"a",null,true,1.5,1e+21,1e-7,3,{"a":[],"b":1}]"#,
            ),
            (
                "object_sorted_html_escaped",
                r#"{"z":1,"a":"<x>","m":{"\u2028":"\u0007\b\n\u007f"}}"#,
                "{\"a\":\"\\u003cx\\u003e\",\"m\":{\"\\u2028\":\"\\u0007\\b\\n\u{7f}\"},\"z\":1}",
            ),
            ("empty_containers", "[[],{}]", "[[],{}]"),
        ];
        for (name, json_text, want) in cases {
            let value: Value = serde_json::from_str(json_text).expect(name);
            assert_eq!(field_value(&value), want, "{name}");
        }
    }
}
