//! Type conversions (`int()`, `uint()`, `double()`, `string()`, `bytes()`, `bool()`,
//! `duration()`, `timestamp()`, `type()`, `dyn()`) with cel-go's range checks and texts.

use std::rc::Rc;

use jiff::{SignedDuration, Timestamp};

use crate::cel::eval::{gotime, ops};
use crate::cel::functions::{Impl, Outcome};
use crate::cel::value::{EvalError, Value};

fn conversion_error<'a>(from: &str, to: &str) -> Outcome<'a> {
    Err(EvalError::new(format!(
        "type conversion error from '{from}' to '{to}'"
    )))
}

fn overflow<'a>(m: &str) -> Outcome<'a> {
    Err(EvalError::new(m))
}

fn to_int<'a>(v: &Value<'a>) -> Outcome<'a> {
    match v {
        Value::Int(i) => Ok(Value::Int(*i)),
        Value::Uint(u) => {
            i64::try_from(*u).map_or_else(|_| overflow("integer overflow"), |i| Ok(Value::Int(i)))
        }
        Value::Double(d) => {
            if d.is_nan() || *d <= -9.223_372_036_854_776e18 || *d >= 9.223_372_036_854_776e18 {
                overflow("integer overflow")
            } else {
                Ok(Value::Int(*d as i64))
            }
        }
        Value::String(s) => s
            .as_str()
            .parse::<i64>()
            .map_or_else(|_| conversion_error("string", "int"), |i| Ok(Value::Int(i))),
        Value::Timestamp(t) => Ok(Value::Int(t.as_second())),
        Value::Duration(d) => {
            gotime::nanos(*d).map_or_else(|| overflow("integer overflow"), |n| Ok(Value::Int(n)))
        }
        other => conversion_error(ops::type_name(other), "int"),
    }
}

fn to_uint<'a>(v: &Value<'a>) -> Outcome<'a> {
    match v {
        Value::Uint(u) => Ok(Value::Uint(*u)),
        Value::Int(i) => u64::try_from(*i).map_or_else(
            |_| overflow("unsigned integer overflow"),
            |u| Ok(Value::Uint(u)),
        ),
        Value::Double(d) => {
            if d.is_nan() || *d < 0.0 || *d >= 1.844_674_407_370_955_2e19 {
                overflow("unsigned integer overflow")
            } else {
                Ok(Value::Uint(*d as u64))
            }
        }
        Value::String(s) if !s.as_str().starts_with('+') => s.as_str().parse::<u64>().map_or_else(
            |_| conversion_error("string", "uint"),
            |u| Ok(Value::Uint(u)),
        ),
        Value::String(_) => conversion_error("string", "uint"),
        other => conversion_error(ops::type_name(other), "uint"),
    }
}

/// Go's `strconv.ParseFloat` spellings of infinities and NaN, then Rust's parser.
/// Go's `strconv.ParseFloat(s, 64)` for decimal input: `inf`/`infinity`/`nan` in any
/// case (a sign only before the infinities), digit-separating underscores, and out of
/// range values refused.
fn parse_float(s: &str) -> Option<f64> {
    let lower = s.to_ascii_lowercase();
    let body = lower.trim_start_matches(['+', '-']);
    if body.len() + 1 < lower.len() {
        return None;
    }
    if matches!(body, "inf" | "infinity") || lower == "nan" {
        return s.parse().ok();
    }
    if let Some(hex) = body.strip_prefix("0x") {
        let negative = lower.starts_with('-');
        return parse_hex_float(hex).map(|d| if negative { -d } else { d });
    }
    if !body.starts_with(|c: char| c.is_ascii_digit() || c == '.') {
        return None;
    }
    let digits = if s.contains('_') {
        if !underscores_separate_digits(body) {
            return None;
        }
        s.replace('_', "")
    } else {
        s.to_string()
    };
    digits.parse().ok().filter(|d: &f64| d.is_finite())
}

/// Go's hexadecimal floats after `0x`: hex digits with an optional point, then a binary
/// exponent (`p-2`), which Go requires; underscores may follow the prefix or a digit.
fn parse_hex_float(s: &str) -> Option<f64> {
    let (mantissa, exponent) = s.split_once('p')?;
    let exponent: i32 = exponent.parse().ok()?;
    let (mut m, mut scale, mut digits) = (0u128, 0i32, 0);
    let mut seen_point = false;
    let mut prev_digit = true;
    let chars: Vec<char> = mantissa.chars().collect();
    for (i, c) in chars.iter().enumerate() {
        match c {
            '_' if prev_digit && chars.get(i + 1).is_some_and(char::is_ascii_hexdigit) => {
                prev_digit = false;
                continue;
            }
            '.' if !seen_point => seen_point = true,
            c if c.is_ascii_hexdigit() => {
                if m >> 120 == 0 {
                    m = m * 16 + u128::from(c.to_digit(16)?);
                    scale -= if seen_point { 4 } else { 0 };
                } else if !seen_point {
                    scale += 4;
                }
                digits += 1;
            }
            _ => return None,
        }
        prev_digit = c.is_ascii_hexdigit();
    }
    if digits == 0 {
        return None;
    }
    let value = (m as f64) * 2f64.powi(exponent.saturating_add(scale));
    value.is_finite().then_some(value)
}

/// Go's `underscoreOK` for a number without base prefix: each underscore between digits.
fn underscores_separate_digits(s: &str) -> bool {
    let b = s.as_bytes();
    b.iter().enumerate().all(|(i, c)| {
        *c != b'_'
            || (i > 0 && b[i - 1].is_ascii_digit() && b.get(i + 1).is_some_and(u8::is_ascii_digit))
    })
}

fn to_double<'a>(v: &Value<'a>) -> Outcome<'a> {
    match v {
        Value::Double(d) => Ok(Value::Double(*d)),
        Value::Int(i) => Ok(Value::Double(*i as f64)),
        Value::Uint(u) => Ok(Value::Double(*u as f64)),
        Value::String(s) => parse_float(s.as_str()).map_or_else(
            || conversion_error("string", "double"),
            |d| Ok(Value::Double(d)),
        ),
        other => conversion_error(ops::type_name(other), "double"),
    }
}

fn to_string<'a>(v: &Value<'a>) -> Outcome<'a> {
    Ok(match v {
        Value::String(_) => v.clone(),
        Value::Int(i) => ops::string(&i.to_string()),
        Value::Uint(u) => ops::string(&u.to_string()),
        Value::Double(d) => ops::string(&ops::format_g(*d)),
        Value::Bool(b) => ops::string(if *b { "true" } else { "false" }),
        Value::Bytes(b) => match std::str::from_utf8(b) {
            Ok(s) => ops::string(s),
            Err(_) => {
                return Err(EvalError::new(
                    "invalid UTF-8 in bytes, cannot convert to string",
                ));
            }
        },
        Value::Timestamp(t) => ops::string(&gotime::format_timestamp(*t)),
        Value::Duration(d) => ops::string(&gotime::format_duration(*d)),
        other => return conversion_error(ops::type_name(other), "string"),
    })
}

fn to_bytes<'a>(v: &Value<'a>) -> Outcome<'a> {
    match v {
        Value::Bytes(_) => Ok(v.clone()),
        Value::String(s) => Ok(Value::Bytes(Rc::from(s.as_str().as_bytes()))),
        other => conversion_error(ops::type_name(other), "bytes"),
    }
}

fn to_bool<'a>(v: &Value<'a>) -> Outcome<'a> {
    match v {
        Value::Bool(_) => Ok(v.clone()),
        Value::String(s) => match s.as_str() {
            "1" | "t" | "T" | "TRUE" | "true" | "True" => Ok(Value::Bool(true)),
            "0" | "f" | "F" | "FALSE" | "false" | "False" => Ok(Value::Bool(false)),
            _ => conversion_error("string", "bool"),
        },
        other => conversion_error(ops::type_name(other), "bool"),
    }
}

fn to_duration<'a>(v: &Value<'a>) -> Outcome<'a> {
    match v {
        Value::Duration(_) => Ok(v.clone()),
        Value::String(s) => gotime::parse_go_duration(s.as_str()).map_or_else(
            |_| conversion_error("string", "google.protobuf.Duration"),
            |d| Ok(Value::Duration(d)),
        ),
        Value::Int(i) => Ok(Value::Duration(SignedDuration::from_nanos(*i))),
        other => conversion_error(ops::type_name(other), "google.protobuf.Duration"),
    }
}

fn to_timestamp<'a>(v: &Value<'a>) -> Outcome<'a> {
    match v {
        Value::Timestamp(_) => Ok(v.clone()),
        Value::String(s) => gotime::parse_strict_rfc3339(s.as_str())
            .map(Value::Timestamp)
            .map_err(EvalError::new),
        Value::Int(i) => Timestamp::from_second(*i)
            .map_err(|_| "timestamp overflow".to_string())
            .and_then(gotime::check_range)
            .map(Value::Timestamp)
            .map_err(EvalError::new),
        other => conversion_error(ops::type_name(other), "google.protobuf.Timestamp"),
    }
}

fn type_of<'a>(v: &Value<'a>) -> Outcome<'a> {
    Ok(Value::Type(Rc::new(ops::type_of(v))))
}

fn identity<'a>(v: &Value<'a>) -> Outcome<'a> {
    Ok(v.clone())
}

pub(super) fn impls() -> Vec<(&'static str, Impl)> {
    vec![
        ("int64_to_int64", Impl::Unary(to_int)),
        ("uint64_to_int64", Impl::Unary(to_int)),
        ("double_to_int64", Impl::Unary(to_int)),
        ("string_to_int64", Impl::Unary(to_int)),
        ("timestamp_to_int64", Impl::Unary(to_int)),
        ("duration_to_int64", Impl::Unary(to_int)),
        ("uint64_to_uint64", Impl::Unary(to_uint)),
        ("int64_to_uint64", Impl::Unary(to_uint)),
        ("double_to_uint64", Impl::Unary(to_uint)),
        ("string_to_uint64", Impl::Unary(to_uint)),
        ("double_to_double", Impl::Unary(to_double)),
        ("int64_to_double", Impl::Unary(to_double)),
        ("uint64_to_double", Impl::Unary(to_double)),
        ("string_to_double", Impl::Unary(to_double)),
        ("string_to_string", Impl::Unary(to_string)),
        ("bool_to_string", Impl::Unary(to_string)),
        ("int64_to_string", Impl::Unary(to_string)),
        ("uint64_to_string", Impl::Unary(to_string)),
        ("double_to_string", Impl::Unary(to_string)),
        ("bytes_to_string", Impl::Unary(to_string)),
        ("timestamp_to_string", Impl::Unary(to_string)),
        ("duration_to_string", Impl::Unary(to_string)),
        ("bytes_to_bytes", Impl::Unary(to_bytes)),
        ("string_to_bytes", Impl::Unary(to_bytes)),
        ("bool_to_bool", Impl::Unary(to_bool)),
        ("string_to_bool", Impl::Unary(to_bool)),
        ("duration_to_duration", Impl::Unary(to_duration)),
        ("string_to_duration", Impl::Unary(to_duration)),
        ("timestamp_to_timestamp", Impl::Unary(to_timestamp)),
        ("string_to_timestamp", Impl::Unary(to_timestamp)),
        ("int64_to_timestamp", Impl::Unary(to_timestamp)),
        ("type", Impl::Unary(type_of)),
        ("to_dyn", Impl::Unary(identity)),
    ]
}
