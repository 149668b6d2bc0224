//! ValidatingAdmissionPolicy's evaluation (k8s.io/apiserver `pkg/admission/plugin/
//! policy/validating`): a policy compiled once into a [`Validator`] ([`compile`]), its
//! per-request [`Validator::validate`] into kube's decisions ([`validator`],
//! [`decision`]), the actions of the bindings that matched ([`dispatcher`]: Deny, Warn,
//! Audit, audit annotations), kube's metrics ([`metrics`]), and the type checking of its
//! expressions against our schemas ([`typecheck`]).

pub mod compile;
pub mod decision;
pub mod dispatcher;
pub mod metrics;
pub mod plugin;
pub mod typecheck;
pub mod validator;

#[cfg(test)]
mod dispatcher_tests;
#[cfg(test)]
mod tests;

pub use compile::{FailurePolicy, Validator};
pub use decision::{
    AuditAnnotationAction, PolicyAuditAnnotation, PolicyDecision, PolicyDecisionAction,
    PolicyDecisionEvaluation, ValidateResult, reason_to_code,
};
pub use dispatcher::{Denial, Entry, Invocation, dispatch};
pub use validator::ValidateInput;
