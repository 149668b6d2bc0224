//! The in-flight request budgets, as k8s.io/apiserver's `WithMaxInFlightLimit` keeps
//! them (the filter chain's stage and a watch's initial list draw on them): read-only
//! (`get`, `list`) and mutating requests each have a budget (`--max-requests-inflight`,
//! `--max-mutating-requests-inflight`; 0 = unlimited); a request past its budget gets
//! kube's 429 with `Retry-After: 1`. It runs after authentication (the user decides the
//! `system:masters` exemption) and before authorization, as kube orders its filters.
//!
//! Not counted: watches (long-running; kube's `BasicLongRunningRequestCheck`) and the
//! health probes `/healthz`, `/livez`, `/readyz` (kube exempts them through the `probes`
//! flow schema), so a busy server still answers its kubelet and load balancer.

use std::sync::Arc;

use prometheus_client::metrics::gauge::Gauge;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::error::ApiError;
use crate::metrics::Metrics;
use crate::request::info::{RequestInfo, Verb};
use crate::request::user::UserInfo;

/// kube's 429 text (`tooManyRequests` in k8s.io/apiserver's filters).
pub const TOO_MANY_REQUESTS: &str = "Too many requests, please try again later.";
/// The `Retry-After` kube's max-in-flight filter sends, in seconds.
pub const RETRY_AFTER_SECONDS: u32 = 1;

/// The group whose members are served even past the limit (a super-admin always gets an
/// answer, as in kube).
const SYSTEM_MASTERS: &str = "system:masters";

/// Which budget a request draws on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Budget {
    /// Watches and health probes.
    Exempt,
    ReadOnly,
    Mutating,
}

impl Budget {
    /// kube's classification: `get`, `list` (and the non-resource `get`) are read-only,
    /// every other verb — `head` and unknown ones included — is mutating.
    pub fn of(info: &RequestInfo) -> Budget {
        if info.verb == Verb::Watch || is_probe(info) {
            return Budget::Exempt;
        }
        match &info.verb {
            Verb::Get | Verb::List => Budget::ReadOnly,
            Verb::NonResource(method) if method == "get" => Budget::ReadOnly,
            _ => Budget::Mutating,
        }
    }
}

fn is_probe(info: &RequestInfo) -> bool {
    if info.is_resource_request {
        return false;
    }
    let first = info.path.trim_start_matches('/').split('/').next();
    matches!(first, Some("healthz" | "livez" | "readyz"))
}

/// One limited budget and the gauge of requests counted against it.
struct Limited {
    semaphore: Arc<Semaphore>,
    gauge: Gauge,
}

/// The two budgets; `None` is unlimited.
pub struct InFlight {
    read_only: Option<Limited>,
    mutating: Option<Limited>,
}

/// A request's place in its budget, given back (and the gauge lowered) when dropped.
#[derive(Debug)]
pub struct Slot {
    _permit: OwnedSemaphorePermit,
    gauge: Gauge,
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.gauge.dec();
    }
}

impl InFlight {
    /// The budgets, counted in `apiserver_current_inflight_requests` as kube does.
    pub fn new(max_read_only: usize, max_mutating: usize, metrics: &Metrics) -> InFlight {
        let budget = |max: usize, kind: &'static str| {
            (max > 0).then(|| Limited {
                semaphore: Arc::new(Semaphore::new(max.min(Semaphore::MAX_PERMITS))),
                gauge: metrics.inflight_gauge(kind),
            })
        };
        InFlight {
            read_only: budget(max_read_only, "readOnly"),
            mutating: budget(max_mutating, "mutating"),
        }
    }

    /// A read-only slot for a watch's initial list (the watch itself is not counted).
    pub fn admit_initial_list(&self, user: &UserInfo) -> Result<Option<Slot>, Budget> {
        self.admit_to(Budget::ReadOnly, user)
    }

    /// A slot for the request (held until it is dropped), none when it is not counted,
    /// or kube's 429 when its budget is spent.
    pub fn admit(&self, info: &RequestInfo, user: &UserInfo) -> Result<Option<Slot>, Budget> {
        self.admit_to(Budget::of(info), user)
    }

    fn admit_to(&self, budget: Budget, user: &UserInfo) -> Result<Option<Slot>, Budget> {
        let limited = match budget {
            Budget::Exempt => None,
            Budget::ReadOnly => self.read_only.as_ref(),
            Budget::Mutating => self.mutating.as_ref(),
        };
        let Some(limited) = limited else {
            return Ok(None);
        };
        match limited.semaphore.clone().try_acquire_owned() {
            Ok(permit) => {
                limited.gauge.inc();
                Ok(Some(Slot {
                    _permit: permit,
                    gauge: limited.gauge.clone(),
                }))
            }
            Err(_) if user.groups.iter().any(|g| g == SYSTEM_MASTERS) => Ok(None),
            Err(_) => Err(budget),
        }
    }
}

/// kube's 429 with this message, telling the client to retry after a second.
pub fn too_many_requests(message: String) -> ApiError {
    ApiError::TooManyRequests {
        message,
        retry_after_seconds: RETRY_AFTER_SECONDS,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::info;

    fn info_of(method: &str, path: &str, query: &str) -> RequestInfo {
        info::parse(method, path, &crate::request::query::Query::parse(query))
    }

    #[test]
    fn budget_of_kube_verbs_classified() {
        let cases = [
            (
                "list",
                "GET",
                "/apis/stable.example.com/v1/crontabs",
                "",
                Budget::ReadOnly,
            ),
            (
                "get",
                "GET",
                "/apis/stable.example.com/v1/namespaces/d/crontabs/x",
                "",
                Budget::ReadOnly,
            ),
            (
                "watch",
                "GET",
                "/apis/stable.example.com/v1/crontabs",
                "watch=true",
                Budget::Exempt,
            ),
            (
                "create",
                "POST",
                "/apis/stable.example.com/v1/namespaces/d/crontabs",
                "",
                Budget::Mutating,
            ),
            (
                "delete",
                "DELETE",
                "/apis/stable.example.com/v1/namespaces/d/crontabs/x",
                "",
                Budget::Mutating,
            ),
            ("discovery get", "GET", "/apis", "", Budget::ReadOnly),
            (
                "non-resource head",
                "HEAD",
                "/version",
                "",
                Budget::Mutating,
            ),
            ("livez", "GET", "/livez", "", Budget::Exempt),
            ("readyz check", "GET", "/readyz/etcd", "", Budget::Exempt),
            ("healthz post", "POST", "/healthz", "", Budget::Exempt),
            ("metrics", "GET", "/metrics", "", Budget::ReadOnly),
        ];
        for (name, method, path, query, want) in cases {
            assert_eq!(Budget::of(&info_of(method, path, query)), want, "{name}");
        }
    }

    #[test]
    fn admit_past_budget_refused_but_masters_served() {
        let limits = InFlight::new(1, 0, &Metrics::new());
        let list = info_of("GET", "/apis/stable.example.com/v1/crontabs", "");
        let user = UserInfo::authenticated("u".into(), vec![]);
        let held = limits.admit(&list, &user).unwrap();
        assert!(held.is_some());
        assert_eq!(limits.admit(&list, &user).unwrap_err(), Budget::ReadOnly);
        let master = UserInfo::authenticated("m".into(), vec![SYSTEM_MASTERS.into()]);
        assert!(limits.admit(&list, &master).unwrap().is_none());
        let watch = info_of("GET", "/apis/stable.example.com/v1/crontabs", "watch=1");
        assert!(limits.admit(&watch, &user).unwrap().is_none());
        assert_eq!(
            limits.admit_initial_list(&user).unwrap_err(),
            Budget::ReadOnly,
            "a watch's initial list draws on the read-only budget"
        );
        let create = info_of(
            "POST",
            "/apis/stable.example.com/v1/namespaces/d/crontabs",
            "",
        );
        assert!(
            limits.admit(&create, &user).unwrap().is_none(),
            "0 = unlimited"
        );
        drop(held);
        assert!(limits.admit(&list, &user).unwrap().is_some());
    }
}
