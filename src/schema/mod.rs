//! Admission by a CRD version's structural schema: the compiled schema, pruning,
//! defaulting, validation (with ratcheting), CEL validation rules and the structural
//! check run at load, and the schema as field management's type (`typed`).

pub mod default;
pub mod default_check;
pub mod node;
pub mod prune;
pub mod rules;

pub mod scale;
pub mod structural;
pub mod typed;
pub mod validate;

pub use node::{Additional, ListType, MapType, Pattern, Schema, SchemaType};
