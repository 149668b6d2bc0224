//! Static cost estimation and the run-time cost of calls, as cel-go and kube compute them.
//!
//! - [`estimate`]: cel-go `checker.Cost` with kube's options (`PresenceTestHasCost(false)`,
//!   the extensions' overload estimators, kube's library estimator) and kube's schema
//!   size estimator (apiextensions `compilation.go`).
//! - [`call_cost`]: the run-time cost of one call (cel-go `CostTracker.costCall` with the
//!   extensions' trackers and kube's `CallCost`).
//! - [`budget`]: what kube does with the numbers: cardinality, per-rule cost and the
//!   budget error text.

pub mod arith;
pub mod budget;
mod calls;
mod estimator;
mod ext;
mod kube;
mod runtime;
mod runtime_kube;
mod schema_sizes;
mod sizes;

#[cfg(test)]
mod tests;

pub use arith::{CostEstimate, SizeEstimate};
pub use runtime::{actual_size, call_cost};
pub use schema_sizes::SchemaSizes;

use super::ast::ExprKind;
use super::checked::Checked;
use super::decl::DeclType;
use super::env::Env;
use super::types::Type;

/// kube's `celconfig.PerCallLimit`: the run-time cost limit of one evaluation.
pub const PER_CALL_LIMIT: u64 = 1_000_000;
/// kube's `celconfig.RuntimeCELCostBudget`: the run-time budget of one object.
pub const RUNTIME_CEL_COST_BUDGET: u64 = 10_000_000;

/// Bounds the size of values the expression cannot see (cel-go `CostEstimator.EstimateSize`).
pub trait SizeEstimator {
    /// The size of the node at `path` (its first element the variable), of type `ty`.
    fn estimate_size(&self, path: &[String], ty: &Type) -> Option<SizeEstimate>;
}

/// The estimated cost of a checked rule, sizes bounded by the schema of `self`
/// (found among the checked declarations).
pub fn estimate(checked: &Checked, _env: &Env) -> CostEstimate {
    let root = scope_decl(checked);
    estimate_with(checked, &SchemaSizes::new(root))
}

/// The estimated cost with sizes from the rule's scope declaration. kube resolves every
/// path from the scope, even paths that do not start at `self`, so callers that know
/// the scope should pass it (a rule need not mention `self`).
pub fn estimate_with_root(checked: &Checked, root: Option<&DeclType>) -> CostEstimate {
    estimate_with(checked, &SchemaSizes::new(root))
}

/// The estimated cost with any size estimator.
pub fn estimate_with(checked: &Checked, sizer: &dyn SizeEstimator) -> CostEstimate {
    estimator::Coster::new(checked, sizer).cost(&checked.ast.expr)
}

/// The declaration of `self` (or `oldSelf`) as the checker recorded it.
fn scope_decl(checked: &Checked) -> Option<&DeclType> {
    let mut found = None;
    checked.ast.expr.visit(&mut |e| {
        if found.is_none()
            && let ExprKind::Ident(name) = &e.kind
            && (name == "self" || name == "oldSelf")
        {
            found = checked.decls.get(&e.id).map(|d| &**d);
        }
    });
    found
}
