//! Our metric of declarative conversions, `crd_apiserver_declarative_conversion_total
//! {resource,from,to}`: objects converted, one per object and route (not per step),
//! counted whether the conversion succeeded or failed. Counters are taken per ordered
//! pair of versions when the converter is built, so counting allocates nothing.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;

use crate::metrics::Metrics;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct Labels {
    /// `plural.group`.
    resource: String,
    from: String,
    to: String,
}

/// The family every declarative converter counts into (unregistered by default: counts
/// go nowhere).
#[derive(Clone, Debug, Default)]
pub struct DeclarativeMetrics {
    total: Family<Labels, Counter>,
}

impl DeclarativeMetrics {
    /// The metric, served on `/metrics` through `metrics`.
    pub fn register(metrics: &mut Metrics) -> DeclarativeMetrics {
        let m = DeclarativeMetrics::default();
        metrics.register(
            "crd_apiserver_declarative_conversion",
            "Objects converted by the declarative converter (annotation conversion.crd-apiserver.io/declarative), by resource and versions",
            m.total.clone(),
        );
        m
    }

    /// The counter of one resource's conversions from one version to another.
    pub fn counter(&self, resource: &str, from: &str, to: &str) -> Counter {
        let labels = Labels {
            resource: resource.to_string(),
            from: from.to_string(),
            to: to.to_string(),
        };
        self.total.get_or_create(&labels).clone()
    }
}
