//! The path element naming an item of an associative list: its key fields for a list-map
//! (`k:{...}`), its value for a set (`v:...`), as upstream's `listItemToPathElement`.

use serde_json::Value;

use super::atom::List;
use crate::fieldmanager::fieldpath::PathElement;
use crate::gofmt;

/// The element of `child` in associative list `list`, or upstream's error text.
pub fn list_item(list: &List, child: &Value) -> Result<PathElement, String> {
    if list.atomic {
        return Err("invalid indexing of non-associative list".to_string());
    }
    if list.keys.is_empty() {
        set_item(child)
    } else {
        keyed_item(list, child)
    }
}

fn set_item(child: &Value) -> Result<PathElement, String> {
    match child {
        Value::Object(_) => {
            Err("associative list without keys has an element that's a map type".to_string())
        }
        Value::Array(_) => {
            Err("not supported: associative list with lists as elements".to_string())
        }
        Value::Null => {
            Err("associative list without keys has an element that's an explicit null".to_string())
        }
        scalar => Ok(PathElement::Value(scalar.clone())),
    }
}

fn keyed_item(list: &List, child: &Value) -> Result<PathElement, String> {
    let map = match child {
        Value::Null => {
            return Err("associative list with keys may not have a null element".to_string());
        }
        Value::Object(map) => map,
        _ => return Err("associative list with keys may not have non-map elements".to_string()),
    };
    let mut fields = Vec::with_capacity(list.keys.len());
    for name in &list.keys {
        if let Some(v) = map.get(name) {
            fields.push((name.clone(), v.clone()));
        } else if let Some(default) = key_default(list, name)? {
            fields.push((name.clone(), default.clone()));
        }
        // A key neither set nor defaulted is left out: the item is then named by the
        // keys it has.
    }
    if fields.is_empty() {
        let keys: Vec<String> = list.keys.iter().map(|k| gofmt::quote(k)).collect();
        return Err(format!(
            "associative list with keys has an element that omits all key fields [{}] (and doesn't have default values for any key fields)",
            keys.join(" ")
        ));
    }
    Ok(PathElement::key(fields))
}

/// The schema default of key field `name` (`getAssociativeKeyDefault`).
fn key_default<'a>(list: &'a List, name: &str) -> Result<Option<&'a Value>, String> {
    match list.element.resolve().map.as_deref() {
        Some(map) => Ok(map.fields.get(name).and_then(|f| f.default.as_ref())),
        None => Err(format!(
            "couldn't find default value for {name}: associative list may not have non-map types"
        )),
    }
}
