//! MutatingAdmissionPolicy's metrics (kube's `mutating/metrics`):
//! `apiserver_mutating_admission_policy_check_total` and `..._check_duration_seconds`
//! by policy, binding and error type, one observation per mutation run.

use std::sync::Arc;
use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::Histogram;

use crate::cel::admission::context::OUT_OF_BUDGET;
use crate::metrics::Metrics;

/// kube's buckets for one mutation's latency.
const BUCKETS: [f64; 5] = [0.0000005, 0.001, 0.01, 0.1, 1.0];

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CheckLabels {
    policy: Arc<str>,
    policy_binding: Arc<str>,
    /// `no_error`, `compile_error`, `invalid_error` or `out_of_budget`.
    error_type: &'static str,
}

fn histogram() -> Histogram {
    Histogram::new(BUCKETS.iter().copied())
}

/// kube's `ErrorType`: a mutation's error text into the `error_type` label.
pub fn error_type(error: Option<&str>) -> &'static str {
    match error {
        None => "no_error",
        Some(e) if e.starts_with("compilation") => "compile_error",
        Some(e) if e.starts_with(OUT_OF_BUDGET) => "out_of_budget",
        Some(_) => "invalid_error",
    }
}

/// The two metrics (unregistered by default, as unit tests use them).
#[derive(Clone)]
pub struct MutatingMetrics {
    check: Family<CheckLabels, Counter>,
    duration: Family<CheckLabels, Histogram, fn() -> Histogram>,
}

impl Default for MutatingMetrics {
    fn default() -> Self {
        MutatingMetrics {
            check: Family::default(),
            duration: Family::new_with_constructor(histogram),
        }
    }
}

impl MutatingMetrics {
    /// The metrics, served on `/metrics` through `metrics`.
    pub fn register(metrics: &mut Metrics) -> MutatingMetrics {
        let m = MutatingMetrics::default();
        metrics.register(
            "apiserver_mutating_admission_policy_check",
            "[ALPHA] Mutation admission policy check total, labeled by policy and further identified by binding",
            m.check.clone(),
        );
        metrics.register(
            "apiserver_mutating_admission_policy_check_duration_seconds",
            "[ALPHA] Mutation admission latency for individual mutation expressions in seconds, labeled by policy and binding",
            m.duration.clone(),
        );
        m
    }

    /// kube's `ObserveAdmission` / `ObserveRejection`: one mutation and its error.
    pub fn observe(&self, policy: &str, binding: &str, error: Option<&str>, elapsed: Duration) {
        let labels = labels(policy, binding, error_type(error));
        self.check.get_or_create(&labels).inc();
        self.duration
            .get_or_create(&labels)
            .observe(elapsed.as_secs_f64());
    }

    /// The check count of one label set, for tests and diagnostics.
    pub fn checks(&self, policy: &str, binding: &str, error_type: &'static str) -> u64 {
        let labels = labels(policy, binding, error_type);
        self.check.get_or_create(&labels).get()
    }
}

fn labels(policy: &str, binding: &str, error_type: &'static str) -> CheckLabels {
    CheckLabels {
        policy: Arc::from(policy),
        policy_binding: Arc::from(binding),
        error_type,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use super::*;

    #[test]
    fn error_type_classified_as_kube() {
        let cases = [
            (None, "no_error"),
            (
                Some("compilation failed: ERROR: <input>:1:1: x"),
                "compile_error",
            ),
            (Some(OUT_OF_BUDGET), "out_of_budget"),
            (
                Some("must evaluate to Object but got string"),
                "invalid_error",
            ),
            (
                Some("expression 'x' resulted in error: no such key: y"),
                "invalid_error",
            ),
        ];
        for (error, want) in cases {
            assert_eq!(error_type(error), want, "{error:?}");
        }
    }

    #[test]
    fn observe_counts_by_policy_binding_and_error_type() {
        let m = MutatingMetrics::default();
        m.observe("p", "b", None, Duration::from_micros(3));
        m.observe("p", "b", None, Duration::from_micros(3));
        m.observe("p", "b", Some("compilation failed"), Duration::ZERO);
        assert_eq!(m.checks("p", "b", "no_error"), 2);
        assert_eq!(m.checks("p", "b", "compile_error"), 1);
        assert_eq!(m.checks("p", "other", "no_error"), 0);
    }
}
