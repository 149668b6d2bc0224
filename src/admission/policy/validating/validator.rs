//! One policy's evaluation for one request, binding and param (kube's
//! `validator.Validate`): matchConditions first (a false one: no decisions; an error:
//! per failurePolicy), then every validation, then every messageExpression, each group
//! one evaluation context within what is left of the budget, then the audit
//! annotations with a budget of their own; the decisions in kube's words.

use serde_json::Value as Json;

use crate::admission::policy::generic::conditions;
use crate::cel::admission::composition::PolicyExpression;
use crate::cel::admission::context::{
    Bindings, Context, Evaluation, OutOfBudget, RUNTIME_CEL_COST_BUDGET, Values,
};
use crate::cel::value::Value;

use super::compile::{CompiledValidation, FailurePolicy, Validator};
use super::decision::{
    AuditAnnotationAction, PolicyAuditAnnotation, PolicyDecision, PolicyDecisionAction,
    PolicyDecisionEvaluation, ValidateResult,
};

/// kube's `celconfig.MaxEvaluatedMessageExpressionSizeBytes`.
const MAX_MESSAGE_BYTES: usize = 5 * 1024;

/// What one evaluation sees: JSON as the request carries it, in the matched version.
#[derive(Clone)]
pub struct ValidateInput<'a> {
    pub object: Option<&'a Json>,
    pub old_object: Option<&'a Json>,
    pub params: Option<&'a Json>,
    /// The request's namespace (`None` for cluster-scoped requests).
    pub namespace_object: Option<&'a Json>,
    /// `request` as validations see it: kube's `CreateAdmissionRequest` with the
    /// matched resource and kind.
    pub request: &'a Json,
    /// `request` as matchConditions see it: with the request's own resource.
    pub match_request: &'a Json,
    /// `authorizer` and `authorizer.requestResource` (crate::cel::lib::authz).
    pub authorizer: Option<(Value<'a>, Value<'a>)>,
}

impl FailurePolicy {
    fn action(self) -> PolicyDecisionAction {
        match self {
            FailurePolicy::Ignore => PolicyDecisionAction::Admit,
            FailurePolicy::Fail => PolicyDecisionAction::Deny,
        }
    }

    fn audit_action(self) -> AuditAnnotationAction {
        match self {
            FailurePolicy::Ignore => AuditAnnotationAction::Exclude,
            FailurePolicy::Fail => AuditAnnotationAction::Error,
        }
    }
}

impl Validator {
    pub fn validate(&self, input: &ValidateInput<'_>) -> ValidateResult {
        let failed = |message: String| ValidateResult {
            decisions: vec![PolicyDecision::error(self.failure_policy.action(), message)],
            audit_annotations: Vec::new(),
        };
        match self.matches(input) {
            Ok(true) => {}
            Ok(false) => return ValidateResult::default(),
            Err(message) => return failed(message),
        }
        let with_authorizer = self.values(input, input.request, input.namespace_object, true);
        let without_authorizer = self.values(input, input.request, input.namespace_object, false);
        let (Ok(with_authorizer), Ok(without_authorizer)) = (with_authorizer, without_authorizer)
        else {
            return failed("failed to prepare object variable for evaluation".to_string());
        };
        let mut remaining = RUNTIME_CEL_COST_BUDGET;
        let validations = self.validations.iter().map(|v| Some(&v.expression));
        let results = match self.run(&with_authorizer, validations, &mut remaining) {
            Ok(results) => results,
            Err(e) => return failed(e.to_string()),
        };
        let messages = self
            .validations
            .iter()
            .map(|v| v.message_expression.as_ref());
        let messages = self.run(&without_authorizer, messages, &mut remaining);
        let decisions = results
            .into_iter()
            .zip(&self.validations)
            .enumerate()
            .map(|(i, (result, validation))| {
                let message = match &messages {
                    Ok(messages) => Ok(messages.get(i).and_then(Option::as_ref)),
                    Err(e) => Err(*e),
                };
                self.decide(result, validation, message)
            })
            .collect();
        let mut remaining = RUNTIME_CEL_COST_BUDGET;
        let audits = self.audit_annotations.iter().map(|(_, e)| Some(e));
        let audits = match self.run(&without_authorizer, audits, &mut remaining) {
            Ok(audits) => audits,
            Err(e) => return failed(e.to_string()),
        };
        let audit_annotations = audits
            .into_iter()
            .zip(&self.audit_annotations)
            .map(|(result, (key, expression))| self.audit(key, expression, result))
            .collect();
        ValidateResult {
            decisions,
            audit_annotations,
        }
    }

    fn values<'a>(
        &self,
        input: &ValidateInput<'a>,
        request: &'a Json,
        namespace_object: Option<&'a Json>,
        authorizer: bool,
    ) -> Result<Values<'a>, crate::cel::value::EvalError> {
        Values::new(&Bindings {
            object: input.object,
            old_object: input.old_object,
            params: input.params,
            namespace_object,
            request,
            authorizer: input.authorizer.clone().filter(|_| authorizer),
        })
    }

    /// kube's `matchconditions.matcher.Match` (no namespace bound, the request's own
    /// resource), as [`conditions::matches`] judges it.
    fn matches(&self, input: &ValidateInput<'_>) -> Result<bool, String> {
        if self.match_conditions.is_empty() {
            return Ok(true);
        }
        let values = self.values(input, input.match_request, None, true);
        let (composition, policy) = (&self.composition, self.failure_policy);
        conditions::matches(composition, &self.match_conditions, values, policy)
    }

    fn run<'e, 'a>(
        &self,
        values: &Values<'a>,
        expressions: impl Iterator<Item = Option<&'e PolicyExpression>>,
        remaining: &mut u64,
    ) -> Result<Vec<Option<Evaluation<'a>>>, OutOfBudget> {
        let mut context = Context::new(&self.composition, values);
        expressions
            .map(|e| e.map(|e| context.evaluate(e, remaining)).transpose())
            .collect()
    }

    fn decide(
        &self,
        result: Option<Evaluation<'_>>,
        validation: &CompiledValidation,
        message: Result<Option<&Evaluation<'_>>, OutOfBudget>,
    ) -> PolicyDecision {
        let elapsed = result.as_ref().map(|r| r.elapsed).unwrap_or_default();
        let with_elapsed = |mut d: PolicyDecision| {
            d.elapsed = elapsed;
            d
        };
        let action = self.failure_policy.action();
        let passed = match result.map(|r| r.result) {
            Some(Err(e)) => return with_elapsed(PolicyDecision::error(action, e)),
            _ if message.is_err() => {
                let e = message.err().map(|e| e.to_string()).unwrap_or_default();
                let text = format!("failed messageExpression: {e}");
                return with_elapsed(PolicyDecision::error(action, text));
            }
            Some(Ok(Value::Bool(true))) => true,
            _ => false,
        };
        if passed {
            return with_elapsed(PolicyDecision {
                action: PolicyDecisionAction::Admit,
                evaluation: PolicyDecisionEvaluation::Admit,
                message: String::new(),
                reason: String::new(),
                elapsed,
            });
        }
        let evaluated = message.ok().flatten().and_then(|m| match &m.result {
            Ok(Value::String(s)) => Some(s.as_str().trim()),
            _ => None,
        });
        let evaluated = evaluated
            .filter(|m| m.len() <= MAX_MESSAGE_BYTES && !m.contains('\n'))
            .unwrap_or("");
        let text = match (evaluated, validation.message.trim()) {
            ("", "") => format!("failed expression: {}", validation.expression.source.trim()),
            ("", message) => message.to_string(),
            (evaluated, _) => evaluated.to_string(),
        };
        PolicyDecision {
            action: PolicyDecisionAction::Deny,
            evaluation: PolicyDecisionEvaluation::Deny,
            message: text,
            reason: validation
                .reason
                .clone()
                .unwrap_or_else(|| "Invalid".into()),
            elapsed,
        }
    }

    fn audit(
        &self,
        key: &str,
        expression: &PolicyExpression,
        result: Option<Evaluation<'_>>,
    ) -> PolicyAuditAnnotation {
        let mut annotation = PolicyAuditAnnotation {
            key: key.to_string(),
            value: String::new(),
            elapsed: result.as_ref().map(|r| r.elapsed).unwrap_or_default(),
            action: AuditAnnotationAction::Exclude,
            error: String::new(),
        };
        match result.map(|r| r.result) {
            Some(Err(e)) => {
                annotation.action = self.failure_policy.audit_action();
                annotation.error = e;
            }
            Some(Ok(Value::String(s))) if !s.as_str().trim().is_empty() => {
                annotation.action = AuditAnnotationAction::Publish;
                annotation.value = s.as_str().trim().to_string();
            }
            Some(Ok(Value::String(_) | Value::Null)) | None => {}
            Some(Ok(other)) => {
                annotation.action = AuditAnnotationAction::Error;
                annotation.error = format!(
                    "valueExpression '{}' resulted in unsupported return type: {}. Return type must be either string or null.",
                    expression.source,
                    crate::cel::eval::ops::type_name(&other)
                );
            }
        }
        annotation
    }
}
