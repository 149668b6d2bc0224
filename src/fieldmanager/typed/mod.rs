//! Values typed by a CRD version's schema (structured-merge-diff's `typed` package): the
//! schema model, and the walks over one or two values that field management is made of.
//!
//! # Layout
//!
//! - `atom`: [`TypeRef`], [`Atom`] and the shared deduced / untyped-atomic types.
//! - `objectmeta`: TypeMeta and ObjectMeta as smd types ([`object_meta`], [`add_type_meta`]);
//!   a CRD schema as an smd type is `crate::schema::typed`.
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
mod element;
mod errors;
mod merge;
mod objectmeta;
mod reconcile;
mod remove;
mod scale;
mod tofieldset;
mod validate;

pub use atom::{Atom, Field, Form, List, Map, Scalar, TypeRef};
pub use compare::{Comparison, compare};
pub use errors::{ValidationError, ValidationErrors};
pub use merge::merge;
pub use objectmeta::{add_type_meta, object_meta};
pub use reconcile::reconcile_field_set_with_schema;
pub use remove::{ensure_named_fields_are_members, extract_items, remove_items};
pub use scale::{SCALE_API_VERSION, SCALE_KIND, ScaleConverter, scale_type};
pub use tofieldset::to_field_set;
pub use validate::validate;

#[cfg(test)]
pub(crate) mod tests;
