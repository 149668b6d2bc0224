//! Prometheus metrics served on `/metrics`: request counts and latencies by verb, group,
//! resource, subresource and code; rejected front-proxy, client-certificate and token
//! attempts by authenticator and reason; calls to the cluster's TokenReview and
//! SubjectAccessReview; requests the server refused in self-defense (429 past the
//! in-flight limit), as kube's `apiserver_request_terminations_total`; whether the
//! front-proxy CA is shared with the client CA while any CN is allowed; open watches and
//! watchers ended for not keeping up, under kube's names and labels.
//!
//! A leaf: the stages count into it and may register metrics of their own
//! ([`Metrics::register`], as the watch cache does). Label values come from bounded sets
//! only (a request's are taken by `crd::labels`), so no client can grow the series
//! without limit.

use std::sync::Arc;
use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::{Metric, Registry};

/// The OpenMetrics text format, which Prometheus negotiates.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// What one request is recorded under (`crd::labels` takes them from its request
/// info before it runs).
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RequestLabels {
    pub verb: &'static str,
    /// Shared with the catalog: labelling a request copies no string.
    pub group: Arc<str>,
    pub resource: Arc<str>,
    pub subresource: &'static str,
}

impl RequestLabels {
    pub fn new(
        verb: &'static str,
        group: Arc<str>,
        resource: Arc<str>,
        subresource: &'static str,
    ) -> RequestLabels {
        RequestLabels {
            verb,
            group,
            resource,
            subresource,
        }
    }
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CodeLabels {
    verb: &'static str,
    group: Arc<str>,
    resource: Arc<str>,
    subresource: &'static str,
    code: u16,
}

impl CodeLabels {
    fn new(labels: RequestLabels, code: u16) -> CodeLabels {
        CodeLabels {
            verb: labels.verb,
            group: labels.group,
            resource: labels.resource,
            subresource: labels.subresource,
            code,
        }
    }
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct InflightLabels {
    request_kind: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RejectionLabels {
    authenticator: &'static str,
    reason: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct WebhookLabels {
    webhook: &'static str,
    result: &'static str,
}

type HistogramFamily = Family<RequestLabels, Histogram, fn() -> Histogram>;

fn latency_histogram() -> Histogram {
    // kube-apiserver's request-duration buckets, 5ms to 60s.
    Histogram::new([
        0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0,
        10.0, 15.0, 20.0, 30.0, 45.0, 60.0,
    ])
}

/// The process's metrics and their registry.
pub struct Metrics {
    registry: Registry,
    requests: Family<CodeLabels, Counter>,
    terminations: Family<CodeLabels, Counter>,
    latency: HistogramFamily,
    rejections: Family<RejectionLabels, Counter>,
    webhooks: Family<WebhookLabels, Counter>,
    requestheader_ca_shared: Gauge,
    inflight: Family<InflightLabels, Gauge>,
    terminated_watchers: Family<GroupResource, Counter>,
    watch_events: Family<ResourceLabels, Counter>,
    watch_encodings: Family<ResourceLabels, Counter>,
    longrunning: Family<LongRunningLabels, Gauge>,
}

/// One resource (`plural.group`).
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ResourceLabels {
    pub resource: Arc<str>,
}

/// One resource as kube's watch cache labels it: its group and its plural.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct GroupResource {
    pub group: Arc<str>,
    pub resource: Arc<str>,
}

impl GroupResource {
    /// `plural.group` (the plural alone in the core group), for logs.
    pub fn name(&self) -> String {
        match &*self.group {
            "" => self.resource.to_string(),
            group => format!("{}.{group}", self.resource),
        }
    }
}

/// kube's `apiserver_longrunning_requests` labels (`RecordLongRunning`): the verb as kube
/// reports it (`WATCH`), the served group, version and resource, the subresource, the
/// scope (`resource`, `namespace` or `cluster`) and the component (`apiserver`).
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct LongRunningLabels {
    pub verb: &'static str,
    pub group: Arc<str>,
    pub version: Arc<str>,
    pub resource: Arc<str>,
    pub subresource: &'static str,
    pub scope: &'static str,
    pub component: &'static str,
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl Metrics {
    pub fn new() -> Metrics {
        let requests = Family::<CodeLabels, Counter>::default();
        let terminations = Family::<CodeLabels, Counter>::default();
        let latency: HistogramFamily = Family::new_with_constructor(latency_histogram);
        let rejections = Family::<RejectionLabels, Counter>::default();
        let webhooks = Family::<WebhookLabels, Counter>::default();
        let requestheader_ca_shared = Gauge::default();
        let inflight = Family::<InflightLabels, Gauge>::default();
        let terminated_watchers = Family::<GroupResource, Counter>::default();
        let watch_events = Family::<ResourceLabels, Counter>::default();
        let watch_encodings = Family::<ResourceLabels, Counter>::default();
        let longrunning = Family::<LongRunningLabels, Gauge>::default();
        let mut registry = Registry::default();
        registry.register(
            "apiserver_terminated_watchers",
            "Counter of watchers closed due to unresponsiveness broken by resource type",
            terminated_watchers.clone(),
        );
        registry.register(
            "apiserver_longrunning_requests",
            "Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way",
            longrunning.clone(),
        );
        registry.register(
            "apiserver_watch_events",
            "Events sent to watch clients, by resource",
            watch_events.clone(),
        );
        registry.register(
            "crd_apiserver_watch_event_encodings",
            "Watch events serialized, by resource: one per event and form however many watchers receive it",
            watch_encodings.clone(),
        );
        registry.register(
            "apiserver_request",
            "Requests by verb, group, resource, subresource and HTTP code",
            requests.clone(),
        );
        registry.register(
            "apiserver_request_terminations",
            "Requests the server terminated in self-defense by verb, group, resource, subresource and HTTP code",
            terminations.clone(),
        );
        registry.register(
            "apiserver_request_duration_seconds",
            "Time to the response head by verb, group, resource and subresource",
            latency.clone(),
        );
        registry.register(
            "crd_apiserver_authentication_rejections",
            "Rejected authentication attempts by authenticator (requestheader, x509, token) and reason",
            rejections.clone(),
        );
        registry.register(
            "crd_apiserver_delegated_reviews",
            "TokenReview and SubjectAccessReview calls to the cluster by result",
            webhooks.clone(),
        );
        registry.register(
            "crd_apiserver_requestheader_ca_shared_with_client_ca",
            "1 when the requestheader CA bundle shares a CA with the client CA bundle and no requestheader allowed names are set: any client certificate can then claim any user through X-Remote-* headers",
            requestheader_ca_shared.clone(),
        );
        registry.register(
            "apiserver_current_inflight_requests",
            "Requests currently counted against the in-flight limits, by request kind (readOnly, mutating)",
            inflight.clone(),
        );
        Metrics {
            registry,
            inflight,
            terminated_watchers,
            watch_events,
            watch_encodings,
            longrunning,
            requests,
            terminations,
            latency,
            rejections,
            webhooks,
            requestheader_ca_shared,
        }
    }

    /// Records one finished request.
    pub fn observe_request(&self, labels: RequestLabels, code: u16, elapsed: Duration) {
        self.latency
            .get_or_create(&labels)
            .observe(elapsed.as_secs_f64());
        self.requests
            .get_or_create(&CodeLabels::new(labels, code))
            .inc();
    }

    /// Counts a request refused in self-defense (429 past the in-flight limit); it is
    /// also recorded with its code by [`Metrics::observe_request`].
    pub fn count_termination(&self, labels: RequestLabels, code: u16) {
        self.terminations
            .get_or_create(&CodeLabels::new(labels, code))
            .inc();
    }

    /// Counts a rejected certificate-based authentication attempt.
    pub fn count_rejection(&self, authenticator: &'static str, reason: &'static str) {
        self.rejections
            .get_or_create(&RejectionLabels {
                authenticator,
                reason,
            })
            .inc();
    }

    /// Counts a call to the cluster (`tokenreview` or `subjectaccessreview`).
    pub fn count_review(&self, webhook: &'static str, result: &'static str) {
        self.webhooks
            .get_or_create(&WebhookLabels { webhook, result })
            .inc();
    }

    /// The gauge of requests counted against one in-flight budget (`readOnly`, `mutating`).
    pub fn inflight_gauge(&self, request_kind: &'static str) -> Gauge {
        self.inflight
            .get_or_create(&InflightLabels { request_kind })
            .clone()
    }

    /// Records whether the front-proxy hazard is present (see `authn::overlap`).
    pub fn set_requestheader_ca_shared(&self, shared: bool) {
        self.requestheader_ca_shared.set(i64::from(shared));
    }

    /// Registers a metric another module owns and counts into (the watch cache's, say):
    /// it is served with the others from then on.
    pub fn register(&mut self, name: &str, help: &str, metric: impl Metric) {
        self.registry.register(name, help, metric);
    }

    /// The counters of one resource's watch events sent and serialized (taken once per
    /// watch, so sending an event allocates no label).
    pub fn watch_counters(&self, resource: &Arc<str>) -> (Counter, Counter) {
        let labels = ResourceLabels {
            resource: resource.clone(),
        };
        (
            self.watch_events.get_or_create(&labels).clone(),
            self.watch_encodings.get_or_create(&labels).clone(),
        )
    }

    /// The counter of one resource's watchers ended for not keeping up.
    pub fn terminated_watchers(&self, resource: &GroupResource) -> Counter {
        self.terminated_watchers.get_or_create(resource).clone()
    }

    /// Watchers ended for not keeping up, by resource: counted by the watch handler's
    /// queue and by the watch cache's watchers alike.
    pub fn terminated_watchers_family(&self) -> Family<GroupResource, Counter> {
        self.terminated_watchers.clone()
    }

    /// The gauge of open long-running requests (watches) with these labels.
    pub fn longrunning(&self, labels: &LongRunningLabels) -> Gauge {
        self.longrunning.get_or_create(labels).clone()
    }

    /// The registry in the OpenMetrics text format.
    pub fn render(&self) -> String {
        let mut out = String::new();
        if let Err(e) = prometheus_client::encoding::text::encode(&mut out, &self.registry) {
            tracing::error!(error = %e, "encoding metrics");
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn render_recorded_series_appear() {
        let metrics = Metrics::new();
        let labels = RequestLabels {
            verb: "list",
            group: "stable.example.com".into(),
            resource: "crontabs".into(),
            subresource: "",
        };
        metrics.observe_request(labels.clone(), 200, Duration::from_millis(3));
        metrics.count_termination(labels, 429);
        metrics.count_rejection("requestheader", "unknown_authority");
        metrics.count_review("subjectaccessreview", "allowed");
        metrics.set_requestheader_ca_shared(true);
        metrics
            .terminated_watchers(&GroupResource {
                group: "stable.example.com".into(),
                resource: "crontabs".into(),
            })
            .inc();
        metrics
            .longrunning(&LongRunningLabels {
                verb: "WATCH",
                group: "stable.example.com".into(),
                version: "v1".into(),
                resource: "crontabs".into(),
                subresource: "",
                scope: "namespace",
                component: "apiserver",
            })
            .inc();
        let text = metrics.render();
        for want in [
            "apiserver_request_total{verb=\"list\",group=\"stable.example.com\",resource=\"crontabs\",subresource=\"\",code=\"200\"} 1",
            "apiserver_request_duration_seconds_count{verb=\"list\"",
            "apiserver_request_terminations_total{verb=\"list\",group=\"stable.example.com\",resource=\"crontabs\",subresource=\"\",code=\"429\"} 1",
            "crd_apiserver_authentication_rejections_total{authenticator=\"requestheader\",reason=\"unknown_authority\"} 1",
            "crd_apiserver_delegated_reviews_total{webhook=\"subjectaccessreview\",result=\"allowed\"} 1",
            "crd_apiserver_requestheader_ca_shared_with_client_ca 1",
            "apiserver_terminated_watchers_total{group=\"stable.example.com\",resource=\"crontabs\"} 1",
            "apiserver_longrunning_requests{verb=\"WATCH\",group=\"stable.example.com\",version=\"v1\",resource=\"crontabs\",subresource=\"\",scope=\"namespace\",component=\"apiserver\"} 1",
        ] {
            assert!(text.contains(want), "missing {want} in\n{text}");
        }
    }
}
