//! kube's admission `ReinvocationContext` (`admission/reinvocation.go` and the chain's
//! `reinvoker`): one request's mutating phase runs every mutating plugin once and, when a
//! plugin asked for it (a webhook or policy changed the object), once more with
//! `is_reinvoke` set; each plugin keeps its own state across the two rounds here.

use crate::admission::policy::mutating::reinvocation::ReinvokeContext;
use crate::admission::webhook::mutating::WebhookReinvokeContext;

/// The state of one request's mutating phase across its rounds.
#[derive(Debug, Default)]
pub struct ReinvocationContext {
    /// `IsReinvoke`: this is the second round.
    pub is_reinvoke: bool,
    /// `ShouldReinvoke`: a plugin asked for a second round.
    pub should_reinvoke: bool,
    /// MutatingAdmissionPolicy's `policyReinvokeContext`.
    pub policies: ReinvokeContext,
    /// MutatingAdmissionWebhook's `webhookReinvokeContext`.
    pub webhooks: WebhookReinvokeContext,
}
