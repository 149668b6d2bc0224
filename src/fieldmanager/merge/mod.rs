//! The updater of structured-merge-diff's `merge` package: who owns what after an update
//! or an apply, the object an apply produces, and apply's conflicts.
//!
//! # Layout
//!
//! - `conflict`: [`Conflict`], [`Conflicts`] with upstream's texts.
//! - `update`: [`Updater::update`] and the steps both operations share: every manager's
//!   set reconciled with schema changes (nodes made atomic), then ownership.
//! - `apply`: [`Updater::apply`] and the pruning of fields a manager stopped applying.
//!
//! Objects are held at an API version; the [`Converter`] gives each version's type and
//! converts objects between versions, so managers recorded at other versions are compared
//! in their own version (upstream's `Converter`).

mod apply;
mod conflict;
mod update;

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;

use serde_json::Value;

use super::fieldpath::Set;
use super::typed::TypeRef;

pub use conflict::{Conflict, Conflicts};

/// The types of an object's versions and conversion between them.
pub trait Converter {
    /// The type of the object at `version`; `None` when the version is not served
    /// (upstream's missing-version error: managers at that version are dropped).
    fn type_at(&self, version: &str) -> Option<&TypeRef>;

    /// `object`, held at version `from`, as seen at version `to` (served).
    fn convert(&self, object: &Value, from: &str, to: &str) -> Result<Value, String>;
}

/// A filter applied to the fields recorded for a version: what a manager may own
/// there (kube's reset fields: `.status` for the main resource, all but `.status` for
/// the status subresource). It may borrow the sets it filters with, which are derived
/// once per served resource.
pub type Filter<'c> = Box<dyn Fn(&Set) -> Set + Send + Sync + 'c>;

/// Why an update or apply failed.
#[derive(Debug)]
pub enum Error {
    /// The applied fields are owned by other managers with other values.
    Conflicts(Conflicts),
    /// A walk or conversion failed; the text is upstream's (`failed to merge config: ...`).
    Failed(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Conflicts(c) => write!(f, "{c}"),
            Error::Failed(text) => f.write_str(text),
        }
    }
}

impl std::error::Error for Error {}

/// Computes managed fields after an update or apply (upstream's `Updater`).
pub struct Updater<'c> {
    pub converter: &'c dyn Converter,
    /// Per version, the filter of fields managers may own (`IgnoreFilter`).
    pub ignore: BTreeMap<String, Filter<'c>>,
    /// Return the merged object even when an apply changes nothing (otherwise `None`).
    pub return_input_on_noop: bool,
}

impl<'c> Updater<'c> {
    pub fn new(converter: &'c dyn Converter) -> Updater<'c> {
        Updater {
            converter,
            ignore: BTreeMap::new(),
            return_input_on_noop: false,
        }
    }

    fn type_at(&self, version: &str) -> Result<&'c TypeRef, Error> {
        self.converter
            .type_at(version)
            .ok_or_else(|| Error::Failed(format!("no schema for version {version:?}")))
    }

    /// `value` (at `from`) at version `to`; `None` when `to` is not served.
    fn at<'v>(&self, value: &'v Value, from: &str, to: &str) -> Result<Option<At<'v, 'c>>, String> {
        let Some(ty) = self.converter.type_at(to) else {
            return Ok(None);
        };
        let value = if from == to {
            Cow::Borrowed(value)
        } else {
            Cow::Owned(self.converter.convert(value, from, to)?)
        };
        Ok(Some(At { value, ty }))
    }

    fn filter(&self, version: &str, set: Set) -> Set {
        match self.ignore.get(version) {
            Some(f) => f(&set),
            None => set,
        }
    }
}

/// A value converted to a version, with that version's type.
struct At<'v, 'c> {
    value: Cow<'v, Value>,
    ty: &'c TypeRef,
}

#[cfg(test)]
mod tests;
