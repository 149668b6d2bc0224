//! What a policy's evaluation decides (kube's `policy_decision.go` and `errors.go`):
//! per validation an action and how it was reached, per audit annotation whether it is
//! published, and a denial reason's HTTP code.

use std::time::Duration;

/// kube's `PolicyDecisionAction`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PolicyDecisionAction {
    Admit,
    Deny,
}

/// kube's `PolicyDecisionEvaluation`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PolicyDecisionEvaluation {
    Admit,
    Error,
    Deny,
}

/// kube's `PolicyDecision`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyDecision {
    pub action: PolicyDecisionAction,
    pub evaluation: PolicyDecisionEvaluation,
    pub message: String,
    /// A metav1 `StatusReason`; empty but for a validation that evaluated to false.
    pub reason: String,
    pub elapsed: Duration,
}

impl PolicyDecision {
    pub(super) fn error(action: PolicyDecisionAction, message: String) -> PolicyDecision {
        PolicyDecision {
            action,
            evaluation: PolicyDecisionEvaluation::Error,
            message,
            reason: String::new(),
            elapsed: Duration::ZERO,
        }
    }

    /// kube's `ErrorType`: the metrics' `error_type` label.
    pub fn error_type(&self) -> &'static str {
        if self.evaluation == PolicyDecisionEvaluation::Admit {
            "no_error"
        } else if self.message.starts_with("compilation") {
            "compile_error"
        } else if self
            .message
            .starts_with("validation failed due to running out of cost budget")
        {
            "out_of_budget"
        } else {
            "invalid_error"
        }
    }
}

/// kube's `PolicyAuditAnnotationAction`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AuditAnnotationAction {
    Publish,
    Error,
    Exclude,
}

/// kube's `PolicyAuditAnnotation`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyAuditAnnotation {
    pub key: String,
    pub value: String,
    pub elapsed: Duration,
    pub action: AuditAnnotationAction,
    pub error: String,
}

/// kube's `ValidateResult`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ValidateResult {
    pub decisions: Vec<PolicyDecision>,
    pub audit_annotations: Vec<PolicyAuditAnnotation>,
}

/// kube's `reasonToCode`: the code of a denial's reason (422 for any other).
pub fn reason_to_code(reason: &str) -> u16 {
    match reason {
        "Forbidden" => 403,
        "Unauthorized" => 401,
        "RequestEntityTooLarge" => 413,
        _ => 422,
    }
}
