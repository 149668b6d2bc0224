//! What becomes of the type checker's warnings. kube writes them to the policy's
//! `status.typeChecking`; the host owns the policy here, so each is logged once per
//! policy generation and exposed on `/metrics` as
//! `crd_apiserver_validating_admission_policy_type_warnings{policy,field_ref}` = 1 per
//! current warning, the series gone when the expression is fixed or the policy removed.
//! [`TypeChecks`] runs the checks as the policy source compiles each generation.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};

use k8s_openapi::api::admissionregistration::v1::ValidatingAdmissionPolicy;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;

use super::{ExpressionWarning, Schemas, check};
use crate::admission::policy::generic::kinds::ValidatingPolicies;
use crate::admission::policy::generic::source::CompileHook;
use crate::metrics::Metrics;

pub const METRIC: &str = "crd_apiserver_validating_admission_policy_type_warnings";

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct WarningLabels {
    field_ref: String,
    policy: String,
}

/// The current warnings of every policy, as a gauge family (unregistered by default,
/// as unit tests use it).
#[derive(Clone, Default)]
pub struct TypeWarnings {
    gauge: Family<WarningLabels, Gauge>,
    /// Per policy, the field refs that have a series.
    current: Arc<Mutex<BTreeMap<String, BTreeSet<String>>>>,
}

impl TypeWarnings {
    /// The gauge, served on `/metrics` through `metrics`.
    pub fn register(metrics: &mut Metrics) -> TypeWarnings {
        let warnings = TypeWarnings::default();
        metrics.register(
            METRIC,
            "ValidatingAdmissionPolicy expressions with a type checking warning against the schemas of the resources served here (1 per current warning), labeled by policy and the expression's field",
            warnings.gauge.clone(),
        );
        warnings
    }

    /// `policy`'s warnings of its new generation: each logged, its series set, the
    /// series of fields without a warning any more removed.
    pub fn set(&self, policy: &str, warnings: &[ExpressionWarning]) {
        for w in warnings {
            tracing::warn!(
                policy,
                field_ref = %w.field_ref,
                warning = ?w.warning,
                "ValidatingAdmissionPolicy type checking warning"
            );
        }
        let now: BTreeSet<String> = warnings.iter().map(|w| w.field_ref.clone()).collect();
        let mut current = self.current.lock().unwrap_or_else(|e| e.into_inner());
        let before = current.remove(policy).unwrap_or_default();
        for field_ref in before.difference(&now) {
            self.gauge.remove(&labels(policy, field_ref));
        }
        for field_ref in &now {
            self.gauge.get_or_create(&labels(policy, field_ref)).set(1);
        }
        if !now.is_empty() {
            current.insert(policy.to_string(), now);
        }
    }

    /// `policy` is gone: its series are removed.
    pub fn remove(&self, policy: &str) {
        let mut current = self.current.lock().unwrap_or_else(|e| e.into_inner());
        for field_ref in current.remove(policy).unwrap_or_default() {
            self.gauge.remove(&labels(policy, &field_ref));
        }
    }

    /// The field refs of `policy` with a series now.
    pub fn fields(&self, policy: &str) -> Vec<String> {
        let current = self.current.lock().unwrap_or_else(|e| e.into_inner());
        current
            .get(policy)
            .map(|f| f.iter().cloned().collect())
            .unwrap_or_default()
    }
}

fn labels(policy: &str, field_ref: &str) -> WarningLabels {
    WarningLabels {
        field_ref: field_ref.to_string(),
        policy: policy.to_string(),
    }
}

/// The type checks of ValidatingAdmissionPolicies against our served resources, run
/// once per policy generation.
pub struct TypeChecks {
    /// The served catalog now (a policy compiled later checks against the later one).
    pub catalog: crate::admission::policy::generic::params::served::CatalogNow,
    pub warnings: TypeWarnings,
}

impl TypeChecks {
    fn run(&self, schemas: &impl Schemas, policy: &ValidatingAdmissionPolicy) {
        let name = policy.metadata.name.as_deref().unwrap_or_default();
        let found = match &policy.spec {
            Some(spec) => check(spec, schemas),
            None => Vec::new(),
        };
        self.warnings.set(name, &found);
    }
}

impl CompileHook<ValidatingPolicies> for TypeChecks {
    fn compiled(&self, policy: &ValidatingAdmissionPolicy) {
        self.run((self.catalog)().as_ref(), policy);
    }

    fn removed(&self, name: &str) {
        self.warnings.remove(name);
    }
}
