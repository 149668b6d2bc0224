//! Table tests of the checker (cases from cel-go `checker_test.go` and apiextensions
//! `compilation_test.go`), over trees built by hand with their source positions.

mod builder;
mod errors;
mod exprs;
mod oracle;
mod parsed;
mod schema;
