//! Field paths and sets of them (structured-merge-diff's `fieldpath` package).
//!
//! # Layout
//!
//! - `element`: [`PathElement`] (field, list-map key, set value, index) and [`KeyFields`],
//!   ordered as upstream's `PathElement.Compare`.
//! - `path`: [`Path`], a sequence of elements.
//! - `set`: [`Set`], a tree of member paths; `algebra`: union, intersection, difference,
//!   recursive difference, leaves.
//! - `serialize`: a [`Set`] as `fieldsV1` JSON and back.
//! - `serialize_pe`: one element as a `fieldsV1` key (`f:`, `k:`, `v:`, `i:`).
//! - `managers`: [`ManagedFields`] and [`VersionedSet`].

mod algebra;
mod element;
mod managers;
mod path;
#[cfg(test)]
mod path_managers_tests;
mod serialize;
mod serialize_pe;
mod set;
#[cfg(test)]
mod set_tests;
#[cfg(test)]
pub(crate) mod testutil;

pub use element::{KeyFields, PathElement};
pub use managers::{ManagedFields, VersionedSet};
pub use path::Path;
pub use serialize::FieldsV1Error;
pub use serialize_pe::{PathElementError, deserialize_path_element, serialize_path_element};
pub use set::Set;
