//! Values typed by a CRD version's schema (structured-merge-diff's `typed` package): the
//! schema model, and the walks over one or two values that field management is made of.
//!
//! # Layout
//!
//! - `atom`: [`TypeRef`], [`Atom`] and the shared deduced / untyped-atomic types.
//! - `convert`: a CRD schema as an smd type ([`resource_type`], [`schema_type`]).
//! - `element`: the path element of an associative-list item.
//! - `errors`: [`ValidationErrors`] with upstream's texts.
//! - `validate`: [`validate`]; `tofieldset`: [`to_field_set`].
//! - `compare`: [`compare`] into a [`Comparison`]; `merge`: [`merge`].
//! - `remove`: [`remove_items`], [`extract_items`], [`ensure_named_fields_are_members`].
//! - `reconcile`: [`reconcile_field_set_with_schema`] after a schema change.
//!
//! Values are `serde_json::Value`; an absent value is `None`, distinct from `null`.

mod atom;
mod compare;
mod convert;
mod element;
mod errors;
mod merge;
mod reconcile;
mod remove;
mod scale;
mod tofieldset;
mod validate;

pub use atom::{Atom, Field, Form, List, Map, Scalar, TypeRef};
pub use compare::{Comparison, compare};
pub use convert::{resource_type, schema_type};
pub use errors::{ValidationError, ValidationErrors};
pub use merge::merge;
pub use reconcile::reconcile_field_set_with_schema;
pub use remove::{ensure_named_fields_are_members, extract_items, remove_items};
pub use scale::{SCALE_API_VERSION, SCALE_KIND, ScaleConverter, scale_type};
pub use tofieldset::to_field_set;
pub use validate::validate;

#[cfg(test)]
pub(crate) mod tests;
