//! Ratcheting of rule failures (kube's `ratchetingOptions` over `CorrelatedObject`): a
//! rule without `oldSelf` that fails on a value equal to its correlated old value (or,
//! where the value does not correlate, on an unchanged nearest correlated ancestor) is
//! only a warning.

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

    /// Item `new` of the current list: correlated by key in list-maps only.
    pub fn index(&self, new: &'v Value) -> Correlation<'v> {
        let Some(current) = self.current else {
            return *self;
        };
        let child = current.schema.items.as_deref().and_then(|schema| {
            let old = ListIndex::new(current.schema, current.old)?.get(new)?;
            Some(Pair { new, old, schema })
        });
        Correlation {
            current: child,
            parent: Some(current),
        }
    }

    /// kube's `shouldRatchetError`.
    pub fn unchanged(&self) -> bool {
        self.current
            .or(self.parent)
            .is_some_and(|p| deep_equal(p.schema, p.new, p.old))
    }
}

/// The old item of a list-map with the same keys as `item`.
pub(super) fn list_map_match<'v>(
    schema: &Schema,
    old: &'v Value,
    item: &Value,
) -> Option<&'v Value> {
    ListIndex::new(schema, old)?.get(item)
}
