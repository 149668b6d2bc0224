//! Whether a value conforms to its type (`TypedValue.Validate`): scalars of the right
//! kind, no undeclared fields, associative-list items that name themselves, and no
//! duplicate items unless allowed (live objects may hold duplicates; applied ones not).

use std::collections::BTreeSet;

use serde_json::Value;

use super::atom::{Form, List, Map, Scalar, TypeRef};
use super::element;
use super::errors::{ValidationErrors, value_sharp_v, value_v};
use crate::fieldmanager::fieldpath::PathElement;
use crate::gofmt;

/// Every violation of `ty` by `value`.
pub fn validate(
    ty: &TypeRef,
    value: &Value,
    allow_duplicates: bool,
) -> Result<(), ValidationErrors> {
    walk(ty, value, allow_duplicates).into_result()
}

fn walk(ty: &TypeRef, value: &Value, allow_duplicates: bool) -> ValidationErrors {
    match ty.resolve().form_for(Some(value)) {
        Form::Scalar(s) => scalar(s, Some(value), ""),
        Form::List(list) => match value {
            Value::Null => ValidationErrors::default(),
            Value::Array(items) => list_items(list, items, allow_duplicates),
            other => ValidationErrors::one(format!("expected list, got {}", value_v(other))),
        },
        Form::Map(map) => match value {
            Value::Null => ValidationErrors::default(),
            Value::Object(entries) => map_items(map, entries, allow_duplicates),
            other => ValidationErrors::one(format!("expected map, got {}", value_v(other))),
        },
        Form::Invalid => ValidationErrors::one("schema error: invalid atom: inlined"),
    }
}

/// `validateScalar`: a null or absent value is any scalar; `prefix` names the side
/// (`lhs: `/`rhs: `) when two values are walked together.
pub fn scalar(t: Scalar, value: Option<&Value>, prefix: &str) -> ValidationErrors {
    let Some(v) = value.filter(|v| !v.is_null()) else {
        return ValidationErrors::default();
    };
    let message = match t {
        Scalar::Numeric if !v.is_number() => format!(
            "{prefix}expected numeric (int or float), got {}",
            gofmt::type_name(v)
        ),
        Scalar::String if !v.is_string() => {
            format!("{prefix}expected string, got {}", value_sharp_v(v))
        }
        Scalar::Boolean if !v.is_boolean() => {
            format!("{prefix}expected boolean, got {}", value_v(v))
        }
        Scalar::Untyped if v.is_array() || v.is_object() => {
            format!("{prefix}expected any scalar, got {}", value_v(v))
        }
        _ => return ValidationErrors::default(),
    };
    ValidationErrors::one(message)
}

fn list_items(list: &List, items: &[Value], allow_duplicates: bool) -> ValidationErrors {
    let mut errs = ValidationErrors::default();
    let mut seen: BTreeSet<PathElement> = BTreeSet::new();
    for (i, child) in items.iter().enumerate() {
        let pe = if list.atomic {
            PathElement::Index(i as i64)
        } else {
            match element::list_item(list, child) {
                Ok(pe) => pe,
                Err(e) => {
                    // Without an element nothing deeper can be named: stop here.
                    errs.extend(ValidationErrors::one(format!("element {i}: {e}")));
                    return errs;
                }
            }
        };
        if !list.atomic && !seen.insert(pe.clone()) && !allow_duplicates {
            errs.extend(ValidationErrors::one(format!(
                "duplicate entries for key {pe}"
            )));
        }
        errs.extend(walk(&list.element, child, allow_duplicates).with_prefix(&pe));
    }
    errs
}

fn map_items(
    map: &Map,
    entries: &serde_json::Map<String, Value>,
    allow_duplicates: bool,
) -> ValidationErrors {
    let mut errs = ValidationErrors::default();
    for (key, val) in entries {
        let pe = PathElement::field(key.as_str());
        let Some(ty) = map.member(key) else {
            errs.extend(ValidationErrors::one("field not declared in schema").with_prefix(&pe));
            break;
        };
        errs.extend(walk(ty, val, allow_duplicates).with_prefix(&pe));
    }
    errs
}
