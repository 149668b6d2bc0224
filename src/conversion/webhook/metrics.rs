//! What webhook conversion counts, under kube's names, HELP, buckets and labels
//! (apiextensions-apiserver `pkg/apiserver/conversion/metrics.go`): every conversion's
//! result and latency (`apiserver_conversion_webhook_request_total`,
//! `apiserver_conversion_webhook_duration_seconds`), and per CRD the duration of each
//! conversion between two different versions (`apiserver_crd_conversion_webhook_duration_seconds`).

use std::sync::Arc;
use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};

use crate::metrics::Metrics;

/// kube's `conversionWebhookLatency` buckets, 5 ms to 60 s.
const WEBHOOK_BUCKETS: [f64; 15] = [
    0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 30.0, 45.0, 60.0,
];

/// Why a conversion failed (kube's `ConversionWebhookErrorType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The call failed, or its answer did not decode.
    Call,
    /// The review's checks refused the answer (uid, kind, result status).
    MalformedResponse,
    /// `convertedObjects` has another count than the objects sent.
    PartialResponse,
    /// A converted object failed its checks.
    InvalidConvertedObject,
    /// One object sent and not exactly one returned (kube's unreachable branch).
    NoObjectsReturned,
}

impl Failure {
    pub fn label(self) -> &'static str {
        match self {
            Failure::Call => "conversion_webhook_call_failure",
            Failure::MalformedResponse => "conversion_webhook_malformed_response_failure",
            Failure::PartialResponse => "conversion_webhook_partial_response_failure",
            Failure::InvalidConvertedObject => {
                "conversion_webhook_invalid_converted_object_failure"
            }
            Failure::NoObjectsReturned => "conversion_webhook_no_objects_returned_failure",
        }
    }
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ResultLabels {
    failure_type: &'static str,
    /// `success` or `failure`.
    result: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CrdLabels {
    crd_name: Arc<str>,
    from_version: String,
    succeeded: &'static str,
    to_version: String,
}

type Histograms<L> = Family<L, Histogram, fn() -> Histogram>;

fn webhook_histogram() -> Histogram {
    Histogram::new(WEBHOOK_BUCKETS.iter().copied())
}

/// kube's `latencyBuckets`: `ExponentialBuckets(0.001, 2, 15)`.
fn crd_histogram() -> Histogram {
    Histogram::new(exponential_buckets(0.001, 2.0, 15))
}

/// Webhook conversion's metrics (unregistered by default, as unit tests use them).
#[derive(Clone)]
pub struct ConversionMetrics {
    requests: Family<ResultLabels, Counter>,
    latency: Histograms<ResultLabels>,
    per_crd: Histograms<CrdLabels>,
}

impl Default for ConversionMetrics {
    fn default() -> Self {
        ConversionMetrics {
            requests: Family::default(),
            latency: Family::new_with_constructor(webhook_histogram),
            per_crd: Family::new_with_constructor(crd_histogram),
        }
    }
}

impl ConversionMetrics {
    /// The metrics, served on `/metrics` through `metrics` (kube's HELP texts; the client
    /// library adds the `_total` suffix and the final period).
    pub fn register(metrics: &mut Metrics) -> ConversionMetrics {
        let m = ConversionMetrics::default();
        metrics.register(
            "apiserver_conversion_webhook_request",
            "[ALPHA] Counter for conversion webhook requests with success/failure and failure error type",
            m.requests.clone(),
        );
        metrics.register(
            "apiserver_conversion_webhook_duration_seconds",
            "[ALPHA] Conversion webhook request latency",
            m.latency.clone(),
        );
        metrics.register(
            "apiserver_crd_conversion_webhook_duration_seconds",
            "[ALPHA] CRD webhook conversion duration in seconds",
            m.per_crd.clone(),
        );
        m
    }

    /// kube's `ObserveConversionWebhookSuccess`.
    pub fn success(&self, elapsed: Duration) {
        self.observe("success", "", elapsed);
    }

    /// kube's `ObserveConversionWebhookFailure`.
    pub fn failure(&self, failure: Failure, elapsed: Duration) {
        self.observe("failure", failure.label(), elapsed);
    }

    fn observe(&self, result: &'static str, failure_type: &'static str, elapsed: Duration) {
        let labels = ResultLabels {
            failure_type,
            result,
        };
        self.requests.get_or_create(&labels).inc();
        self.latency
            .get_or_create(&labels)
            .observe(elapsed.as_secs_f64());
    }

    /// kube's `converterMetric`: one conversion of `crd` between two versions, only
    /// when they differ.
    pub fn crd_conversion(
        &self,
        crd: &Arc<str>,
        from: &str,
        to: &str,
        ok: bool,
        elapsed: Duration,
    ) {
        if from == to {
            return;
        }
        let labels = CrdLabels {
            crd_name: crd.clone(),
            from_version: from.to_string(),
            succeeded: if ok { "true" } else { "false" },
            to_version: to.to_string(),
        };
        self.per_crd
            .get_or_create(&labels)
            .observe(elapsed.as_secs_f64());
    }
}
