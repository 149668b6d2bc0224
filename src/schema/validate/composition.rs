//! kube-openapi's schema-props validator: anyOf, oneOf, allOf and not, each branch
//! validated without ratcheting at the same path. A failing anyOf/oneOf reports its
//! composite error plus the errors of the branch with the most passed checks.

use serde_json::Value;

use super::result::{Kind, Outcome, Plain};
use super::walk::Walker;
use crate::schema::Schema;

pub(super) fn check<'v>(w: &mut Walker<'v>, s: &'v Schema, v: &'v Value) -> Outcome<'v> {
    let mut main = Outcome::default();
    if !s.any_of.is_empty() {
        any_of(w, &s.any_of, v, &mut main);
    }
    if !s.one_of.is_empty() {
        one_of(w, &s.one_of, v, &mut main);
    }
    if !s.all_of.is_empty() {
        all_of(w, &s.all_of, v, &mut main);
    }
    if let Some(not) = &s.not
        && w.node(not, v, None).is_valid()
    {
        main.add(w.issue(Kind::Plain(Plain::Not)));
    }
    main.inc();
    main
}

/// The better of two failures: strictly more passed checks wins, ties keep the first.
fn keep_best<'v>(best: &mut Option<Outcome<'v>>, candidate: Outcome<'v>) {
    if best.as_ref().is_none_or(|b| candidate.matches > b.matches) {
        *best = Some(candidate);
    }
}

fn any_of<'v>(w: &mut Walker<'v>, branches: &'v [Schema], v: &'v Value, main: &mut Outcome<'v>) {
    let mut best = None;
    for branch in branches {
        let one = w.node(branch, v, None);
        if one.is_valid() {
            main.merge(one);
            return;
        }
        keep_best(&mut best, one);
    }
    main.add(w.issue(Kind::Plain(Plain::AnyOf)));
    if let Some(best) = best {
        main.merge(best);
    }
}

fn one_of<'v>(w: &mut Walker<'v>, branches: &'v [Schema], v: &'v Value, main: &mut Outcome<'v>) {
    let mut best = None;
    let mut first_success = None;
    let mut validated = 0;
    for branch in branches {
        let one = w.node(branch, v, None);
        if one.is_valid() {
            validated += 1;
            best = None;
            if first_success.is_none() {
                first_success = Some(one);
            }
        } else if validated == 0 {
            keep_best(&mut best, one);
        }
    }
    if validated == 1 {
        if let Some(success) = first_success {
            main.merge(success);
        }
        return;
    }
    main.add(w.issue(Kind::Plain(Plain::OneOf(validated))));
    if let Some(best) = best {
        main.merge(best);
    }
}

fn all_of<'v>(w: &mut Walker<'v>, branches: &'v [Schema], v: &'v Value, main: &mut Outcome<'v>) {
    let mut validated = 0;
    for branch in branches {
        let one = w.node(branch, v, None);
        if one.is_valid() {
            validated += 1;
        }
        main.merge(one);
    }
    if validated != branches.len() {
        main.add(w.issue(Kind::Plain(Plain::AllOf(validated == 0))));
    }
}
