//! Leaf text checks shared by the structural schema and the CEL engine: Go's regexp syntax
//! (`goregex`), Go patterns as the `regex` crate reads them (`pattern`), and the OpenAPI
//! `format:` checks kube-apiserver makes (`strfmt`). Imports only `gofmt`.
//!
//! # Layout
//! - `goregex`: Go's `regexp/syntax` check, with Go's error texts (`pattern` keywords at
//!   load, `matches()`/`find()` arguments in CEL).
//! - `pattern`: Go pattern syntax rewritten for the `regex` crate, same matches.
//! - `strfmt`: the string and number formats (kube-openapi `pkg/validation/strfmt` and
//!   apiextensions-apiserver's `formats.go`), used by schema validation and CEL's
//!   `format` library.

pub mod goregex;
pub mod pattern;
pub mod strfmt;
