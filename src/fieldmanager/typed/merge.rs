//! Merging an applied configuration into a live value (`TypedValue.Merge`): leaves and
//! atomic lists/maps take the applied value, granular maps merge per key, associative
//! lists merge per item keeping the live order around the applied items' order.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::atom::{Form, List, Map, TypeRef};
use super::compare::{as_list, as_map, is_empty_list, same};
use super::element;
use super::errors::ValidationErrors;
use super::validate;
use crate::fieldmanager::fieldpath::PathElement;

/// `lhs` with `rhs` merged in; no field is removed. `null` when nothing results.
pub fn merge(ty: &TypeRef, lhs: &Value, rhs: &Value) -> Result<Value, ValidationErrors> {
    let (out, errs) = node(ty, Some(lhs), Some(rhs));
    errs.into_result()?;
    Ok(out.unwrap_or(Value::Null))
}

type Side<'v> = Option<&'v Value>;
type Merged = (Option<Value>, ValidationErrors);

fn node(ty: &TypeRef, lhs: Side, rhs: Side) -> Merged {
    let atom = ty.resolve();
    let (fl, fr) = (atom.form_for(lhs), atom.form_for(rhs));
    if rhs.is_none() {
        form(fl, lhs, rhs)
    } else if lhs.is_none() || same(fl, fr) {
        form(fr, lhs, rhs)
    } else {
        // Different forms of an untyped node: the left form is walked for its errors
        // only, the right one gives the result.
        let (_, mut errs) = form(fl, lhs, rhs);
        let (out, more) = form(fr, lhs, rhs);
        errs.extend(more);
        (out, errs)
    }
}

/// `ruleKeepRHS`: a leaf takes the applied value when there is one.
fn leaf(lhs: Side, rhs: Side) -> Option<Value> {
    rhs.or(lhs).cloned()
}

fn form(form: Form, lhs: Side, rhs: Side) -> Merged {
    match form {
        Form::Scalar(t) => {
            let mut l = validate::scalar(t, lhs, "lhs: ");
            let r = validate::scalar(t, rhs, "rhs: ");
            if !l.is_empty() && !r.is_empty() {
                l.extend(r);
                return (None, l);
            }
            (leaf(lhs, rhs), ValidationErrors::default())
        }
        Form::List(list) => {
            let (l, r) = (as_list(lhs), as_list(rhs));
            // Empty and null lists are leaves, so the two stay distinct.
            if list.atomic || is_empty_list(l) && is_empty_list(r) {
                return (leaf(lhs, rhs), ValidationErrors::default());
            }
            list_items(list, l.unwrap_or_default(), r.unwrap_or_default())
        }
        Form::Map(map) => {
            let (l, r) = (as_map(lhs), as_map(rhs));
            if map.atomic || l.is_none_or(|m| m.is_empty()) && r.is_none_or(|m| m.is_empty()) {
                return (leaf(lhs, rhs), ValidationErrors::default());
            }
            map_items(map, l, r)
        }
        Form::Invalid => (
            None,
            ValidationErrors::one("schema error: invalid atom: inlined"),
        ),
    }
}

/// A list's elements in order, and the item of each element: duplicated elements map to
/// `null` on the live side (they are not merged) and are an error on the applied side.
struct Indexed<'v> {
    elements: Vec<PathElement>,
    observed: BTreeMap<PathElement, &'v Value>,
}

const NULL: Value = Value::Null;

fn index<'v>(
    list: &List,
    items: &'v [Value],
    allow_duplicates: bool,
    errs: &mut ValidationErrors,
) -> Indexed<'v> {
    let mut out = Indexed {
        elements: Vec::with_capacity(items.len()),
        observed: BTreeMap::new(),
    };
    for (i, child) in items.iter().enumerate() {
        let pe = match element::list_item(list, child) {
            Ok(pe) => pe,
            Err(e) => {
                errs.extend(ValidationErrors::one(format!("element {i}: {e}")));
                continue;
            }
        };
        match out.observed.get_mut(&pe) {
            Some(_) if !allow_duplicates => {
                errs.extend(ValidationErrors::one(format!(
                    "duplicate entries for key {pe}"
                )));
                continue;
            }
            Some(seen) => *seen = &NULL,
            None => {
                out.observed.insert(pe.clone(), child);
            }
        }
        out.elements.push(pe);
    }
    out
}

/// Upstream's `visitListItems`: walk both lists together; shared items come in the
/// applied order, live-only items stay where they were relative to them, applied-only
/// items come where the applied list has them.
fn list_items(list: &List, lhs: &[Value], rhs: &[Value]) -> Merged {
    let mut errs = ValidationErrors::default();
    let r = index(list, rhs, false, &mut errs);
    let l = index(list, lhs, true, &mut errs);
    if !errs.is_empty() {
        return (None, errs);
    }
    let mut shared = r.elements.iter().filter(|pe| l.observed.contains_key(*pe));
    let mut next_shared = shared.next();
    let mut merged_rhs: BTreeSet<&PathElement> = BTreeSet::new();
    let mut out = Vec::with_capacity(lhs.len().max(rhs.len()));
    // Item errors are dropped, as upstream's shadowed `errs` drops them; both sides were
    // validated before merging.
    let mut push = |lc: Side, rc: Side| {
        if let (Some(v), _) = node(&list.element, lc, rc) {
            out.push(v);
        }
    };
    let (l_len, r_len) = (l.elements.len(), r.elements.len());
    let (mut li, mut ri) = (0, 0);
    while li < l_len || ri < r_len {
        if li < l_len && ri < r_len {
            let pe = &l.elements[li];
            if *pe == r.elements[ri] {
                merged_rhs.insert(pe);
                push(l.observed.get(pe).copied(), r.observed.get(pe).copied());
                li += 1;
                ri += 1;
                next_shared = shared.next();
                continue;
            }
            if r.observed.contains_key(pe) && next_shared.is_some_and(|n| n != pe) {
                // A shared item, but not the one due next: it comes later.
                li += 1;
                continue;
            }
        }
        if li < l_len {
            let pe = &l.elements[li];
            if !r.observed.contains_key(pe) {
                push(lhs.get(li), None);
                li += 1;
                continue;
            } else if merged_rhs.contains(pe) {
                li += 1;
            }
        }
        if ri < r_len {
            let pe = &r.elements[ri];
            merged_rhs.insert(pe);
            push(l.observed.get(pe).copied(), r.observed.get(pe).copied());
            ri += 1;
            if next_shared == Some(pe) {
                next_shared = shared.next();
            }
        }
    }
    let out = (!out.is_empty()).then_some(Value::Array(out));
    (out, ValidationErrors::default())
}

fn map_items(
    map: &Map,
    lhs: Option<&serde_json::Map<String, Value>>,
    rhs: Option<&serde_json::Map<String, Value>>,
) -> Merged {
    let mut errs = ValidationErrors::default();
    let mut out = serde_json::Map::new();
    let keys: BTreeSet<&String> = lhs.into_iter().chain(rhs).flat_map(|m| m.keys()).collect();
    for key in keys {
        let pe = PathElement::field(key.as_str());
        let (l, r) = (lhs.and_then(|m| m.get(key)), rhs.and_then(|m| m.get(key)));
        let (v, e) = match map.member(key) {
            Some(ty) => node(ty, l, r),
            None => (
                None,
                ValidationErrors::one("schema error: no type found matching: inlined type"),
            ),
        };
        errs.extend(e.with_prefix(&pe));
        if let Some(v) = v {
            out.insert(key.clone(), v);
        }
    }
    let out = (!out.is_empty()).then_some(Value::Object(out));
    (out, errs)
}
