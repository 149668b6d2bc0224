//! Evaluating a policy's expressions (k8s.io/apiserver `pkg/admission/plugin/cel/
//! activation.go` and `composition.go`'s `compositionContext`): the bindings converted
//! once per request, and per evaluation context (kube's `ForInput`: one group of
//! expressions) the composited variables, each evaluated on its first access and at
//! most once, its cost reported to the context and charged to the remaining budget
//! after the expression that read it (`GetAndResetCost`).

use std::time::{Duration, Instant};

use serde_json::Value as Json;

use crate::cel::decl::DeclType;
use crate::cel::eval::{CostTracker, Lazy, try_from_json};
use crate::cel::value::{EvalError, Value};
use crate::gofmt::quote;

use super::composition::{Composition, PolicyExpression, SLOTS};

/// kube's `celconfig.PerCallLimit`: the cost one expression may spend.
pub const PER_CALL_LIMIT: u64 = 1_000_000;
/// kube's `celconfig.RuntimeCELCostBudget`: what one policy's evaluation (one binding,
/// one param) may spend.
pub const RUNTIME_CEL_COST_BUDGET: u64 = 10_000_000;
/// kube's `celconfig.RuntimeCELCostBudgetMatchConditions`.
pub const RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS: u64 = 2_500_000;

/// kube's `ErrOutOfBudget` detail.
pub const OUT_OF_BUDGET: &str =
    "validation failed due to running out of cost budget, no further validation rules will be run";

/// The budget ran out: kube stops evaluating the group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutOfBudget;

impl std::fmt::Display for OutOfBudget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(OUT_OF_BUDGET)
    }
}

impl std::error::Error for OutOfBudget {}

/// What the expressions of one request see: JSON as the request carries it (`None` is
/// `null`), the request in kube's `AdmissionRequest` wire form, and the authorizer
/// values of [`crate::cel::lib::authz`] when the group binds them.
pub struct Bindings<'a> {
    pub object: Option<&'a Json>,
    pub old_object: Option<&'a Json>,
    pub params: Option<&'a Json>,
    pub namespace_object: Option<&'a Json>,
    pub request: &'a Json,
    /// `authorizer` and `authorizer.requestResource`.
    pub authorizer: Option<(Value<'a>, Value<'a>)>,
}

/// The bindings as CEL values, in slot order.
pub struct Values<'a>(Vec<Value<'a>>);

impl<'a> Values<'a> {
    /// kube binds every JSON variable as cel-go's adapter reads decoded JSON, whatever
    /// its declared type (`SchemalessTypedToVal`).
    pub fn new(b: &Bindings<'a>) -> Result<Values<'a>, EvalError> {
        let dynamic = |v: Option<&'a Json>| match v {
            Some(json) => try_from_json(json, DeclType::dyn_json()),
            None => Ok(Value::Null),
        };
        let (authorizer, request_resource) =
            b.authorizer.clone().unwrap_or((Value::Null, Value::Null));
        let mut values = Vec::with_capacity(SLOTS.len());
        values.push(dynamic(b.object)?);
        values.push(dynamic(b.old_object)?);
        values.push(dynamic(b.namespace_object)?);
        values.push(dynamic(Some(b.request))?);
        values.push(authorizer);
        values.push(request_resource);
        values.push(dynamic(b.params)?);
        values.push(Value::Null);
        Ok(Values(values))
    }
}

/// One expression's outcome: its value or kube's error text (`compilation error: ...`,
/// `expression '<e>' resulted in error: ...`), and how long it took.
#[derive(Debug)]
pub struct Evaluation<'a> {
    pub result: Result<Value<'a>, String>,
    pub elapsed: Duration,
}

/// One evaluation context (kube's `compositionContext` with its lazy `variables`).
pub struct Context<'c, 'v, 'a> {
    composition: &'c Composition,
    values: &'v [Value<'a>],
    cache: Vec<Option<Result<Value<'a>, EvalError>>>,
    /// The variables' cost not yet charged to the budget.
    cost: u64,
}

impl<'c, 'v, 'a> Context<'c, 'v, 'a> {
    pub fn new(composition: &'c Composition, values: &'v Values<'a>) -> Self {
        Context {
            composition,
            values: &values.0,
            cache: Vec::new(),
            cost: 0,
        }
    }

    /// kube's `evaluationActivation.Evaluate`: the expression within `PER_CALL_LIMIT`,
    /// then the variables' cost and its own taken from `remaining`; running out of it
    /// stops the group.
    pub fn evaluate(
        &mut self,
        expression: &PolicyExpression,
        remaining: &mut u64,
    ) -> Result<Evaluation<'a>, OutOfBudget> {
        let program = match &expression.program {
            Ok(program) => program,
            Err(e) => {
                return Ok(Evaluation {
                    result: Err(format!("compilation error: {e}")),
                    elapsed: Duration::ZERO,
                });
            }
        };
        let start = Instant::now();
        let mut tracker = per_call();
        let values = self.values;
        let result = program.plan.evaluate_lazy(values, &mut tracker, self);
        let composition_cost = std::mem::take(&mut self.cost);
        *remaining = remaining.checked_sub(composition_cost).ok_or(OutOfBudget)?;
        let elapsed = start.elapsed();
        *remaining = remaining.checked_sub(tracker.actual).ok_or(OutOfBudget)?;
        let result = result.map_err(|e| {
            let source = &expression.source;
            format!("expression '{source}' resulted in error: {e}")
        });
        Ok(Evaluation { result, elapsed })
    }

    fn variable(&mut self, index: usize) -> Result<Value<'a>, EvalError> {
        let composition = self.composition;
        let Some(variable) = composition.variables.get(index) else {
            return Err(EvalError::new("no such key"));
        };
        let name = quote(&variable.name);
        let program = match &variable.expression.program {
            Ok(program) => program,
            Err(e) => {
                let message = format!("composited variable {name} fails to compile: {e}");
                return Err(EvalError::new(message));
            }
        };
        let mut tracker = per_call();
        let values = self.values;
        let result = program.plan.evaluate_lazy(values, &mut tracker, self);
        self.cost = self.cost.saturating_add(tracker.actual);
        result.map_err(|e| {
            EvalError::new(format!("composited variable {name} fails to evaluate: {e}"))
        })
    }
}

impl<'a> Lazy<'a> for Context<'_, '_, 'a> {
    fn field(&mut self, name: &str) -> Option<Result<Value<'a>, EvalError>> {
        let variables = &self.composition.variables;
        let index = variables.iter().position(|v| v.name == name)?;
        if self.cache.len() < variables.len() {
            self.cache.resize(variables.len(), None);
        }
        if let Some(Some(cached)) = self.cache.get(index) {
            return Some(cached.clone());
        }
        let value = self.variable(index);
        if let Some(slot) = self.cache.get_mut(index) {
            *slot = Some(value.clone());
        }
        Some(value)
    }
}

fn per_call() -> CostTracker {
    CostTracker {
        actual: 0,
        limit: Some(PER_CALL_LIMIT),
    }
}
