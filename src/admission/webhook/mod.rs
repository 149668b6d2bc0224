//! kube's webhook admission (MutatingAdmissionWebhook, ValidatingAdmissionWebhook).
//!
//! - [`source`]: the cluster's webhook configurations, followed into a [`hook::Hooks`] snapshot.
//! - [`hook`]: one compiled webhook (kube's `WebhookAccessor`) and the snapshot's order.
//! - [`rules`]: a webhook rule against a request (kube's `predicates/rules`).
//! - [`matching`]: whether a hook is called and with which version (`ShouldCallHook`).
//! - [`conditions`]: a webhook's `matchConditions` (CEL), compiled once, judged per request.
//! - [`review`]: the AdmissionReview sent and the answer's checks.
//! - the pooled HTTPS client that calls webhooks is [`crate::webhook`], shared with conversion.
//! - [`dispatch`]: what both plugins share; [`mutating`] and [`validating`]: kube's two
//!   dispatchers; [`call`]: one call of one webhook.

pub mod call;
pub mod conditions;
pub mod dispatch;
pub mod hook;
pub mod matching;
pub mod mutating;
pub mod review;
pub mod rules;
pub mod source;
pub mod validating;
