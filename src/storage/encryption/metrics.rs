//! kube's transformation metrics (k8s.io/apiserver `pkg/storage/value/metrics.go`):
//! `apiserver_storage_transformation_operations_total{resource, transformation_type,
//! transformer_prefix, status}` and `apiserver_storage_transformation_duration_seconds
//! {transformation_type, transformer_prefix}` (successes only, as kube observes them).

use std::sync::Arc;
use std::time::Instant;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};

use crate::metrics::Metrics;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct OperationLabels {
    pub resource: Arc<str>,
    pub transformation_type: &'static str,
    pub transformer_prefix: Arc<str>,
    pub status: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct DurationLabels {
    pub transformation_type: &'static str,
    pub transformer_prefix: Arc<str>,
}

type Durations = Family<DurationLabels, Histogram, fn() -> Histogram>;

fn durations() -> Histogram {
    // kube's ExponentialBuckets(5e-6, 2, 25).
    Histogram::new(exponential_buckets(5e-6, 2.0, 25))
}

/// The two families (unregistered by default, as unit tests use them).
#[derive(Clone)]
pub struct TransformationMetrics {
    operations: Family<OperationLabels, Counter>,
    durations: Durations,
}

impl Default for TransformationMetrics {
    fn default() -> Self {
        TransformationMetrics {
            operations: Family::default(),
            durations: Durations::new_with_constructor(durations),
        }
    }
}

impl TransformationMetrics {
    /// The families, served on `/metrics` through `metrics`.
    pub fn register(metrics: &mut Metrics) -> TransformationMetrics {
        let families = TransformationMetrics::default();
        metrics.register(
            "apiserver_storage_transformation_operations",
            "Total number of transformations. Successful transformation will have a status 'OK' and a varied status string when the transformation fails. The status, resource, and transformation_type fields can be used for alerting purposes. For example, you can monitor for encryption/decryption failures using the transformation_type (e.g., from_storage for decryption and to_storage for encryption). Additionally, these fields can be used to ensure that the correct transformers are applied to each resource.",
            families.operations.clone(),
        );
        metrics.register(
            "apiserver_storage_transformation_duration_seconds",
            "Latencies in seconds of value transformation operations.",
            families.durations.clone(),
        );
        families
    }

    /// What one resource's transformers count into (`resource` as kube's
    /// `GroupResource.String()`: `crontabs.stable.example.com`).
    pub fn recorder(&self, resource: &str) -> Recorder {
        Recorder {
            metrics: self.clone(),
            resource: resource.into(),
        }
    }
}

/// One resource's view of the families.
#[derive(Clone)]
pub struct Recorder {
    metrics: TransformationMetrics,
    resource: Arc<str>,
}

impl Recorder {
    /// kube's `RecordTransformation`: the count always, the duration on success.
    pub fn record(&self, kind: &'static str, prefix: &Arc<str>, started: Instant, ok: bool) {
        let labels = OperationLabels {
            resource: self.resource.clone(),
            transformation_type: kind,
            transformer_prefix: prefix.clone(),
            // kube's getErrorCode: gRPC's "OK", else the gRPC code or "unknown-non-grpc".
            status: if ok { "OK" } else { "unknown-non-grpc" },
        };
        self.metrics.operations.get_or_create(&labels).inc();
        if ok {
            let labels = DurationLabels {
                transformation_type: kind,
                transformer_prefix: prefix.clone(),
            };
            let elapsed = started.elapsed().as_secs_f64();
            self.metrics
                .durations
                .get_or_create(&labels)
                .observe(elapsed);
        }
    }
}
