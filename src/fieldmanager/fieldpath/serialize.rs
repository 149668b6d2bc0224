//! A [`Set`] as `fieldsV1` JSON: each member an empty object under its serialized path
//! element, a node with children an object of them, `"."` marking a node that is also a
//! member (upstream's serialize.go).

use serde_json::{Map, Value};

use super::serialize_pe::{write_path_element, write_string};
use super::{PathElementError, Set, deserialize_path_element, serialize_path_element};

/// Why a `fieldsV1` document is not a field set.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FieldsV1Error {
    #[error("{0}")]
    Syntax(String),
    #[error("parsing key as path element: {0}")]
    Key(String),
    #[error("ReadMapCB: expect {{ or n, but found {0}")]
    NotAnObject(String),
}

impl Set {
    /// The `fieldsV1` object (keys' order is the map's; see [`Set::to_json_string`] for
    /// upstream's exact bytes).
    pub fn to_fields_v1(&self) -> Value {
        Value::Object(self.fields_v1_map(false))
    }

    fn fields_v1_map(&self, include_self: bool) -> Map<String, Value> {
        let mut out = Map::new();
        if include_self && !(self.members.is_empty() && self.children.is_empty()) {
            out.insert(".".to_string(), Value::Object(Map::new()));
        }
        for pe in &self.members {
            if !self.children.contains_key(pe) {
                out.insert(serialize_path_element(pe), Value::Object(Map::new()));
            }
        }
        for (pe, child) in &self.children {
            let member = self.members.contains(pe);
            out.insert(
                serialize_path_element(pe),
                Value::Object(child.fields_v1_map(member)),
            );
        }
        out
    }

    /// `Set.ToJSON`: upstream's bytes, entries in path-element order (fields, keys,
    /// values, indexes), `"."` first.
    pub fn to_json_string(&self) -> String {
        let mut out = String::from("{");
        self.emit_v1(false, &mut out);
        out.push('}');
        out
    }

    fn emit_v1(&self, include_self: bool, out: &mut String) {
        let mut first = true;
        let mut pre = |out: &mut String| {
            if !std::mem::take(&mut first) {
                out.push(',');
            }
        };
        if include_self && !(self.members.is_empty() && self.children.is_empty()) {
            pre(out);
            out.push_str("\".\":{}");
        }
        // Members and children merged in element order; an element in both is written
        // once, with "." inside.
        let mut members = self.members.iter().peekable();
        let mut children = self.children.iter().peekable();
        loop {
            let take_member = match (members.peek(), children.peek()) {
                (None, None) => break,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (Some(m), Some((c, _))) => *m < *c,
            };
            pre(out);
            if take_member {
                if let Some(pe) = members.next() {
                    write_key(pe, out);
                    out.push_str("{}");
                }
                continue;
            }
            if let Some((pe, child)) = children.next() {
                let member = members.next_if(|m| *m == pe).is_some();
                write_key(pe, out);
                out.push('{');
                child.emit_v1(member, out);
                out.push('}');
            }
        }
    }

    /// `Set.FromJSON` on an already parsed document: `null` is the empty set; unknown
    /// element kinds are dropped.
    pub fn from_fields_v1(v: &Value) -> Result<Set, FieldsV1Error> {
        Ok(read_v1(v)?.0.unwrap_or_default())
    }

    /// `Set.FromJSON` on text.
    pub fn from_json_str(text: &str) -> Result<Set, FieldsV1Error> {
        let v: Value =
            serde_json::from_str(text).map_err(|e| FieldsV1Error::Syntax(e.to_string()))?;
        Set::from_fields_v1(&v)
    }
}

fn write_key(pe: &super::PathElement, out: &mut String) {
    let mut key = String::new();
    write_path_element(pe, &mut key);
    write_string(&key, false, out);
    out.push(':');
}

/// `readIterV1`: the node's children (None when there are none) and whether the node is
/// itself a member (it is when it says `"."` or has no children).
fn read_v1(v: &Value) -> Result<(Option<Set>, bool), FieldsV1Error> {
    let map = match v {
        Value::Object(map) => map,
        Value::Null => return Ok((None, true)),
        other => return Err(FieldsV1Error::NotAnObject(first_char(other))),
    };
    let mut children: Option<Set> = None;
    let mut is_member = false;
    for (key, child) in map {
        if key == "." {
            is_member = true;
            continue;
        }
        let pe = match deserialize_path_element(key) {
            Ok(pe) => pe,
            Err(PathElementError::UnknownType) => continue,
            Err(PathElementError::Invalid(e)) => return Err(FieldsV1Error::Key(e)),
        };
        let (grandchildren, child_is_member) = read_v1(child)?;
        if child_is_member {
            children.get_or_insert_default().insert_member(pe.clone());
        }
        if let Some(grandchildren) = grandchildren {
            children
                .get_or_insert_default()
                .set_child(pe, grandchildren);
        }
    }
    let is_member = is_member || children.is_none();
    Ok((children, is_member))
}

fn first_char(v: &Value) -> String {
    v.to_string()
        .chars()
        .next()
        .map(String::from)
        .unwrap_or_default()
}

#[cfg(test)]
#[path = "serialize_data.rs"]
mod data;
#[cfg(test)]
#[path = "serialize_tests.rs"]
mod tests;
