//! Implementations of the standard operators and functions, by cel-go overload id.

mod arith;
mod compare;
mod convert;
mod optional;
mod strings;
mod time;

use crate::cel::functions::Impl;

pub(super) fn impls() -> Vec<(&'static str, Impl)> {
    let mut all = arith::impls();
    all.extend(compare::impls());
    all.extend(convert::impls());
    all.extend(strings::impls());
    all.extend(time::impls());
    all.extend(optional::impls());
    all
}
