//! kube-openapi's object validator: min/maxProperties, then keys outside `properties`
//! (forbidden, or validated by the `additionalProperties` schema), then each present
//! property, then `required`.

use serde_json::{Map, Value};

use super::path::Seg;
use super::ratchet;
use super::result::{Kind, Outcome};
use super::walk::Walker;
use crate::schema::{Additional, Schema};

pub(super) fn check<'v>(
    w: &mut Walker<'v>,
    s: &'v Schema,
    map: &'v Map<String, Value>,
    old: Option<&'v Value>,
) -> Outcome<'v> {
    let mut res = Outcome::default();
    let len = map.len();
    let count = i64::try_from(len).unwrap_or(i64::MAX);
    if let Some(min) = s.min_properties
        && count < min
    {
        res.add(w.issue(Kind::TooFew(len, min, "properties")));
    }
    if let Some(max) = s.max_properties
        && count > max
    {
        res.add(w.issue(Kind::TooMany(len, max, "properties")));
    }
    match &s.additional_properties {
        Some(Additional::Allowed(false)) => {
            for key in map.keys().filter(|k| !s.properties.contains_key(*k)) {
                res.add(w.issue(Kind::Forbidden(key)));
            }
        }
        Some(Additional::Schema(extra)) => {
            for (key, value) in map.iter().filter(|(k, _)| !s.properties.contains_key(*k)) {
                let corr = old.and_then(|old| ratchet::key_corr(s, old, key, w.trail.is_root()));
                w.trail.push(Seg::Addl(key));
                let one = w.node(extra, value, corr);
                w.trail.pop();
                res.merge(one);
            }
        }
        _ => {}
    }
    for (name, prop) in &s.properties {
        if let Some(value) = map.get(name) {
            let corr = old.and_then(|old| ratchet::key_corr(s, old, name, w.trail.is_root()));
            w.trail.push(Seg::Prop(name));
            let one = w.node(prop, value, corr);
            w.trail.pop();
            res.merge(one);
        }
    }
    for key in s.required.iter().filter(|k| !map.contains_key(*k)) {
        res.add(w.issue(Kind::Required(key)));
    }
    res
}
