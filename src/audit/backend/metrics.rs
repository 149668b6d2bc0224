//! kube's audit metrics (k8s.io/apiserver pkg/audit/metrics.go), registered into the
//! process's metrics at start-up: events generated, events a plugin failed to record (by
//! plugin), requests rejected for an audit failure, and the policy level of each request.

use std::fmt::Write as _;
use std::sync::Arc;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;

use super::format::legacy_line;
use crate::audit::{Event, Level};
use crate::metrics::Metrics;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct PluginLabels {
    plugin: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct LevelLabels {
    level: &'static str,
}

/// The audit counters (unregistered by default, as tests use them).
#[derive(Clone, Default)]
pub struct AuditMetrics {
    events: Counter,
    errors: Family<PluginLabels, Counter>,
    levels: Family<LevelLabels, Counter>,
    rejected: Counter,
}

impl AuditMetrics {
    /// The counters, served on `/metrics` through `metrics` under kube's names and HELP
    /// (the registry adds HELP's final period).
    pub fn register(metrics: &mut Metrics) -> AuditMetrics {
        let audit = AuditMetrics::default();
        metrics.register(
            "apiserver_audit_event",
            "Counter of audit events generated and sent to the audit backend",
            audit.events.clone(),
        );
        metrics.register(
            "apiserver_audit_error",
            "Counter of audit events that failed to be audited properly. Plugin identifies the plugin affected by the error",
            audit.errors.clone(),
        );
        metrics.register(
            "apiserver_audit_level",
            "Counter of policy levels for audit events (1 per request)",
            audit.levels.clone(),
        );
        metrics.register(
            "apiserver_audit_requests_rejected",
            "Counter of apiserver requests rejected due to an error in audit logging backend",
            audit.rejected.clone(),
        );
        audit
    }

    /// kube's `ObserveEvent`: one event generated and sent to the backend.
    pub fn observe_event(&self) {
        self.events.inc();
    }

    /// kube's `ObservePolicyLevel`: the level the policy chose for one request.
    pub fn observe_policy_level(&self, level: Level) {
        let level = match level {
            Level::None => "None",
            Level::Metadata => "Metadata",
            Level::Request => "Request",
            Level::RequestResponse => "RequestResponse",
        };
        self.levels.get_or_create(&LevelLabels { level }).inc();
    }

    /// A request failed because its event could not be recorded (`blocking-strict`).
    pub fn observe_rejected_request(&self) {
        self.rejected.inc();
    }

    /// kube's `HandlePluginError`: counts the events a plugin failed to record and logs
    /// them, one legacy line each.
    pub fn plugin_error(&self, plugin: &'static str, error: &str, impacted: &[Arc<Event>]) {
        let count = u64::try_from(impacted.len()).unwrap_or(u64::MAX);
        self.errors
            .get_or_create(&PluginLabels { plugin })
            .inc_by(count);
        let mut message = format!(
            "Error in audit plugin '{plugin}' affecting {} audit events: {error}\nImpacted events:\n",
            impacted.len()
        );
        for event in impacted {
            let _ = writeln!(message, "{}", legacy_line(event));
        }
        tracing::error!("{message}");
    }

    /// Events counted as failed for `plugin` (tests and benchmarks read it).
    pub fn errors(&self, plugin: &'static str) -> u64 {
        self.errors.get_or_create(&PluginLabels { plugin }).get()
    }

    /// Events generated so far.
    pub fn events(&self) -> u64 {
        self.events.get()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn register_counted_series_rendered_with_kube_names() {
        let mut metrics = Metrics::new();
        let audit = AuditMetrics::register(&mut metrics);
        audit.observe_event();
        audit.observe_event();
        audit.observe_policy_level(Level::RequestResponse);
        audit.observe_rejected_request();
        audit.plugin_error("buffered", "audit buffer queue blocked", &[]);
        let text = metrics.render();
        for want in [
            "# HELP apiserver_audit_event Counter of audit events generated and sent to the audit backend.",
            "apiserver_audit_event_total 2",
            "apiserver_audit_level_total{level=\"RequestResponse\"} 1",
            "apiserver_audit_requests_rejected_total 1",
            "apiserver_audit_error_total{plugin=\"buffered\"} 0",
        ] {
            assert!(text.contains(want), "missing {want} in\n{text}");
        }
    }
}
