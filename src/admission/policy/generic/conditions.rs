//! A policy's `matchConditions` (kube's `matchconditions.matcher.Match` over the
//! policy's composited environment), shared by both policy kinds: every condition
//! evaluated within kube's `RuntimeCELCostBudgetMatchConditions` (its `ForInput`), then
//! any false → no match, else errors → no match under `Ignore`, the aggregated error
//! under `Fail`.

use crate::admission::failure::FailurePolicy;
use crate::cel::admission::composition::{Composition, PolicyExpression};
use crate::cel::admission::context::{Context, RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS, Values};
use crate::cel::value::{EvalError, Value};
use crate::error::aggregate_messages;

/// Whether the conditions (by name) match the request whose variables are `values`.
pub fn matches(
    composition: &Composition,
    conditions: &[(String, PolicyExpression)],
    values: Result<Values<'_>, EvalError>,
    failure_policy: FailurePolicy,
) -> Result<bool, String> {
    if conditions.is_empty() {
        return Ok(true);
    }
    let ignore = failure_policy == FailurePolicy::Ignore;
    let Ok(values) = values else {
        return match ignore {
            true => Ok(false),
            false => Err("failed to prepare object variable for evaluation".into()),
        };
    };
    let mut remaining = RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS;
    let mut context = Context::new(composition, &values);
    let mut results = Vec::with_capacity(conditions.len());
    for (_, condition) in conditions {
        match context.evaluate(condition, &mut remaining) {
            Ok(evaluation) => results.push(evaluation.result),
            Err(_) if ignore => return Ok(false),
            Err(out_of_budget) => return Err(out_of_budget.to_string()),
        }
    }
    let mut errors = Vec::new();
    for result in results {
        match result {
            Ok(Value::Bool(false)) => return Ok(false),
            Err(e) => errors.push(e),
            Ok(_) => {}
        }
    }
    match errors.is_empty() {
        true => Ok(true),
        false if ignore => Ok(false),
        false => Err(aggregate_messages(errors)),
    }
}
