//! What admission counts, under kube's names and labels (k8s.io/apiserver
//! `pkg/admission/metrics`): each phase's duration (`apiserver_admission_step_…`), and
//! per webhook its calls' durations, requests, rejections and fail-opens. Label values
//! are webhook names from the cluster's configurations and kube's fixed vocabularies.

use std::sync::Arc;
use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::Histogram;

use crate::metrics::Metrics;

/// kube's step buckets (`apiserver_admission_step_admission_duration_seconds`).
const STEP_BUCKETS: [f64; 6] = [0.005, 0.025, 0.1, 0.5, 1.0, 2.5];
/// kube's webhook buckets (`apiserver_admission_webhook_admission_duration_seconds`).
const WEBHOOK_BUCKETS: [f64; 8] = [0.005, 0.025, 0.1, 0.5, 1.0, 2.5, 10.0, 25.0];

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct StepLabels {
    operation: &'static str,
    rejected: &'static str,
    /// `admit` or `validate`.
    r#type: &'static str,
}

/// kube's labels are sorted by name, as client_golang prints them.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ControllerLabels {
    /// The plugin (`NamespaceLifecycle`, `MutatingAdmissionWebhook`, …).
    name: &'static str,
    operation: &'static str,
    rejected: &'static str,
    /// `admit` or `validate`.
    r#type: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct WebhookLabels {
    name: Arc<str>,
    operation: &'static str,
    rejected: &'static str,
    /// `admit` or `validating`, as kube labels webhook calls.
    r#type: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    code: u16,
    name: Arc<str>,
    operation: &'static str,
    rejected: &'static str,
    r#type: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RejectionLabels {
    /// `calling_webhook_error`, `no_error` or `apiserver_internal_error`.
    error_type: &'static str,
    name: Arc<str>,
    operation: &'static str,
    rejection_code: u16,
    r#type: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct FailOpenLabels {
    name: Arc<str>,
    r#type: &'static str,
}

type Histograms<L> = Family<L, Histogram, fn() -> Histogram>;

fn step_histogram() -> Histogram {
    Histogram::new(STEP_BUCKETS.iter().copied())
}

fn webhook_histogram() -> Histogram {
    Histogram::new(WEBHOOK_BUCKETS.iter().copied())
}

/// Why a webhook call rejected the request (kube's `WebhookRejectionErrorType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RejectionType {
    CallingWebhook,
    NoError,
    Internal,
}

impl RejectionType {
    fn label(self) -> &'static str {
        match self {
            RejectionType::CallingWebhook => "calling_webhook_error",
            RejectionType::NoError => "no_error",
            RejectionType::Internal => "apiserver_internal_error",
        }
    }
}

/// Admission's metrics (unregistered by default, as unit tests use them).
#[derive(Clone)]
pub struct AdmissionMetrics {
    step: Histograms<StepLabels>,
    controller: Histograms<ControllerLabels>,
    webhook: Histograms<WebhookLabels>,
    requests: Family<RequestLabels, Counter>,
    rejections: Family<RejectionLabels, Counter>,
    fail_open: Family<FailOpenLabels, Counter>,
    /// ValidatingAdmissionPolicy's checks.
    pub validating_policy: crate::admission::policy::validating::metrics::ValidatingMetrics,
    /// MutatingAdmissionPolicy's checks.
    pub mutating_policy: crate::admission::policy::mutating::metrics::MutatingMetrics,
}

impl Default for AdmissionMetrics {
    fn default() -> Self {
        AdmissionMetrics {
            step: Family::new_with_constructor(step_histogram),
            controller: Family::new_with_constructor(step_histogram),
            webhook: Family::new_with_constructor(webhook_histogram),
            requests: Family::default(),
            rejections: Family::default(),
            fail_open: Family::default(),
            validating_policy: Default::default(),
            mutating_policy: Default::default(),
        }
    }
}

fn yes(rejected: bool) -> &'static str {
    if rejected { "true" } else { "false" }
}

impl AdmissionMetrics {
    /// Admission's metrics, served on `/metrics` through `metrics`.
    pub fn register(metrics: &mut Metrics) -> AdmissionMetrics {
        use crate::admission::policy::{mutating, validating};
        let m = AdmissionMetrics {
            validating_policy: validating::metrics::ValidatingMetrics::register(metrics),
            mutating_policy: mutating::metrics::MutatingMetrics::register(metrics),
            ..AdmissionMetrics::default()
        };
        // kube's HELP texts (the client library adds the final period).
        metrics.register(
            "apiserver_admission_step_admission_duration_seconds",
            "[STABLE] Admission sub-step latency histogram in seconds, broken out for each operation and API resource and step type (validate or admit)",
            m.step.clone(),
        );
        metrics.register(
            "apiserver_admission_controller_admission_duration_seconds",
            "[STABLE] Admission controller latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit)",
            m.controller.clone(),
        );
        metrics.register(
            "apiserver_admission_webhook_admission_duration_seconds",
            "[STABLE] Admission webhook latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit)",
            m.webhook.clone(),
        );
        metrics.register(
            "apiserver_admission_webhook_request",
            "[ALPHA] Admission webhook request total, identified by name and broken out for each admission type (validating or admit) and operation. Additional labels specify whether the request was rejected or not and an HTTP status code. Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded",
            m.requests.clone(),
        );
        metrics.register(
            "apiserver_admission_webhook_rejection_count",
            "[ALPHA] Admission webhook rejection count, identified by name and broken out for each admission type (validating or admit) and operation. Additional labels specify an error type (calling_webhook_error or apiserver_internal_error if an error occurred; no_error otherwise) and optionally a non-zero rejection code if the webhook rejects the request with an HTTP status code (honored by the apiserver when the code is greater or equal to 400). Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded",
            m.rejections.clone(),
        );
        metrics.register(
            "apiserver_admission_webhook_fail_open_count",
            "[ALPHA] Admission webhook fail open count, identified by name and broken out for each admission type (validating or admit)",
            m.fail_open.clone(),
        );
        m
    }

    /// One phase of the chain (`admit` or `validate`) took `elapsed`.
    pub fn observe_step(
        &self,
        step: &'static str,
        operation: &'static str,
        rejected: bool,
        elapsed: Duration,
    ) {
        let labels = StepLabels {
            r#type: step,
            operation,
            rejected: yes(rejected),
        };
        self.step
            .get_or_create(&labels)
            .observe(elapsed.as_secs_f64());
    }

    /// One plugin's phase (`admit` or `validate`) took `elapsed`.
    pub fn observe_controller(
        &self,
        plugin: &'static str,
        step: &'static str,
        operation: &'static str,
        rejected: bool,
        elapsed: Duration,
    ) {
        let labels = ControllerLabels {
            name: plugin,
            operation,
            rejected: yes(rejected),
            r#type: step,
        };
        self.controller
            .get_or_create(&labels)
            .observe(elapsed.as_secs_f64());
    }

    /// One webhook call (`admit` or `validating`) ended with HTTP-like `code`.
    pub fn observe_webhook(
        &self,
        call: WebhookCall<'_>,
        rejected: bool,
        code: u16,
        elapsed: Duration,
    ) {
        let labels = WebhookLabels {
            name: Arc::from(call.name),
            r#type: call.kind,
            operation: call.operation,
            rejected: yes(rejected),
        };
        self.webhook
            .get_or_create(&labels)
            .observe(elapsed.as_secs_f64());
        let labels = RequestLabels {
            name: Arc::from(call.name),
            r#type: call.kind,
            operation: call.operation,
            code: code.min(600),
            rejected: yes(rejected),
        };
        self.requests.get_or_create(&labels).inc();
    }

    /// A webhook call rejected the request.
    pub fn observe_rejection(&self, call: WebhookCall<'_>, why: RejectionType, code: u16) {
        let labels = RejectionLabels {
            name: Arc::from(call.name),
            r#type: call.kind,
            operation: call.operation,
            error_type: why.label(),
            rejection_code: code.min(600),
        };
        self.rejections.get_or_create(&labels).inc();
    }

    /// A webhook call failed and its failurePolicy Ignore let the request through.
    pub fn observe_fail_open(&self, call: WebhookCall<'_>) {
        let labels = FailOpenLabels {
            name: Arc::from(call.name),
            r#type: call.kind,
        };
        self.fail_open.get_or_create(&labels).inc();
    }
}

/// Which call a webhook metric is about.
#[derive(Clone, Copy)]
pub struct WebhookCall<'a> {
    pub name: &'a str,
    /// `admit` or `validating`.
    pub kind: &'static str,
    pub operation: &'static str,
}
