//! Ratcheting of rule failures (kube's `ratchetingOptions` over `CorrelatedObject`): a
//! rule without `oldSelf` that fails on a value equal to its correlated old value (or,
//! where the value does not correlate, on an unchanged nearest correlated ancestor) is
//! only a warning.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use crate::schema::Schema;
use crate::schema::validate::ratchet::{ListIndex, deep_equal, key_corr};

#[derive(Clone, Copy)]
struct Pair<'v> {
    new: &'v Value,
    old: &'v Value,
    schema: &'v Schema,
}

/// The correlation of the node being validated and of its nearest correlated parent.
#[derive(Clone, Copy, Default)]
pub(super) struct Correlation<'v> {
    current: Option<Pair<'v>>,
    parent: Option<Pair<'v>>,
}

impl<'v> Correlation<'v> {
    /// The root of an update; on create nothing correlates.
    pub fn root(schema: &'v Schema, new: &'v Value, old: Option<&'v Value>) -> Correlation<'v> {
        Correlation {
            current: old.map(|old| Pair { new, old, schema }),
            parent: None,
        }
    }

    /// For allOf branches: only the parent's correlation counts.
    pub fn without_current(&self) -> Correlation<'v> {
        Correlation {
            current: None,
            parent: self.parent,
        }
    }

    /// The field `key` of the current object.
    pub fn key(&self, key: &str, new: &'v Value) -> Correlation<'v> {
        let Some(current) = self.current else {
            return *self;
        };
        let at_root = self.parent.is_none();
        if at_root && (key == "apiVersion" || key == "kind") {
            return Correlation::default();
        }
        let child = key_corr(current.schema, current.old, key, at_root)
            .zip(current.schema.property(key))
            .map(|(old, schema)| Pair { new, old, schema });
        Correlation {
            current: child,
            parent: Some(current),
        }
    }

    /// The items of the current list, its old items indexed once for all of them.
    pub fn items(&self) -> Items<'v> {
        let index = self.current.and_then(|current| {
            let schema = current.schema.items.as_deref()?;
            Some((schema, ListIndex::new(current.schema, current.old)))
        });
        Items { list: *self, index }
    }

    /// kube's `shouldRatchetError`, each node compared once per request (kube's
    /// `CachedDeepEqual`): items of a list without keys all ask their parent list, and
    /// comparing it for each failing item would be quadratic.
    pub fn unchanged(&self, memo: &mut Memo) -> bool {
        let Some(p) = self.current.or(self.parent) else {
            return false;
        };
        let key = (
            std::ptr::from_ref(p.new) as usize,
            std::ptr::from_ref(p.old) as usize,
        );
        *memo
            .entry(key)
            .or_insert_with(|| deep_equal(p.schema, p.new, p.old))
    }
}

/// The correlation of a list's items: by key in list-maps only.
pub(super) struct Items<'v> {
    list: Correlation<'v>,
    /// The item schema and the old items by key, when the list correlates.
    index: Option<(&'v Schema, Option<ListIndex<'v, 'v>>)>,
}

impl<'v> Items<'v> {
    /// Item `new` of the list.
    pub fn item(&self, new: &'v Value) -> Correlation<'v> {
        let Some(current) = self.list.current else {
            return self.list;
        };
        let child = self.index.as_ref().and_then(|(schema, index)| {
            let old = index.as_ref()?.get(new)?;
            Some(Pair { new, old, schema })
        });
        Correlation {
            current: child,
            parent: Some(current),
        }
    }
}

/// Whether a (new, old) pair of nodes, by address, is unchanged.
pub(super) type Memo = HashMap<(usize, usize), bool>;

/// kube's warning recorder keeps nothing past 4096 runes of (cut) warnings, so neither
/// do we: a request failing a ratcheted rule a million times keeps a bounded list.
const WARNINGS_TOTAL_RUNES: usize = 4096;
const WARNING_ITEM_RUNES: usize = 256;

/// The ratcheted failures of one request, deduplicated and bounded.
#[derive(Default)]
pub(super) struct Warnings {
    seen: HashSet<String>,
    runes: usize,
    pub list: Vec<String>,
}

impl Warnings {
    pub fn push(&mut self, text: String) {
        if self.runes >= WARNINGS_TOTAL_RUNES || self.seen.contains(&text) {
            return;
        }
        self.runes += text.chars().count().min(WARNING_ITEM_RUNES);
        self.seen.insert(text.clone());
        self.list.push(text);
    }
}
