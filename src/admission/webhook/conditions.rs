//! A webhook's `matchConditions` (k8s.io/apiserver `pkg/admission/plugin/webhook/
//! matchconditions/matcher.go` over `pkg/admission/plugin/cel`): compiled once per
//! configuration with kube's admission environment, evaluated per request with kube's
//! cost rules (each expression bounded by `PerCallLimit`, all of a webhook's together
//! by `RuntimeCELCostBudgetMatchConditions`) and kube's outcome: any condition false →
//! no match, even if another errored; else any error → the error (which the dispatcher
//! answers per `failurePolicy`); else a match.

mod request;

#[cfg(test)]
mod tests;

use std::fmt;
use std::sync::Arc;

pub use crate::cel::lib::authz::{Answer, Attributes, Authorizer, Decision, User};
pub use request::{ConditionInput, Gvk, Gvr, authz_user, request_json};

use crate::cel::admission::{Activation, AdmissionProgram};
use crate::cel::eval::CostTracker;
use crate::cel::lib::authz::{authorizer_value, request_resource_value};
use crate::cel::value::Value;
use crate::error::aggregate_messages;

/// kube's `celconfig.PerCallLimit`: the cost one expression may spend.
pub const PER_CALL_LIMIT: u64 = 1_000_000;
/// kube's `celconfig.RuntimeCELCostBudgetMatchConditions`: what all of one webhook's
/// conditions may spend together on one request.
pub const RUNTIME_COST_BUDGET: u64 = 2_500_000;

const OUT_OF_BUDGET: &str =
    "validation failed due to running out of cost budget, no further validation rules will be run";

/// One webhook's compiled conditions.
#[derive(Debug)]
pub struct MatchConditions {
    conditions: Vec<Condition>,
}

#[derive(Debug)]
struct Condition {
    name: String,
    expression: String,
    /// The program, or kube's compile error detail.
    program: Result<AdmissionProgram, String>,
}

/// Why the conditions could not decide: kube's texts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConditionError {
    /// Conditions that failed to compile or evaluate, none false (kube's aggregate of
    /// `compilation error: ...` and `expression '<e>' resulted in error: ...`).
    Failed(Vec<String>),
    /// All conditions together spent more than [`RUNTIME_COST_BUDGET`].
    OutOfBudget,
}

impl fmt::Display for ConditionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConditionError::Failed(errors) => {
                f.write_str(&aggregate_messages(errors.iter().cloned()))
            }
            ConditionError::OutOfBudget => f.write_str(OUT_OF_BUDGET),
        }
    }
}

impl std::error::Error for ConditionError {}

/// One condition's outcome, before kube's matcher combines them.
enum Outcome {
    True,
    False,
    Error(String),
}

impl MatchConditions {
    /// Compiles `(name, expression)` pairs; a condition that does not compile is kept
    /// with its error, reported when the conditions are evaluated.
    pub fn compile(conditions: &[(String, String)]) -> MatchConditions {
        let env = crate::cel::env::stored();
        let conditions = conditions
            .iter()
            .map(|(name, expression)| Condition {
                name: name.clone(),
                expression: expression.clone(),
                program: AdmissionProgram::compile(&env, expression),
            })
            .collect();
        MatchConditions { conditions }
    }

    pub fn is_empty(&self) -> bool {
        self.conditions.is_empty()
    }

    /// `(name, error)` of each condition that failed to compile, to log once.
    pub fn compile_errors(&self) -> Vec<(&str, &str)> {
        self.conditions
            .iter()
            .filter_map(|c| {
                c.program
                    .as_ref()
                    .err()
                    .map(|e| (c.name.as_str(), e.as_str()))
            })
            .collect()
    }

    /// Whether the webhook is to be called for `input`. No conditions match. kube's
    /// plugin takes as many conditions as a configuration has (only the API's validation,
    /// on the host, limits them to 64; the reference evaluated 65), and so does this.
    pub fn evaluate(
        &self,
        input: &ConditionInput<'_>,
        authorizer: &Arc<dyn Authorizer>,
    ) -> Result<bool, ConditionError> {
        if self.conditions.is_empty() {
            return Ok(true);
        }
        let request = request_json(input);
        let activation = activation(input, &request, authorizer);
        let outcomes = self.run(&activation)?;
        let mut errors = Vec::new();
        for outcome in outcomes {
            match outcome {
                Outcome::False => return Ok(false),
                Outcome::Error(e) => errors.push(e),
                Outcome::True => {}
            }
        }
        if errors.is_empty() {
            Ok(true)
        } else {
            Err(ConditionError::Failed(errors))
        }
    }

    /// kube's `condition.ForInput`: every condition in order, within the budget.
    fn run(&self, activation: &Activation<'_>) -> Result<Vec<Outcome>, ConditionError> {
        let mut remaining = RUNTIME_COST_BUDGET;
        let mut outcomes = Vec::with_capacity(self.conditions.len());
        for condition in &self.conditions {
            let program = match &condition.program {
                Ok(program) => program,
                Err(e) => {
                    outcomes.push(Outcome::Error(format!("compilation error: {e}")));
                    continue;
                }
            };
            let mut tracker = CostTracker {
                actual: 0,
                limit: Some(PER_CALL_LIMIT),
            };
            let result = program.evaluate(activation, &mut tracker);
            if tracker.actual > remaining {
                return Err(ConditionError::OutOfBudget);
            }
            remaining -= tracker.actual;
            outcomes.push(match result {
                Ok(Value::Bool(true)) => Outcome::True,
                Ok(Value::Bool(false)) => Outcome::False,
                Ok(_) => Outcome::True,
                Err(e) => Outcome::Error(format!(
                    "expression '{}' resulted in error: {e}",
                    condition.expression
                )),
            });
        }
        Ok(outcomes)
    }
}

/// The variables: the objects and request as JSON, `namespaceObject` null (kube binds
/// no namespace for webhooks), the authorizer as the requesting user.
fn activation<'a>(
    input: &ConditionInput<'a>,
    request: &'a serde_json::Value,
    authorizer: &Arc<dyn Authorizer>,
) -> Activation<'a> {
    let user = authz_user(input.user);
    let resource = input.request_resource;
    let request_resource = request_resource_value(
        user.clone(),
        Arc::clone(authorizer),
        [
            resource.group,
            resource.resource,
            input.sub_resource,
            input.namespace,
            input.name,
        ],
    );
    Activation {
        object: input.object,
        old_object: input.old_object,
        namespace_object: None,
        request,
        authorizer: authorizer_value(user, Arc::clone(authorizer)),
        request_resource,
    }
}
