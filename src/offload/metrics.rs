//! Offload's `/metrics` series: each group's current phase, its transitions, the objects
//! copied and the failed steps. Label values: API groups the host's CRDs name (bounded
//! by the selected CRDs) and the fixed phase names.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;

use super::record::Phase;
use crate::metrics::Metrics;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct GroupLabels {
    group: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct PhaseLabels {
    group: String,
    phase: &'static str,
}

/// The series, shared by every unit's task.
#[derive(Clone, Debug, Default)]
pub struct OffloadMetrics {
    phase: Family<PhaseLabels, Gauge>,
    copied: Family<GroupLabels, Counter>,
    transitions: Family<PhaseLabels, Counter>,
    failures: Family<GroupLabels, Counter>,
}

impl OffloadMetrics {
    pub fn register(metrics: &mut Metrics) -> OffloadMetrics {
        let m = OffloadMetrics::default();
        metrics.register(
            "crd_apiserver_offload_phase",
            "Offload mode: 1 for the current phase of each API group's move, 0 for the others",
            m.phase.clone(),
        );
        metrics.register(
            "crd_apiserver_offload_objects_copied",
            "Offload mode: objects written here by take-over copies, by API group",
            m.copied.clone(),
        );
        metrics.register(
            "crd_apiserver_offload_transitions",
            "Offload mode: phases reached (recorded), by API group and phase",
            m.transitions.clone(),
        );
        metrics.register(
            "crd_apiserver_offload_failures",
            "Offload mode: failed steps (retried, or refused and rolled back), by API group",
            m.failures.clone(),
        );
        m
    }

    /// `group` reached `phase`.
    pub fn reached(&self, group: &str, phase: Phase) {
        self.transitions
            .get_or_create(&PhaseLabels {
                group: group.to_string(),
                phase: phase.as_str(),
            })
            .inc();
        self.set_phase(group, phase);
    }

    /// `group` is at `phase` (1 for it, 0 for the others).
    pub fn set_phase(&self, group: &str, phase: Phase) {
        for p in Phase::ALL {
            let labels = PhaseLabels {
                group: group.to_string(),
                phase: p.as_str(),
            };
            self.phase.get_or_create(&labels).set(i64::from(p == phase));
        }
    }

    pub fn copied(&self, group: &str, objects: usize) {
        let labels = GroupLabels {
            group: group.to_string(),
        };
        self.copied
            .get_or_create(&labels)
            .inc_by(u64::try_from(objects).unwrap_or(u64::MAX));
    }

    pub fn failure(&self, group: &str) {
        let labels = GroupLabels {
            group: group.to_string(),
        };
        self.failures.get_or_create(&labels).inc();
    }
}
