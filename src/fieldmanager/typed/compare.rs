//! The fields two values differ in (`TypedValue.Compare`): added, modified and removed
//! leaves, plus every container (map, associative-list item) that appears or disappears.

use std::collections::BTreeMap;

use serde_json::Value;

use super::atom::{Form, List, Map, TypeRef};
use super::element;
use super::errors::ValidationErrors;
use super::validate;
use crate::fieldmanager::fieldpath::{PathElement, Set};
use crate::fieldmanager::value;

/// What changed from the left value to the right one. No path is in two sets; all empty
/// means the values are the same.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Comparison {
    pub removed: Set,
    pub modified: Set,
    pub added: Set,
}

impl Comparison {
    /// `IsSame`.
    pub fn is_same(&self) -> bool {
        self.removed.is_empty() && self.modified.is_empty() && self.added.is_empty()
    }

    /// Drops `fields` and everything below them from all three sets (`ExcludeFields`).
    pub fn exclude_fields(&mut self, fields: &Set) {
        if fields.is_empty() {
            return;
        }
        self.removed = self.removed.recursive_difference(fields);
        self.modified = self.modified.recursive_difference(fields);
        self.added = self.added.recursive_difference(fields);
    }
}

/// Compares `lhs` (before) with `rhs` (after), both of type `ty`.
pub fn compare(ty: &TypeRef, lhs: &Value, rhs: &Value) -> Result<Comparison, ValidationErrors> {
    let mut w = Walker {
        path: Vec::new(),
        out: Comparison::default(),
    };
    w.node(ty, Some(lhs), Some(rhs)).into_result()?;
    Ok(w.out)
}

struct Walker {
    path: Vec<PathElement>,
    out: Comparison,
}

type Side<'v> = Option<&'v Value>;

impl Walker {
    fn node(&mut self, ty: &TypeRef, lhs: Side, rhs: Side) -> ValidationErrors {
        let atom = ty.resolve();
        let (fl, fr) = (atom.form_for(lhs), atom.form_for(rhs));
        let mut in_leaf = false;
        let mut errs = ValidationErrors::default();
        if rhs.is_none() {
            errs.extend(self.form(fl, lhs, rhs, &mut in_leaf));
        } else if lhs.is_none() || same(fl, fr) {
            errs.extend(self.form(fr, lhs, rhs, &mut in_leaf));
        } else {
            // The two sides take different forms of an untyped node: each is walked
            // with its own form, as upstream does.
            let mut lhs_leaf = false;
            errs.extend(self.form(fl, lhs, rhs, &mut lhs_leaf));
            errs.extend(self.form(fr, lhs, rhs, &mut in_leaf));
        }
        if !in_leaf {
            if lhs.is_none() {
                self.out.added.insert(&self.path);
            } else if rhs.is_none() {
                self.out.removed.insert(&self.path);
            }
        }
        errs
    }

    fn form(&mut self, form: Form, lhs: Side, rhs: Side, in_leaf: &mut bool) -> ValidationErrors {
        match form {
            Form::Scalar(t) => {
                let mut l = validate::scalar(t, lhs, "lhs: ");
                let r = validate::scalar(t, rhs, "rhs: ");
                if !l.is_empty() && !r.is_empty() {
                    l.extend(r);
                    return l;
                }
                self.leaf(lhs, rhs, in_leaf);
                ValidationErrors::default()
            }
            Form::List(list) => {
                let (l, r) = (as_list(lhs), as_list(rhs));
                if list.atomic || is_empty_list(l) && is_empty_list(r) {
                    // Empty and null lists are leaves, so the two stay distinct.
                    self.leaf(lhs, rhs, in_leaf);
                    return ValidationErrors::default();
                }
                self.list_items(list, l.unwrap_or_default(), r.unwrap_or_default())
            }
            Form::Map(map) => {
                let (l, r) = (as_map(lhs), as_map(rhs));
                if map.atomic || l.is_none_or(|m| m.is_empty()) && r.is_none_or(|m| m.is_empty()) {
                    self.leaf(lhs, rhs, in_leaf);
                    return ValidationErrors::default();
                }
                self.map_items(map, l, r)
            }
            Form::Invalid => ValidationErrors::one("schema error: invalid atom: inlined"),
        }
    }

    fn leaf(&mut self, lhs: Side, rhs: Side, in_leaf: &mut bool) {
        if *in_leaf {
            return;
        }
        *in_leaf = true;
        match (lhs, rhs) {
            (None, _) => self.out.added.insert(&self.path),
            (_, None) => self.out.removed.insert(&self.path),
            (Some(l), Some(r)) if !value::equals(l, r) => self.out.modified.insert(&self.path),
            _ => {}
        }
    }

    fn list_items(&mut self, list: &List, lhs: &[Value], rhs: &[Value]) -> ValidationErrors {
        let mut errs = ValidationErrors::default();
        // Every distinct element once, left ones first, with the items it names per side.
        let mut order: Vec<PathElement> = Vec::new();
        let mut sides: BTreeMap<PathElement, (Vec<&Value>, Vec<&Value>)> = BTreeMap::new();
        for (right, items) in [(false, lhs), (true, rhs)] {
            for (i, child) in items.iter().enumerate() {
                let pe = match element::list_item(list, child) {
                    Ok(pe) => pe,
                    Err(e) => {
                        errs.extend(ValidationErrors::one(format!("element {i}: {e}")));
                        continue;
                    }
                };
                let entry = sides.entry(pe.clone()).or_insert_with(|| {
                    order.push(pe);
                    (Vec::new(), Vec::new())
                });
                if right {
                    entry.1.push(child)
                } else {
                    entry.0.push(child)
                }
            }
        }
        for pe in order {
            let Some((l, r)) = sides.get(&pe) else {
                continue;
            };
            errs.extend(self.list_item(list, pe, l, r));
        }
        errs
    }

    /// One element's items on each side; duplicated items are compared as a whole.
    fn list_item(
        &mut self,
        list: &List,
        pe: PathElement,
        l: &[&Value],
        r: &[&Value],
    ) -> ValidationErrors {
        self.path.push(pe);
        let mut errs = ValidationErrors::default();
        match (l.len(), r.len()) {
            (0..=1, 0..=1) => errs = self.item(list, l.first().copied(), r.first().copied()),
            (2.., 2..) => {
                let equal = l.len() == r.len() && l.iter().zip(r).all(|(a, b)| value::equals(a, b));
                if !equal {
                    self.out.modified.insert(&self.path);
                }
            }
            (2.., _) => {
                if let Some(first) = r.first() {
                    errs = self.item(list, None, Some(first));
                }
                self.out.removed.insert(&self.path);
            }
            (_, _) => {
                if let Some(first) = l.first() {
                    errs = self.item(list, Some(first), None);
                }
                self.out.added.insert(&self.path);
            }
        }
        let pe = self.path.pop();
        match pe {
            Some(pe) => errs.with_prefix(&pe),
            None => errs,
        }
    }

    fn item(&mut self, list: &List, lhs: Side, rhs: Side) -> ValidationErrors {
        self.node(&list.element, lhs, rhs)
    }

    fn map_items(
        &mut self,
        map: &Map,
        lhs: Option<&serde_json::Map<String, Value>>,
        rhs: Option<&serde_json::Map<String, Value>>,
    ) -> ValidationErrors {
        let mut errs = ValidationErrors::default();
        let keys = lhs.into_iter().chain(rhs).flat_map(|m| m.keys());
        let keys: std::collections::BTreeSet<&String> = keys.collect();
        for key in keys {
            let pe = PathElement::field(key.as_str());
            let (l, r) = (lhs.and_then(|m| m.get(key)), rhs.and_then(|m| m.get(key)));
            self.path.push(pe.clone());
            let e = match map.member(key) {
                Some(ty) => self.node(ty, l, r),
                None => ValidationErrors::one("schema error: no type found matching: inlined type"),
            };
            self.path.pop();
            errs.extend(e.with_prefix(&pe));
        }
        errs
    }
}

/// Whether the two sides take the same form (`Atom.Equals` of the deduced atoms).
pub(super) fn same(a: Form, b: Form) -> bool {
    std::mem::discriminant(&a) == std::mem::discriminant(&b)
}

pub(super) fn as_list(v: Option<&Value>) -> Option<&[Value]> {
    match v {
        Some(Value::Array(items)) => Some(items),
        _ => None,
    }
}

pub(super) fn is_empty_list(v: Option<&[Value]>) -> bool {
    v.is_none_or(<[Value]>::is_empty)
}

pub(super) fn as_map(v: Option<&Value>) -> Option<&serde_json::Map<String, Value>> {
    match v {
        Some(Value::Object(m)) => Some(m),
        _ => None,
    }
}
