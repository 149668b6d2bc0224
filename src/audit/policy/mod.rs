//! The audit Policy (`audit.k8s.io/v1`, `--audit-policy-file`): read and checked at
//! start-up with kube's texts, then evaluated per request (the first matching rule wins).

use super::{Level, Stage};
use crate::request::info::RequestInfo;
use crate::request::user::UserInfo;

/// What the policy decided for one request (kube's `RequestAuditConfig`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestAuditConfig {
    pub level: Level,
    /// The policy's omitStages and the matching rule's, together.
    pub omit_stages: Vec<Stage>,
    /// The rule's `omitManagedFields`, else the policy's.
    pub omit_managed_fields: bool,
}

/// A checked, compiled policy (CONTRACT: the audit-policy engineer fills it in).
#[derive(Clone, Debug, Default)]
pub struct Policy {}

impl Policy {
    /// The level, stages and managed-fields choice for a request by `user`.
    pub fn evaluate(&self, user: &UserInfo, info: &RequestInfo) -> RequestAuditConfig {
        let _ = (user, info);
        RequestAuditConfig {
            level: Level::None,
            omit_stages: Vec::new(),
            omit_managed_fields: false,
        }
    }
}
