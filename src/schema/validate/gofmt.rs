//! Go's text for decoded JSON values, as kube's messages print them: `%q` for strings,
//! `%v` for float64, `json.Marshal` for compound values, and apimachinery's rendering
//! of a field error's bad value.

use std::fmt::Write as _;

use serde_json::{Number, Value};

/// A decoded JSON number as Go holds it: int64 when it parses as one, else float64.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Num {
    Int(i64),
    Float(f64),
}

impl Num {
    pub(super) fn of(n: &Number) -> Num {
        match n.as_i64() {
            Some(i) => Num::Int(i),
            None => Num::Float(n.as_f64().unwrap_or(f64::NAN)),
        }
    }

    pub(super) fn as_f64(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Float(f) => f,
        }
    }

    /// `%v` of the Go value.
    pub(super) fn go(self) -> String {
        match self {
            Num::Int(i) => i.to_string(),
            Num::Float(f) => go_float(f),
        }
    }
}

/// Go's `int64(f)` on amd64: out-of-range and NaN give the minimum int64.
pub(super) fn go_f64_to_i64(f: f64) -> i64 {
    if f.is_nan() || !(-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&f) {
        i64::MIN
    } else {
        f as i64
    }
}

/// Shortest digits and decimal exponent of a finite non-zero float: `("15", -7)`.
fn digits_exp(f: f64) -> (String, i32) {
    let sci = format!("{:e}", f.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    (mantissa.replace('.', ""), exp.parse().unwrap_or(0))
}

/// `d.ddde±XX` with at least `min_exp_digits` exponent digits.
fn go_exp_form(f: f64, min_exp_digits: usize) -> String {
    let (digits, exp) = digits_exp(f);
    let mut out = String::new();
    if f < 0.0 {
        out.push('-');
    }
    out.push_str(&digits[..1]);
    if digits.len() > 1 {
        out.push('.');
        out.push_str(&digits[1..]);
    }
    let sign = if exp < 0 { '-' } else { '+' };
    let _ = write!(out, "e{sign}{:0min_exp_digits$}", exp.unsigned_abs());
    out
}

fn special(f: f64) -> Option<String> {
    if f.is_nan() {
        Some("NaN".into())
    } else if f.is_infinite() {
        Some(if f > 0.0 { "+Inf" } else { "-Inf" }.into())
    } else if f == 0.0 {
        Some(if f.is_sign_negative() { "-0" } else { "0" }.into())
    } else {
        None
    }
}

/// Go's `%v` for a float64 (`strconv 'g'`, shortest, exponent form from 1e+06 up and
/// below 1e-04): `10`, `1.5`, `1e+06`, `1e-05`.
pub(super) fn go_float(f: f64) -> String {
    if let Some(s) = special(f) {
        return s;
    }
    let (_, exp) = digits_exp(f);
    if !(-4..6).contains(&exp) {
        go_exp_form(f, 2)
    } else {
        f.to_string()
    }
}

/// Go's `json.Marshal` of a float64: plain below 1e21 and from 1e-6, else `1e+21`, `1e-7`.
fn go_json_float(f: f64) -> String {
    if let Some(s) = special(f) {
        return s;
    }
    let abs = f.abs();
    if (1e-6..1e21).contains(&abs) {
        f.to_string()
    } else {
        go_exp_form(f, 1)
    }
}

/// Whether Go's `unicode.IsPrint` holds, closely enough: controls, separators other than
/// the ASCII space, format characters and private use are not printable.
fn is_print(c: char) -> bool {
    if c == ' ' {
        return true;
    }
    if c.is_control() || c.is_whitespace() {
        return false;
    }
    !matches!(u32::from(c),
        0xAD | 0x600..=0x605 | 0x61C | 0x6DD | 0x70F | 0x180E | 0x200B..=0x200F
        | 0x202A..=0x202E | 0x2060..=0x2064 | 0x2066..=0x206F | 0xFEFF | 0xFFF9..=0xFFFB
        | 0xE000..=0xF8FF | 0xF0000..)
}

/// Go's `strconv.Quote` (`%q`).
pub(super) fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if is_print(c) => out.push(c),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            c if c < ' ' || c == '\u{7f}' => {
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

fn go_json_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if c < ' ' || matches!(c, '<' | '>' | '&' | '\u{2028}' | '\u{2029}') => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

fn go_json_into(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => match Num::of(n) {
            Num::Int(i) => out.push_str(&i.to_string()),
            Num::Float(f) => out.push_str(&go_json_float(f)),
        },
        Value::String(s) => go_json_string(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                go_json_into(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                go_json_string(key, out);
                out.push(':');
                go_json_into(&map[key.as_str()], out);
            }
            out.push('}');
        }
    }
}

/// Go's `json.Marshal` of a decoded JSON value (sorted keys, HTML-safe escapes).
pub(super) fn go_json(value: &Value) -> String {
    let mut out = String::new();
    go_json_into(value, &mut out);
    out
}

/// A field error's bad value as apimachinery prints it: numbers and booleans bare,
/// strings quoted, anything else (null, arrays, objects) as JSON.
pub(super) fn bad_value(value: &Value) -> String {
    match value {
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => Num::of(n).go(),
        Value::String(s) => go_quote(s),
        other => go_json(other),
    }
}
