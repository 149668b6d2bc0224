//! `PathElement`: one step into an object (a field, a list-map item by its keys, a set item
//! by its value, a list item by its index), ordered as upstream's `PathElement.Compare`.

use std::cmp::Ordering;
use std::fmt;

use serde_json::Value;

use crate::fieldmanager::value;

/// The key of a list-map item: its key fields' (name, value) pairs, sorted by name
/// (upstream's `value.FieldList`).
#[derive(Clone, Debug, Default)]
pub struct KeyFields(Vec<(String, Value)>);

impl KeyFields {
    /// Builds a key from pairs in any order; they are sorted by name (stable, as
    /// `FieldList.Sort`).
    pub fn new(mut fields: Vec<(String, Value)>) -> KeyFields {
        fields.sort_by(|a, b| a.0.cmp(&b.0));
        KeyFields(fields)
    }

    pub fn fields(&self) -> &[(String, Value)] {
        &self.0
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The value of key field `name`.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }
}

impl Ord for KeyFields {
    /// `FieldList.Compare`: lexical over (name, value) pairs, shorter first.
    fn cmp(&self, other: &Self) -> Ordering {
        for ((an, av), (bn, bv)) in self.0.iter().zip(&other.0) {
            let c = an.cmp(bn).then_with(|| value::compare(av, bv));
            if c != Ordering::Equal {
                return c;
            }
        }
        self.0.len().cmp(&other.0.len())
    }
}

impl PartialOrd for KeyFields {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for KeyFields {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for KeyFields {}

/// One step of a [`super::Path`]. Variant order is upstream's: field names sort before
/// keys, keys before values, values before indexes.
#[derive(Clone, Debug)]
pub enum PathElement {
    /// A field of a map or struct (`f:<name>`).
    FieldName(String),
    /// An item of an associative list (`x-kubernetes-list-type: map`) by its keys
    /// (`k:{...}`).
    Key(KeyFields),
    /// An item of a set (`x-kubernetes-list-type: set`) by its value (`v:<json>`).
    Value(Value),
    /// An item of an atomic list by position (`i:<n>`).
    Index(i64),
}

impl PathElement {
    pub fn field(name: impl Into<String>) -> PathElement {
        PathElement::FieldName(name.into())
    }

    /// A key element from (name, value) pairs in any order.
    pub fn key(fields: Vec<(String, Value)>) -> PathElement {
        PathElement::Key(KeyFields::new(fields))
    }

    fn rank(&self) -> u8 {
        match self {
            PathElement::FieldName(_) => 0,
            PathElement::Key(_) => 1,
            PathElement::Value(_) => 2,
            PathElement::Index(_) => 3,
        }
    }
}

impl Ord for PathElement {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self, other) {
            (PathElement::FieldName(a), PathElement::FieldName(b)) => a.cmp(b),
            (PathElement::Key(a), PathElement::Key(b)) => a.cmp(b),
            (PathElement::Value(a), PathElement::Value(b)) => value::compare(a, b),
            (PathElement::Index(a), PathElement::Index(b)) => a.cmp(b),
            _ => self.rank().cmp(&other.rank()),
        }
    }
}

impl PartialOrd for PathElement {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for PathElement {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for PathElement {}

impl fmt::Display for PathElement {
    /// Upstream's `PathElement.String`: `.name`, `[k=v,k2=v2]`, `[=v]`, `[3]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PathElement::FieldName(name) => write!(f, ".{name}"),
            PathElement::Key(key) => {
                let parts: Vec<String> = key
                    .0
                    .iter()
                    .map(|(n, v)| format!("{n}={}", value::to_string(v)))
                    .collect();
                write!(f, "[{}]", parts.join(","))
            }
            PathElement::Value(v) => write!(f, "[={}]", value::to_string(v)),
            PathElement::Index(i) => write!(f, "[{i}]"),
        }
    }
}
