//! What the validating plugin does with the policies that apply to a request (kube's
//! `validating/dispatcher.go` after matching and params): each invocation validated,
//! its failed validations acted on per the binding's `validationActions` (Deny: the
//! first denial refuses the request with kube's text, reason and code; Warn: a Warning;
//! Audit: kube's `validation_failure` audit annotation), its audit annotations
//! published as `<policy>/<key>`, and configuration errors per failurePolicy.

use std::collections::BTreeMap;

use crate::admission::Recorder;
use crate::gofmt::json_string;

use super::compile::Validator;
use super::decision::{
    AuditAnnotationAction, PolicyDecision, PolicyDecisionAction, reason_to_code,
};
use super::metrics::{Enforcement, ValidatingMetrics};
use super::validator::ValidateInput;

/// kube's `maxAuditAnnotationValueLength`.
const MAX_AUDIT_ANNOTATION_VALUE_LENGTH: usize = 10 * 1024;
const VALIDATION_FAILURE_KEY: &str = "validation.policy.admission.k8s.io/validation_failure";

/// One policy × binding × param that applies to the request.
pub struct Invocation<'a> {
    pub policy: &'a str,
    pub binding: &'a str,
    /// The binding's `validationActions` (`Deny`, `Warn`, `Audit`).
    pub validation_actions: &'a [String],
    pub validator: &'a Validator,
    pub input: ValidateInput<'a>,
}

/// What the dispatcher is given, in kube's order (policy by policy, binding by binding).
pub enum Entry<'a> {
    Invocation(Invocation<'a>),
    /// kube's `addConfigError`: a policy (`binding: None`) or binding that could not be
    /// configured (matching, params, ...).
    ConfigError {
        policy: &'a str,
        binding: Option<&'a str>,
        failure_policy: Option<&'a str>,
        error: String,
    },
}

/// The refusal: kube's message (to be wrapped by `admission::forbidden`), its reason
/// and code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Denial {
    pub message: String,
    pub reason: String,
    pub code: u16,
}

struct Denied<'a> {
    policy: &'a str,
    binding: Option<&'a str>,
    message: String,
    reason: String,
}

/// Validates every invocation, records warnings and audit annotations in `recorder`,
/// and returns the first denial, if any.
pub fn dispatch(
    entries: &[Entry<'_>],
    recorder: &Recorder,
    metrics: &ValidatingMetrics,
) -> Option<Denial> {
    let mut denied = Vec::new();
    let mut failures = Vec::new();
    let mut annotations: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    for entry in entries {
        match entry {
            Entry::ConfigError {
                policy,
                binding,
                failure_policy,
                error,
            } => denied.extend(config_error(policy, *binding, *failure_policy, error)),
            Entry::Invocation(invocation) => {
                let result = invocation.validator.validate(&invocation.input);
                for (index, decision) in result.decisions.iter().enumerate() {
                    act(
                        invocation,
                        index,
                        decision,
                        metrics,
                        recorder,
                        &mut denied,
                        &mut failures,
                    );
                }
                for annotation in &result.audit_annotations {
                    match annotation.action {
                        AuditAnnotationAction::Publish => {
                            let value =
                                truncate(&annotation.value, MAX_AUDIT_ANNOTATION_VALUE_LENGTH);
                            let key = (invocation.policy.to_string(), annotation.key.clone());
                            let values = annotations.entry(key).or_default();
                            if !values.iter().any(|v| v == value) {
                                values.push(value.to_string());
                            }
                        }
                        AuditAnnotationAction::Error => {
                            let decision = PolicyDecision::error(
                                PolicyDecisionAction::Deny,
                                annotation.error.clone(),
                            );
                            metrics.observe(
                                invocation.policy,
                                invocation.binding,
                                decision.error_type(),
                                Enforcement::Deny,
                                annotation.elapsed,
                            );
                            denied.push(Denied {
                                policy: invocation.policy,
                                binding: Some(invocation.binding),
                                message: decision.message,
                                reason: String::new(),
                            });
                        }
                        AuditAnnotationAction::Exclude => {}
                    }
                }
            }
        }
    }
    for ((policy, key), values) in annotations {
        recorder.annotate(format!("{policy}/{key}"), values.join(", "));
    }
    // kube 1.36 publishes each failure as a one-element list under the same key, and an
    // annotation keeps its first value: only the first failure is recorded.
    if let Some(first) = failures.first() {
        recorder.annotate(VALIDATION_FAILURE_KEY.to_string(), format!("[{first}]"));
    }
    denied.into_iter().next().map(|d| {
        let message = match d.binding {
            Some(binding) => format!(
                "ValidatingAdmissionPolicy '{}' with binding '{binding}' denied request: {}",
                d.policy, d.message
            ),
            None => format!(
                "ValidatingAdmissionPolicy '{}' denied request: {}",
                d.policy, d.message
            ),
        };
        let reason = if d.reason.is_empty() {
            "Invalid".to_string()
        } else {
            d.reason
        };
        Denial {
            message,
            code: reason_to_code(&reason),
            reason,
        }
    })
}

/// One decision of one invocation, per the binding's actions.
fn act<'a>(
    invocation: &Invocation<'a>,
    index: usize,
    decision: &PolicyDecision,
    metrics: &ValidatingMetrics,
    recorder: &Recorder,
    denied: &mut Vec<Denied<'a>>,
    failures: &mut Vec<String>,
) {
    let (policy, binding) = (invocation.policy, invocation.binding);
    let observe = |enforcement| {
        metrics.observe(
            policy,
            binding,
            decision.error_type(),
            enforcement,
            decision.elapsed,
        )
    };
    if decision.action == PolicyDecisionAction::Admit {
        if decision.evaluation == super::decision::PolicyDecisionEvaluation::Error {
            observe(Enforcement::Allow);
        }
        return;
    }
    for action in invocation.validation_actions {
        match action.as_str() {
            "Deny" => {
                denied.push(Denied {
                    policy,
                    binding: Some(binding),
                    message: decision.message.clone(),
                    reason: decision.reason.clone(),
                });
                observe(Enforcement::Deny);
            }
            "Audit" => {
                failures.push(validation_failure(invocation, index, &decision.message));
                observe(Enforcement::Audit);
            }
            "Warn" => {
                recorder.warn(format!(
                    "Validation failed for ValidatingAdmissionPolicy '{policy}' with binding '{binding}': {}",
                    decision.message
                ));
                observe(Enforcement::Warn);
            }
            _ => {}
        }
    }
}

/// kube's `ValidationFailureValue` as Go marshals it (fields in declaration order).
fn validation_failure(invocation: &Invocation<'_>, index: usize, message: &str) -> String {
    let actions: Vec<String> = invocation
        .validation_actions
        .iter()
        .map(|a| json_string(a))
        .collect();
    format!(
        "{{\"message\":{},\"policy\":{},\"binding\":{},\"expressionIndex\":{index},\"validationActions\":[{}]}}",
        json_string(message),
        json_string(invocation.policy),
        json_string(invocation.binding),
        actions.join(",")
    )
}

/// kube's `addConfigError`: ignored under `Ignore`, else a denial.
fn config_error<'a>(
    policy: &'a str,
    binding: Option<&'a str>,
    failure_policy: Option<&str>,
    error: &str,
) -> Option<Denied<'a>> {
    let message = match failure_policy {
        Some("Ignore") => return None,
        None | Some("Fail") if binding.is_none() => format!("failed to configure policy: {error}"),
        None | Some("Fail") => format!("failed to configure binding: {error}"),
        Some(other) => format!("unrecognized failure policy: '{other}'"),
    };
    Some(Denied {
        policy,
        binding,
        message,
        reason: String::new(),
    })
}

/// Go's `value[:n]` on a string, kept on a character boundary.
fn truncate(value: &str, max: usize) -> &str {
    if value.len() <= max {
        return value;
    }
    let mut end = max;
    while !value.is_char_boundary(end) {
        end -= 1;
    }
    &value[..end]
}
