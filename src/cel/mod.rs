//! CEL for CRD validation rules (`x-kubernetes-validations`) and admission expressions
//! (webhooks' `matchConditions`): parse, type-check against the schema or the admission
//! variables, estimate cost, and evaluate with kube's environment, costs and texts.
//!
//! # Engine choice
//! kube's verdicts (which rules a CRD may carry), its cost numbers and its error strings
//! come from cel-go's checker, cost estimator and interpreter plus k8s.io/apiserver's
//! libraries. No Rust crate has a checker, kube's cost model or a run-time cost hook
//! (`../shared/research/cel-engines.md`), so those are ours; the `cel` crate is used
//! only as the parser, because its ANTLR grammar is cel-go's and its syntax errors read
//! the same. Its tree is converted at once into [`ast`] (with macros expanded as cel-go
//! expands them), which keeps the parser replaceable.
//!
//! # Layout (one stage each)
//! - [`parse`]: source → [`ast::Ast`], macros expanded, cel-go's syntax error texts.
//! - [`types`], [`decl`]: CEL types, and the declaration types derived from a schema,
//!   which the engine sees only through its own [`schema::Schema`] trait.
//! - [`check`]: type checking → [`checked::Checked`], cel-go's compile error texts.
//! - [`cost`]: static cost estimate (cel-go `checker/cost.go` + k8s `library/cost.go`)
//!   and the run-time cost of each call.
//! - [`eval`]: the checked expression planned once into a tree of resolved steps, then
//!   evaluated against [`value::Value`]s with cel-go's run-time cost accounting.
//! - [`program`]: one rule or messageExpression compiled for a schema node;
//!   [`admission`]: one admission expression compiled against kube's admission variables.
//! - [`functions`]: overload signatures and implementations keyed by cel-go ids;
//!   [`stdlib`]: the standard definitions; [`lib`]: the Kubernetes libraries and the
//!   cel-go extensions kube enables; [`env`]: the environment of stored CRD rules.

pub mod admission;
pub mod ast;
pub mod check;
pub mod checked;
#[cfg(test)]
mod conformance;
pub mod cost;
pub mod decl;
pub mod env;
pub mod eval;
pub mod functions;
pub mod lib;
pub mod mutation;
pub mod parse;
pub mod program;
pub mod schema;

pub mod stdlib;
pub mod types;
pub mod value;
