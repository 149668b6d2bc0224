//! Error lists of the embedded-resource and list-type passes, with a text budget, and
//! field paths rendered only when an error needs them.
//!
//! Deliberate deviation for pathological input (kube has no such cap): a map key of a
//! megabyte or more is repeated in the field of every error beneath it, so once a pass's
//! errors hold [`ERROR_TEXT_BUDGET`] bytes it stops looking for more. At least one error
//! is always kept, so a failing object still fails.

use std::cell::OnceCell;

use crate::error::FieldError;

/// Bytes of field and detail text one pass reports at most (plus the errors of the step
/// that crosses it): far above what a 3 MiB body yields without a long repeated key.
pub(super) const ERROR_TEXT_BUDGET: usize = 16 << 20;

/// The errors of one pass so far.
#[derive(Debug, Default)]
pub(super) struct Errors {
    list: Vec<FieldError>,
    bytes: usize,
}

impl Errors {
    /// Keeps `error` unless the budget is spent.
    pub(super) fn push(&mut self, error: FieldError) {
        if !self.full() {
            self.bytes += error.field.len() + error.detail.len();
            self.list.push(error);
        }
    }

    /// The budget is spent: walks stop before rendering another error.
    pub(super) fn full(&self) -> bool {
        self.bytes >= ERROR_TEXT_BUDGET
    }

    pub(super) fn into_vec(self) -> Vec<FieldError> {
        self.list
    }
}

/// A field path rendered on first use, so that values without errors never render the
/// path (which may hold a megabyte-long key) at all.
pub(super) struct LazyPath<'a> {
    render: &'a dyn Fn() -> String,
    text: OnceCell<String>,
}

impl<'a> LazyPath<'a> {
    pub(super) fn new(render: &'a dyn Fn() -> String) -> Self {
        LazyPath {
            render,
            text: OnceCell::new(),
        }
    }

    pub(super) fn get(&self) -> &str {
        self.text.get_or_init(self.render)
    }
}
