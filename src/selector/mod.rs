//! Label and field selectors (`labelSelector`, `fieldSelector` query parameters): pure parsers.

pub mod field;
pub mod label;
