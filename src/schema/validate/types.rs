//! kube-openapi's type validator (with `nullable` and the format/type quirks) and the
//! enum check, over the schema as apiextensions converts it: `x-kubernetes-int-or-string`
//! becomes the types `integer,string` and unsupported formats are stripped.

use serde_json::Value;

use super::result::{Kind, Outcome};
use super::walk::Walker;
use crate::formats::strfmt;
use crate::gofmt::{Num, f64_to_i64};
use crate::schema::{Schema, SchemaType};

/// A node's types and its effective (not stripped) format.
pub(super) struct View<'s> {
    types: Types<'s>,
    pub(super) format: &'s str,
}

#[derive(Clone, Copy)]
enum Types<'s> {
    Any,
    One(&'s str),
    IntOrString,
}

impl<'s> View<'s> {
    pub(super) fn of(s: &'s Schema) -> Self {
        let types = if s.int_or_string {
            Types::IntOrString
        } else if s.type_ == SchemaType::Unset {
            Types::Any
        } else {
            Types::One(s.type_.as_str())
        };
        let mut view = View { types, format: "" };
        if !s.format.is_empty() && strfmt::is_recognized(view.single(), &s.format) {
            view.format = &s.format;
        }
        view
    }

    /// The type when exactly one is given, else `""`.
    pub(super) fn single(&self) -> &'s str {
        match self.types {
            Types::One(t) => t,
            _ => "",
        }
    }

    fn is_untyped(&self) -> bool {
        matches!(self.types, Types::Any)
    }

    fn contains(&self, t: &str) -> bool {
        match self.types {
            Types::Any => false,
            Types::One(one) => one == t,
            Types::IntOrString => t == "integer" || t == "string",
        }
    }

    fn joined(&self) -> &'s str {
        match self.types {
            Types::Any => "",
            Types::One(t) => t,
            Types::IntOrString => "integer,string",
        }
    }

    /// The type validator runs when a type or a format is given.
    pub(super) fn type_applies(&self) -> bool {
        !self.is_untyped() || !self.format.is_empty()
    }

    /// The format validator runs on strings with a (kept) string format.
    pub(super) fn checks_string_format(&self) -> bool {
        !self.format.is_empty() && matches!(self.single(), "" | "string")
    }
}

/// A null value fails unless untyped or `nullable`.
pub(super) fn check_null<'v>(w: &Walker<'v>, s: &'v Schema) -> Outcome<'v> {
    let view = View::of(s);
    if !view.is_untyped() && !view.contains("null") && !s.nullable {
        return Outcome::fail(w.issue(Kind::Type(view.joined(), "null")));
    }
    Outcome::passed()
}

/// The JSON type and Go format kube-openapi infers from a decoded value.
fn info(v: &Value) -> (&'static str, &'static str) {
    match v {
        Value::Null => ("null", ""),
        Value::Bool(_) => ("boolean", ""),
        Value::String(_) => ("string", ""),
        Value::Number(n) => match Num::of(n) {
            Num::Int(_) => ("integer", "int64"),
            Num::Float(_) => ("number", "float64"),
        },
        Value::Array(_) => ("array", ""),
        Value::Object(_) => ("object", ""),
    }
}

/// `swag.IsFloat64AJSONInteger`: integral (within a relative 1e-9) and within ±(2^53-1).
pub(super) fn is_json_integer(f: f64) -> bool {
    const MAX: f64 = 9_007_199_254_740_991.0;
    if !f.is_finite() || !(-MAX..=MAX).contains(&f) {
        return false;
    }
    let rounded = f.round();
    if f == rounded {
        return true;
    }
    if rounded == 0.0 {
        return false;
    }
    (f - rounded).abs() < 1e-9 * rounded.abs()
}

/// kube-openapi's `typeValidator.Validate` for a non-null value.
pub(super) fn check_type<'v>(w: &Walker<'v>, view: &View<'v>, v: &Value) -> Outcome<'v> {
    let (sch_type, data_format) = info(v);
    let is_float_int = match v {
        Value::Number(n) => match Num::of(n) {
            Num::Float(f) => is_json_integer(f) && view.contains("integer"),
            Num::Int(_) => false,
        },
        _ => false,
    };
    let is_int_float = sch_type == "integer" && view.contains("number");
    let stringish = matches!(v, Value::String(_) | Value::Array(_));
    let format = view.format;
    let accepted = view.contains(sch_type) || is_float_int || is_int_float;
    if !(stringish || format.is_empty() || accepted || data_format == format) {
        return Outcome::fail(w.issue(Kind::Type(format, data_format)));
    }
    let numeric = view.contains("number") || view.contains("integer");
    if !numeric && !format.is_empty() && stringish {
        return Outcome::passed();
    }
    if !accepted {
        return Outcome::fail(w.issue(Kind::Type(view.joined(), sch_type)));
    }
    Outcome::passed()
}

/// Go's `string(rune(i))` for an int64.
fn go_rune_string(i: i64) -> char {
    char::from_u32(i as i32 as u32).unwrap_or('\u{FFFD}')
}

/// Whether `data` equals `allowed` after Go's reflect conversion to the allowed value's
/// type (int64 ↔ float64 numerically, float → int truncating, int → string as a rune).
fn enum_matches(data: &Value, allowed: &Value) -> bool {
    match (data, allowed) {
        (Value::Null, _) | (_, Value::Null) => false,
        (Value::Bool(a), Value::Bool(b)) => a == b,
        (Value::Number(a), Value::Number(b)) => match (Num::of(a), Num::of(b)) {
            (Num::Int(x), Num::Int(y)) => x == y,
            (Num::Int(x), Num::Float(y)) => x as f64 == y,
            (Num::Float(x), Num::Int(y)) => f64_to_i64(x) == y,
            (Num::Float(x), Num::Float(y)) => x == y,
        },
        (Value::Number(a), Value::String(s)) => match Num::of(a) {
            Num::Int(i) => {
                let mut chars = s.chars();
                chars.next() == Some(go_rune_string(i)) && chars.next().is_none()
            }
            Num::Float(_) => false,
        },
        (Value::String(a), Value::String(b)) => a == b,
        (Value::Array(_), Value::Array(_)) | (Value::Object(_), Value::Object(_)) => {
            data == allowed
        }
        _ => false,
    }
}

/// kube-openapi's common validator: the enum (null never matches).
pub(super) fn check_enum<'v>(w: &Walker<'v>, s: &'v Schema, v: &'v Value) -> Outcome<'v> {
    if s.enum_.is_empty() || s.enum_.iter().any(|allowed| enum_matches(v, allowed)) {
        return Outcome::default();
    }
    Outcome::fail(w.issue(Kind::Enum(v, &s.enum_)))
}
