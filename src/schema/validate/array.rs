//! kube-openapi's slice validator: every item against `items` (correlated by list-map
//! keys when ratcheting), then minItems, maxItems and uniqueItems.

use serde_json::Value;

use super::path::Seg;
use super::ratchet::ListIndex;
use super::result::{Kind, Outcome};
use super::walk::Walker;
use crate::schema::Schema;

pub(super) fn check<'v>(
    w: &mut Walker<'v>,
    s: &'v Schema,
    items: &'v [Value],
    old: Option<&'v Value>,
) -> Outcome<'v> {
    let mut res = Outcome::default();
    if let Some(item_schema) = &s.items {
        let index = old.and_then(|old| ListIndex::new(s, old));
        for (i, item) in items.iter().enumerate() {
            let corr = index.as_ref().and_then(|index| index.get(item));
            w.trail.push(Seg::Index(i));
            let one = w.node(item_schema, item, corr);
            w.trail.pop();
            res.merge(one);
        }
    }
    let len = items.len();
    let count = i64::try_from(len).unwrap_or(i64::MAX);
    if let Some(min) = s.min_items
        && count < min
    {
        res.add(w.issue(Kind::TooFew(len, min, "items")));
    }
    if let Some(max) = s.max_items
        && count > max
    {
        res.add(w.issue(Kind::TooMany(len, max, "items")));
    }
    if s.unique_items && has_duplicates(items) {
        let text = "shouldn't contain duplicates".to_string();
        res.add(w.issue(Kind::Body("\"\"".to_string(), text)));
    }
    res.inc();
    res
}

/// `reflect.DeepEqual` between any two items.
fn has_duplicates(items: &[Value]) -> bool {
    items
        .iter()
        .enumerate()
        .any(|(i, a)| items[..i].iter().any(|b| a == b))
}
