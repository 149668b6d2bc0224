//! One path element as a `fieldsV1` key (`f:<name>`, `k:<json object>`, `v:<json>`,
//! `i:<n>`), byte for byte as upstream's serialize-pe.go writes and reads it (json-iterator
//! in its standard-library-compatible configuration).

use std::fmt::{self, Write as _};

use serde::de::{self, Deserializer as _, MapAccess, Visitor};
use serde_json::Value;

use super::{KeyFields, PathElement};
use crate::fieldmanager::value::to_float64_numbers;
use crate::gofmt;

/// Why a `fieldsV1` key is not a path element.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PathElementError {
    /// A well-formed key of a kind this version does not know (`r:...`); upstream drops
    /// such keys when reading a set.
    #[error("unknown path element type")]
    UnknownType,
    #[error("{0}")]
    Invalid(String),
}

/// `SerializePathElement`.
pub fn serialize_path_element(pe: &PathElement) -> String {
    let mut out = String::new();
    write_path_element(pe, &mut out);
    out
}

pub(super) fn write_path_element(pe: &PathElement, out: &mut String) {
    match pe {
        // The name is written raw: `f:a"b` stays as is inside the key.
        PathElement::FieldName(name) => {
            out.push_str("f:");
            out.push_str(name);
        }
        PathElement::Key(key) => {
            out.push_str("k:{");
            for (i, (name, v)) in key.fields().iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(name, false, out);
                out.push(':');
                write_value(v, out);
            }
            out.push('}');
        }
        PathElement::Value(v) => {
            out.push_str("v:");
            write_value(v, out);
        }
        PathElement::Index(i) => {
            let _ = write!(out, "i:{i}");
        }
    }
}

/// json-iterator's `WriteVal` of a decoded value: map keys sorted, strings HTML-escaped,
/// floats in `strconv` 'f' or 'e' form (two-digit exponent: `1e-07`).
fn write_value(v: &Value, out: &mut String) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => match gofmt::Num::of(n) {
            gofmt::Num::Int(i) => {
                let _ = write!(out, "{i}");
            }
            gofmt::Num::Float(f) => out.push_str(&float_text(f)),
        },
        Value::String(s) => write_string(s, true, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut entries: Vec<_> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (k, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(k, true, out);
                out.push(':');
                write_value(item, out);
            }
            out.push('}');
        }
    }
}

/// `strconv.AppendFloat(f, 'f' or 'e', -1, 64)`: Go's `encoding/json` text but with the
/// exponent padded to two digits, as json-iterator does not trim it.
fn float_text(f: f64) -> String {
    let text = gofmt::float_json(f);
    match text.split_once('e') {
        Some((mantissa, exp)) if exp.len() == 2 => {
            let (sign, digits) = exp.split_at(1);
            format!("{mantissa}e{sign}0{digits}")
        }
        _ => text,
    }
}

/// json-iterator's string writer: `\"`, `\\`, `\n`, `\r`, `\t`, other controls `\u00XX`;
/// with `html`, also `<`, `>`, `&` and U+2028/U+2029.
pub(super) fn write_string(s: &str, html: bool, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c < ' ' => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' if html => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// `DeserializePathElement`. Numbers inside keys and values come back as float64, as
/// json-iterator reads them into `interface{}`.
pub fn deserialize_path_element(s: &str) -> Result<PathElement, PathElementError> {
    let bytes = s.as_bytes();
    if bytes.len() < 2 {
        return Err(invalid("key must be 2 characters long:"));
    }
    if bytes[1] != b':' {
        return Err(invalid(format!("missing colon: {s}")));
    }
    let body = &s[2..];
    match bytes[0] {
        b'f' => Ok(PathElement::FieldName(body.to_string())),
        b'v' => {
            let v: Value = serde_json::from_str(body).map_err(invalid)?;
            Ok(PathElement::Value(to_float64_numbers(v)))
        }
        b'k' => parse_key(body).map(PathElement::Key),
        b'i' => parse_index(body).map(PathElement::Index),
        _ => Err(PathElementError::UnknownType),
    }
}

/// `strconv.Atoi`: an optional sign and decimal digits, nothing else.
fn parse_index(body: &str) -> Result<i64, PathElementError> {
    let digits = body.strip_prefix(['+', '-']).unwrap_or(body);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(invalid(format!(
            "strconv.Atoi: parsing {}: invalid syntax",
            gofmt::quote(body)
        )));
    }
    body.parse::<i64>().map_err(|_| {
        invalid(format!(
            "strconv.Atoi: parsing {}: value out of range",
            gofmt::quote(body)
        ))
    })
}

/// A JSON object's fields in document order, duplicates kept (json-iterator's
/// `ReadObjectCB`); `null` reads as no fields.
fn parse_key(body: &str) -> Result<KeyFields, PathElementError> {
    let mut de = serde_json::Deserializer::from_str(body);
    let pairs = (&mut de)
        .deserialize_option(PairsVisitor)
        .map_err(invalid)?;
    de.end().map_err(invalid)?;
    let pairs = pairs
        .into_iter()
        .map(|(k, v)| (k, to_float64_numbers(v)))
        .collect();
    Ok(KeyFields::new(pairs))
}

struct PairsVisitor;

impl<'de> Visitor<'de> for PairsVisitor {
    type Value = Vec<(String, Value)>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Vec::new())
    }

    fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(PairsVisitor)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::new();
        while let Some((k, v)) = map.next_entry::<String, Value>()? {
            out.push((k, v));
        }
        Ok(out)
    }
}

fn invalid(e: impl ToString) -> PathElementError {
    PathElementError::Invalid(e.to_string())
}

#[cfg(test)]
#[path = "serialize_pe_tests.rs"]
mod tests;
