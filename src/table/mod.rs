//! Server-side printing: `meta.k8s.io/v1` Table from printer columns (JSONPath) and Age.
//!
//! # Layout
//!
//! - [`convert`]: [`PrinterColumn`]s compiled into a [`TableConvertor`] (header and cells).
//! - [`render`]: the Table document, `includeObject` and header suppression for watches.
//! - [`jsonpath`]: client-go's JSONPath templates, parsed once and evaluated per object.
//! - [`duration`], [`timestamp`]: `HumanDuration` and `metav1.Time` parsing for ages.
//! - `partial`: the `PartialObjectMetadata` a row embeds (Go-compatible text is [`crate::gofmt`]).
//! - [`transform`]: responses converted as the Accept header asks (Table,
//!   `PartialObjectMetadata`, `PartialObjectMetadataList`).

use crate::gofmt;

pub mod convert;
pub mod duration;
pub mod jsonpath;
mod partial;
pub mod render;
#[cfg(test)]
mod tests;
pub mod timestamp;
pub mod transform;

pub use convert::{
    CREATION_TIMESTAMP_DESCRIPTION, NAME_DESCRIPTION, PrinterColumn, TableConvertor,
};
pub use duration::human_duration;
pub use render::{IncludeObject, TableOptions};
pub use transform::{Conversion, ListMeta, TransformError};

/// Why printer columns or a Table request are refused; the texts are upstream's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TableError {
    /// A printer column's `jsonPath` does not parse (found when the CRD is loaded).
    #[error(
        "unrecognized column definition {} in column {}: {error}",
        gofmt::quote(.json_path),
        gofmt::quote(.column)
    )]
    ColumnJsonPath {
        column: String,
        json_path: String,
        error: jsonpath::ParseError,
    },
    /// `?includeObject=` is not `Metadata`, `Object`, `None` or empty (a 400).
    #[error(
        "Unable to convert to Table as requested: includeObject: Invalid value: {}: \
         must be 'Metadata', 'Object', 'None', or empty",
        gofmt::quote(.0)
    )]
    IncludeObject(String),
}
