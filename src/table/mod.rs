//! Server-side printing: `meta.k8s.io/v1` Table from printer columns (JSONPath) and Age.
//!
//! # Layout
//!
//! - [`convert`]: [`PrinterColumn`]s compiled into a [`TableConvertor`] (header and cells).
//! - [`render`]: the Table document, `includeObject` and header suppression for watches.
//! - [`jsonpath`]: client-go's JSONPath templates, parsed once and evaluated per object.
//! - [`duration`], [`timestamp`]: `HumanDuration` and `metav1.Time` parsing for ages.
//! - `partial`: the `PartialObjectMetadata` a row embeds (Go-compatible text is [`crate::gofmt`]).

pub mod convert;
pub mod duration;
pub mod jsonpath;
mod partial;
pub mod render;
#[cfg(test)]
mod tests;
pub mod timestamp;

pub use convert::{
    CREATION_TIMESTAMP_DESCRIPTION, NAME_DESCRIPTION, PrinterColumn, TableConvertor,
};
pub use duration::human_duration;
pub use render::{IncludeObject, MetaVersion, TableOptions};
