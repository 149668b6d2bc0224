//! What the server audits with (kube's audit sink and policy rule evaluator together):
//! the checked policy and the backend its events go to, and the counts kept of them.

use std::sync::Arc;

use super::backend::{AuditMetrics, AuditSettings, Backend};
use super::context::Context;
use super::policy::Policy;
use super::request::{self, RequestMeta};
use crate::request::user::UserInfo;

/// The policy and the backend; absent from the chain when no policy file is given.
pub struct Auditor {
    pub policy: Arc<Policy>,
    pub backend: Arc<dyn Backend>,
    metrics: AuditMetrics,
}

impl Auditor {
    pub fn new(policy: Arc<Policy>, backend: Arc<dyn Backend>, metrics: AuditMetrics) -> Auditor {
        Auditor {
            policy,
            backend,
            metrics,
        }
    }

    /// What the `--audit-*` settings ask for (kube's `AuditOptions.ApplyTo`): the policy
    /// (read and checked with the flags) and the backends started; `None` without a policy
    /// file or without a backend (then nothing is audited, as in kube).
    pub async fn from_settings(
        settings: &AuditSettings,
        metrics: AuditMetrics,
    ) -> Result<Option<Arc<Auditor>>, String> {
        let Some(policy) = settings.policy.clone() else {
            return Ok(None);
        };
        let backend = super::backend::from_config(settings, metrics.clone()).await?;
        Ok(backend.map(|backend| Arc::new(Auditor::new(policy, backend, metrics))))
    }

    /// The context of one request by `user` (kube's `evaluatePolicyAndCreateAuditEvent`):
    /// the policy's level counted, the event begun with the request's metadata.
    pub fn begin(self: &Arc<Self>, user: Option<&UserInfo>, meta: RequestMeta<'_>) -> Context {
        let anonymous = UserInfo::new(String::new(), Vec::new());
        let config = self.policy.evaluate(user.unwrap_or(&anonymous), meta.info);
        self.observe_level(config.level);
        if config.level == super::Level::None {
            return Context::disabled();
        }
        let event = request::metadata_event(RequestMeta { user, ..meta });
        Context::new(self.clone(), config, event)
    }

    /// `apiserver_audit_level_total{level}`.
    fn observe_level(&self, level: super::Level) {
        self.metrics.observe_policy_level(level);
    }

    /// `apiserver_audit_event_total`.
    pub(super) fn observe_event(&self) {
        self.metrics.observe_event();
    }

    /// `apiserver_audit_requests_rejected_total`: a request failed because its event could
    /// not be handed on (blocking-strict).
    pub fn observe_rejected(&self) {
        self.metrics.observe_rejected_request();
    }

    /// Flushes the backend (on shutdown).
    pub async fn shutdown(&self) {
        self.backend.shutdown().await;
    }
}
