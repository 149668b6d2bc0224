//! Authorization stage: may this user do this. As k8s.io/apiserver's delegated
//! authorizer, in order: `--authorization-always-allow-groups` (default `system:masters`),
//! `--authorization-always-allow-paths` (non-resource requests; default `/healthz`,
//! `/readyz`, `/livez`; a trailing `*` matches a prefix), then a SubjectAccessReview
//! ([`sar`]) when there is a cluster to ask. Without one (dev mode) nothing else is
//! allowed. A refusal is kube's 403 with the review's reason; a failed review is a 500.
//! Impersonation ([`impersonation`]) lives here too: it runs before authorization but
//! is made of authorization checks, as kube's `WithImpersonation` is built on the
//! authorizer.

pub mod cel;
#[cfg(test)]
mod consistency;
pub mod impersonation;
pub mod sar;

use std::sync::Arc;

use crate::cluster::client::{ClientError, delegation_client};
use crate::config::auth::{AuthFlags, non_empty};
use crate::error::{ApiError, GroupResource};
use crate::metrics::Metrics;
use crate::request::info::RequestInfo;
use crate::request::user::UserInfo;
use sar::{Decision, SarAuthorizer, SarError};

/// One `--authorization-always-allow-paths` entry, without its leading `/`.
#[derive(Clone, Debug, PartialEq, Eq)]
enum PathRule {
    Exact(String),
    Prefix(String),
}

/// Why the authorizer could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// An always-allowed path with a `*` before its end (validated with the flags too).
    #[error("only trailing * allowed in {0:?}")]
    MisplacedStar(String),
    /// No client for SubjectAccessReview could be made from the kubeconfig flags.
    #[error("failed to get delegated authorization kubeconfig: {0}")]
    Kubeconfig(ClientError),
}

/// The authorizer chain.
pub struct Authorizer {
    paths: Vec<PathRule>,
    groups: Vec<String>,
    webhook: Option<SarAuthorizer>,
}

impl Authorizer {
    /// From the always-allow lists; fails on a `*` that is not trailing, as upstream.
    pub fn new(
        paths: &[String],
        groups: &[String],
        webhook: Option<SarAuthorizer>,
    ) -> Result<Self, SetupError> {
        let mut rules = Vec::new();
        for path in non_empty(paths) {
            let p = path.trim_start_matches('/');
            match p.find('*') {
                None => rules.push(PathRule::Exact(p.to_string())),
                Some(i) if i + 1 == p.len() => rules.push(PathRule::Prefix(p[..i].to_string())),
                Some(_) => return Err(SetupError::MisplacedStar(p.to_string())),
            }
        }
        Ok(Authorizer {
            paths: rules,
            groups: non_empty(groups),
            webhook,
        })
    }

    /// The delegated authorizer the flags describe (SubjectAccessReview when a client for
    /// `--authorization-kubeconfig`, `--kubeconfig` or the cluster can be had).
    pub async fn delegated(flags: &AuthFlags, metrics: Arc<Metrics>) -> Result<Self, SetupError> {
        let client = delegation_client(
            flags.authorization_kubeconfig.as_deref(),
            flags.kubeconfig.as_deref(),
        )
        .await
        .map_err(SetupError::Kubeconfig)?;
        if client.is_none() {
            tracing::warn!(
                "No authorization-kubeconfig provided, so SubjectAccessReview of authorization tokens won't work."
            );
        }
        let webhook = client.map(|c| {
            SarAuthorizer::new(
                c,
                flags.authorization_webhook_cache_authorized_ttl,
                flags.authorization_webhook_cache_unauthorized_ttl,
                metrics,
            )
        });
        Authorizer::new(
            &flags.authorization_always_allow_paths,
            &flags.authorization_always_allow_groups,
            webhook,
        )
    }

    fn always_allowed(&self, user: &UserInfo, info: &RequestInfo) -> bool {
        if user.groups.iter().any(|g| self.groups.contains(g)) {
            return true;
        }
        if info.is_resource_request {
            return false;
        }
        let path = info.path.trim_start_matches('/');
        self.paths.iter().any(|rule| match rule {
            PathRule::Exact(p) => p == path,
            PathRule::Prefix(p) => path.starts_with(p.as_str()),
        })
    }

    /// Allow, or the 403 (or 500) kube sends.
    pub async fn authorize(&self, user: &UserInfo, info: &RequestInfo) -> Result<(), ApiError> {
        self.authorize_audited(user, info, &crate::audit::Context::disabled())
            .await
    }

    /// [`Authorizer::authorize`], its decision and reason recorded as kube's audit
    /// annotations (`authorization.k8s.io/decision`, `authorization.k8s.io/reason`).
    pub async fn authorize_audited(
        &self,
        user: &UserInfo,
        info: &RequestInfo,
        audit: &crate::audit::Context,
    ) -> Result<(), ApiError> {
        match self.decide(user, info).await {
            Ok(Verdict::Allowed(reason)) => {
                audit.annotate(DECISION_KEY, DECISION_ALLOW);
                audit.annotate(REASON_KEY, &reason);
                Ok(())
            }
            Ok(Verdict::Refused(reason)) => {
                tracing::debug!(user = %user.name, verb = info.verb.as_str(), path = %info.path, %reason, "forbidden");
                audit.annotate(DECISION_KEY, DECISION_FORBID);
                audit.annotate(REASON_KEY, &reason);
                Err(forbidden(user, info, &reason))
            }
            Err(e) => {
                tracing::error!(error = %e, "failed to make webhook authorizer request");
                audit.annotate(REASON_KEY, REASON_ERROR);
                Err(ApiError::Internal(e.to_string()))
            }
        }
    }

    /// The chain's answer; `Err` when the review could not be had (callers choose the
    /// reply: a request is a 500, an impersonation check a 403, as upstream).
    pub async fn decide(&self, user: &UserInfo, info: &RequestInfo) -> Result<Verdict, SarError> {
        if self.always_allowed(user, info) {
            return Ok(Verdict::Allowed(String::new()));
        }
        let Some(webhook) = &self.webhook else {
            return Ok(Verdict::Refused(String::new()));
        };
        Ok(match webhook.authorize(user, info).await? {
            Decision::Allow(reason) => Verdict::Allowed(reason),
            Decision::Deny(reason) | Decision::NoOpinion(reason) => Verdict::Refused(reason),
        })
    }
}

/// kube's audit annotations of the authorization filter, and their values.
const DECISION_KEY: &str = "authorization.k8s.io/decision";
const REASON_KEY: &str = "authorization.k8s.io/reason";
const DECISION_ALLOW: &str = "allow";
const DECISION_FORBID: &str = "forbid";
const REASON_ERROR: &str = "internal error";

/// Allowed, or not with the authorizer's reason (possibly empty).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// With the authorizer's reason (empty for the always-allowed groups and paths).
    Allowed(String),
    Refused(String),
}

/// kube's Forbidden: `<resource>.<group> "<name>" is forbidden: User "<u>" cannot <verb> resource ...`.
pub fn forbidden(user: &UserInfo, info: &RequestInfo, reason: &str) -> ApiError {
    let verb = info.verb.as_str();
    let mut because = if info.is_resource_request {
        let resource = if info.subresource.is_empty() {
            info.resource.clone()
        } else {
            format!("{}/{}", info.resource, info.subresource)
        };
        let scope = if info.namespace.is_empty() {
            "at the cluster scope".to_string()
        } else {
            format!("in the namespace \"{}\"", info.namespace)
        };
        format!(
            "User \"{}\" cannot {verb} resource \"{resource}\" in API group \"{}\" {scope}",
            user.name, info.api_group
        )
    } else {
        format!(
            "User \"{}\" cannot {verb} path \"{}\"",
            user.name, info.path
        )
    };
    if !reason.is_empty() {
        because = format!("{because}: {reason}");
    }
    if !info.is_resource_request {
        return ApiError::Forbidden {
            message: format!("forbidden: {because}"),
            resource: None,
            name: String::new(),
        };
    }
    let resource = GroupResource::new(&info.api_group, &info.resource);
    let message = if info.name.is_empty() {
        format!("{resource} is forbidden: {because}")
    } else {
        format!("{resource} \"{}\" is forbidden: {because}", info.name)
    };
    ApiError::Forbidden {
        message,
        resource: Some(resource),
        name: info.name.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::info;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[tokio::test]
    async fn authorize_without_webhook_always_allow_only() {
        let authz = Authorizer::new(
            &strings(&["/healthz", "/readyz", "/livez", "/debug/*"]),
            &strings(&["system:masters"]),
            None,
        )
        .expect("authorizer");
        let admin = UserInfo::authenticated("admin".into(), strings(&["system:masters"]));
        let anon = UserInfo::anonymous();
        let cases = [
            ("healthz anonymous", &anon, "GET", "/healthz", true),
            ("readyz anonymous", &anon, "GET", "/readyz", true),
            ("livez anonymous", &anon, "GET", "/livez", true),
            (
                "healthz subpath not listed",
                &anon,
                "GET",
                "/healthz/ping",
                false,
            ),
            ("prefix rule", &anon, "GET", "/debug/pprof", true),
            (
                "resource anonymous",
                &anon,
                "GET",
                "/apis/g/v1/namespaces/d/things",
                false,
            ),
            (
                "masters resource",
                &admin,
                "DELETE",
                "/apis/g/v1/namespaces/d/things/x",
                true,
            ),
            ("masters path", &admin, "GET", "/metrics", true),
        ];
        for (name, user, method, path, want) in cases {
            let got = authz
                .authorize(user, &info::parse(method, path, &Default::default()))
                .await;
            assert_eq!(got.is_ok(), want, "{name}: {got:?}");
        }
    }

    #[test]
    fn new_misplaced_star_fails() {
        assert!(Authorizer::new(&strings(&["/a*b"]), &[], None).is_err());
    }

    #[test]
    fn forbidden_messages_match_kube() {
        let bob = UserInfo::authenticated("bob".into(), vec![]);
        let cases = [
            (
                (
                    "GET",
                    "/apis/stable.example.com/v1/namespaces/default/crontabs",
                ),
                "",
                "crontabs.stable.example.com is forbidden: User \"bob\" cannot list resource \"crontabs\" in API group \"stable.example.com\" in the namespace \"default\"",
            ),
            (
                (
                    "GET",
                    "/apis/stable.example.com/v1/namespaces/default/crontabs/x/status",
                ),
                "no RBAC policy matched",
                "crontabs.stable.example.com \"x\" is forbidden: User \"bob\" cannot get resource \"crontabs/status\" in API group \"stable.example.com\" in the namespace \"default\": no RBAC policy matched",
            ),
            (
                ("GET", "/apis/example.org/v1/widgets"),
                "",
                "widgets.example.org is forbidden: User \"bob\" cannot list resource \"widgets\" in API group \"example.org\" at the cluster scope",
            ),
            (
                ("GET", "/metrics"),
                "",
                "forbidden: User \"bob\" cannot get path \"/metrics\"",
            ),
        ];
        for ((method, path), reason, want) in cases {
            let err = forbidden(
                &bob,
                &info::parse(method, path, &Default::default()),
                reason,
            );
            assert_eq!(err.to_string(), want);
            assert_eq!(err.code(), 403);
        }
    }
}
