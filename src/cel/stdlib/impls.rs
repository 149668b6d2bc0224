//! Implementations of the standard operators and functions.

use crate::cel::functions::Impl;

pub(super) fn impls() -> Vec<(&'static str, Impl)> {
    Vec::new()
}
