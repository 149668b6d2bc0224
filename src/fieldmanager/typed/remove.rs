//! Removing or extracting the fields and items of a set from a value
//! (`TypedValue.RemoveItems` / `ExtractItems`), and the schema-aware set widening
//! (`Set.EnsureNamedFieldsAreMembers`) that apply's pruning uses with them.

use serde_json::Value;

use super::atom::{Form, List, Map, TypeRef};
use super::element;
use crate::fieldmanager::fieldpath::{PathElement, Set};

/// `value` without the list items, map entries and fields of `items`.
pub fn remove_items(ty: &TypeRef, value: &Value, items: &Set) -> Value {
    walk(Some(ty), value, items, false)
}

/// Only the list items, map entries and fields of `items` from `value`; with
/// `append_key_fields`, the key fields of every list-map item on those paths too.
pub fn extract_items(ty: &TypeRef, value: &Value, items: &Set, append_key_fields: bool) -> Value {
    if !append_key_fields {
        return walk(Some(ty), value, items, true);
    }
    let Ok(present) = super::to_field_set(ty, value) else {
        return walk(Some(ty), value, items, true);
    };
    let mut widened = items.clone();
    for path in items.paths() {
        if !present.has(path.elements()) {
            continue;
        }
        for (i, pe) in path.elements().iter().enumerate() {
            if let PathElement::Key(key) = pe {
                for (name, _) in key.fields() {
                    let mut p = path.elements()[..=i].to_vec();
                    p.push(PathElement::field(name.as_str()));
                    widened.insert(&p);
                }
            }
        }
    }
    walk(Some(ty), value, &widened, true)
}

/// Upstream's `removeItemsWithSchema`; "nothing left" is `null`, as upstream's nil value.
fn walk(ty: Option<&TypeRef>, value: &Value, set: &Set, extract: bool) -> Value {
    let Some(ty) = ty else {
        return Value::Null;
    };
    match ty.resolve().form_for(Some(value)) {
        Form::Scalar(_) => value.clone(),
        Form::List(list) => self::list(list, value, set, extract),
        Form::Map(map) => self::map(map, value, set, extract),
        Form::Invalid => Value::Null,
    }
}

fn list(list: &List, value: &Value, set: &Set, extract: bool) -> Value {
    let Value::Array(items) = value else {
        return Value::Null;
    };
    // Empty lists stay as they are when extracted; atomic ones are all or nothing.
    if items.is_empty() || list.atomic {
        return if extract { value.clone() } else { Value::Null };
    }
    let mut out = Vec::new();
    for item in items {
        let Ok(pe) = element::list_item(list, item) else {
            // Unnameable items were rejected by validation already.
            if !extract {
                out.push(item.clone());
            }
            continue;
        };
        let exact = set.has_member(&pe);
        let below = set.child(&pe).filter(|s| !s.is_empty());
        match (extract, exact, below) {
            (true, _, Some(sub)) | (false, false, Some(sub)) => {
                out.push(walk(Some(&list.element), item, sub, extract));
            }
            (true, true, None) | (false, false, None) => out.push(item.clone()),
            (true, false, None) | (false, true, _) => {}
        }
    }
    if out.is_empty() {
        Value::Null
    } else {
        Value::Array(out)
    }
}

fn map(map: &Map, value: &Value, set: &Set, extract: bool) -> Value {
    let Value::Object(entries) = value else {
        return Value::Null;
    };
    if entries.is_empty() || map.atomic {
        return if extract { value.clone() } else { Value::Null };
    }
    let mut out = serde_json::Map::new();
    for (key, val) in entries {
        let pe = PathElement::field(key.as_str());
        let ty = map.member(key);
        if set.has_member(&pe) {
            if extract {
                // Upstream walks the member with the whole set, not the subset below it.
                out.insert(key.clone(), walk(ty, val, set, extract));
            }
            continue;
        }
        match set.child(&pe).filter(|s| !s.is_empty()) {
            Some(sub) => {
                out.insert(key.clone(), walk(ty, val, sub, extract));
            }
            None if extract => {}
            None => {
                out.insert(key.clone(), val.clone());
            }
        }
    }
    if out.is_empty() {
        Value::Null
    } else {
        Value::Object(out)
    }
}

/// `set` plus every named field (a struct field, not a map entry) that has something
/// below it in `set`: `.a.b.c` adds `.a` when `a` is a field, but not `.a.b` when `b` is
/// an entry of the map `.a`.
pub fn ensure_named_fields_are_members(set: &Set, ty: &TypeRef) -> Set {
    widen(set, Some(ty))
}

fn widen(set: &Set, ty: Option<&TypeRef>) -> Set {
    let atom = ty.map(TypeRef::resolve);
    let map = atom.and_then(|a| a.map.as_deref());
    let list = atom.and_then(|a| a.list.as_deref());
    let mut out = Set::new();
    for pe in set.members() {
        out.insert_member(pe.clone());
    }
    for (pe, child) in set.children() {
        let child_ty = match pe {
            PathElement::FieldName(name) => {
                if map.is_some_and(|m| m.is_field(name)) {
                    out.insert_member(pe.clone());
                }
                map.and_then(|m| m.member(name))
            }
            PathElement::Key(_) => list.map(|l| &l.element),
            PathElement::Value(_) | PathElement::Index(_) => None,
        };
        out.set_child(pe.clone(), widen(child, child_ty));
    }
    out
}
