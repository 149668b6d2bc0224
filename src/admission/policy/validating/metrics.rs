//! ValidatingAdmissionPolicy's metrics (kube's `validating/metrics`):
//! `apiserver_validating_admission_policy_check_total` and `..._check_duration_seconds`
//! by policy, binding, error type and enforcement action; and our type checking
//! warnings gauge ([`TypeWarnings`]).

use std::sync::Arc;
use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::Histogram;

pub use super::typecheck::warnings::TypeWarnings;
use crate::metrics::Metrics;

/// kube's buckets for one validation's latency.
const BUCKETS: [f64; 5] = [0.0000005, 0.001, 0.01, 0.1, 1.0];

/// kube's `enforcement_action` label values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Enforcement {
    Allow,
    Deny,
    Audit,
    Warn,
}

impl Enforcement {
    fn label(self) -> &'static str {
        match self {
            Enforcement::Allow => "allow",
            Enforcement::Deny => "deny",
            Enforcement::Audit => "audit",
            Enforcement::Warn => "warn",
        }
    }
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CheckLabels {
    enforcement_action: &'static str,
    /// `no_error`, `compile_error`, `invalid_error` or `out_of_budget`.
    error_type: &'static str,
    policy: Arc<str>,
    policy_binding: Arc<str>,
}

fn histogram() -> Histogram {
    Histogram::new(BUCKETS.iter().copied())
}

/// The two metrics (unregistered by default, as unit tests use them).
#[derive(Clone)]
pub struct ValidatingMetrics {
    check: Family<CheckLabels, Counter>,
    duration: Family<CheckLabels, Histogram, fn() -> Histogram>,
    /// The type checker's current warnings.
    pub type_warnings: TypeWarnings,
}

impl Default for ValidatingMetrics {
    fn default() -> Self {
        ValidatingMetrics {
            check: Family::default(),
            duration: Family::new_with_constructor(histogram),
            type_warnings: TypeWarnings::default(),
        }
    }
}

impl ValidatingMetrics {
    /// The metrics, served on `/metrics` through `metrics`.
    pub fn register(metrics: &mut Metrics) -> ValidatingMetrics {
        let m = ValidatingMetrics {
            type_warnings: TypeWarnings::register(metrics),
            ..ValidatingMetrics::default()
        };
        metrics.register(
            "apiserver_validating_admission_policy_check",
            "[BETA] Validation admission policy check total, labeled by policy and further identified by binding and enforcement action taken",
            m.check.clone(),
        );
        metrics.register(
            "apiserver_validating_admission_policy_check_duration_seconds",
            "[BETA] Validation admission latency for individual validation expressions in seconds, labeled by policy and further including binding and enforcement action taken",
            m.duration.clone(),
        );
        m
    }

    /// kube's `ObserveAdmission` / `ObserveRejection` / `ObserveAudit` / `ObserveWarn`.
    pub fn observe(
        &self,
        policy: &str,
        binding: &str,
        error_type: &'static str,
        enforcement: Enforcement,
        elapsed: Duration,
    ) {
        let labels = CheckLabels {
            enforcement_action: enforcement.label(),
            error_type,
            policy: Arc::from(policy),
            policy_binding: Arc::from(binding),
        };
        self.check.get_or_create(&labels).inc();
        self.duration
            .get_or_create(&labels)
            .observe(elapsed.as_secs_f64());
    }

    /// The check count of one label set, for tests and diagnostics.
    pub fn checks(
        &self,
        policy: &str,
        binding: &str,
        error_type: &'static str,
        enforcement: Enforcement,
    ) -> u64 {
        let labels = CheckLabels {
            enforcement_action: enforcement.label(),
            error_type,
            policy: Arc::from(policy),
            policy_binding: Arc::from(binding),
        };
        self.check.get_or_create(&labels).get()
    }
}
