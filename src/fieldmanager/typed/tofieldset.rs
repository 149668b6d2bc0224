//! The set of fields a value sets (`TypedValue.ToFieldSet`): every scalar leaf, atomic
//! lists and maps as one leaf, every associative-list item (its element, then what it
//! holds), fields that hold null or `{}`, and map entries that are not named fields.

use std::collections::BTreeSet;

use serde_json::Value;

use super::atom::{Form, List, Map, TypeRef};
use super::element;
use super::errors::ValidationErrors;
use crate::fieldmanager::fieldpath::{PathElement, Set};

/// The field set of `value`, or the schema errors met on the way.
pub fn to_field_set(ty: &TypeRef, value: &Value) -> Result<Set, ValidationErrors> {
    let mut walker = Walker {
        set: Set::new(),
        path: Vec::new(),
    };
    let errs = walker.walk(ty, value);
    errs.into_result().map(|()| walker.set)
}

struct Walker {
    set: Set,
    path: Vec<PathElement>,
}

impl Walker {
    fn walk(&mut self, ty: &TypeRef, value: &Value) -> ValidationErrors {
        match ty.resolve().form_for(Some(value)) {
            Form::Scalar(_) => {
                self.set.insert(&self.path);
                ValidationErrors::default()
            }
            Form::List(list) => self.list(list, value),
            Form::Map(map) => self.map(map, value),
            Form::Invalid => ValidationErrors::one("schema error: invalid atom: inlined"),
        }
    }

    fn list(&mut self, list: &List, value: &Value) -> ValidationErrors {
        if list.atomic {
            self.set.insert(&self.path);
            return ValidationErrors::default();
        }
        let Value::Array(items) = value else {
            return ValidationErrors::default();
        };
        // Items are named by element; upstream names an unnameable item by an empty
        // element, which validation has already rejected, so such items are skipped.
        let elements: Vec<Option<PathElement>> = items
            .iter()
            .map(|child| element::list_item(list, child).ok())
            .collect();
        let mut seen = BTreeSet::new();
        let mut duplicates = BTreeSet::new();
        for pe in elements.iter().flatten() {
            if !seen.insert(pe) {
                duplicates.insert(pe);
            }
        }
        // A duplicated item is owned as a whole: its element only, nothing below.
        for pe in &duplicates {
            self.path.push((*pe).clone());
            self.set.insert(&self.path);
            self.path.pop();
        }
        let mut errs = ValidationErrors::default();
        for (child, pe) in items.iter().zip(&elements) {
            let Some(pe) = pe.as_ref().filter(|pe| !duplicates.contains(pe)) else {
                continue;
            };
            self.path.push(pe.clone());
            errs.extend(self.walk(&list.element, child));
            self.set.insert(&self.path);
            self.path.pop();
        }
        errs
    }

    fn map(&mut self, map: &Map, value: &Value) -> ValidationErrors {
        if map.atomic {
            self.set.insert(&self.path);
            return ValidationErrors::default();
        }
        let Value::Object(entries) = value else {
            return ValidationErrors::default();
        };
        let mut errs = ValidationErrors::default();
        for (key, val) in entries {
            self.path.push(PathElement::field(key.as_str()));
            match map.member(key) {
                Some(ty) => errs.extend(self.walk(ty, val)),
                None => errs.extend(ValidationErrors::one(
                    "schema error: no type found matching: inlined type",
                )),
            }
            let empty = match val {
                Value::Null => true,
                Value::Object(m) => m.is_empty(),
                _ => false,
            };
            if empty || !map.is_field(key) {
                self.set.insert(&self.path);
            }
            self.path.pop();
        }
        errs
    }
}
