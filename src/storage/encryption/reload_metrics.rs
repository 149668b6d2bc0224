//! kube's encryption configuration controller metrics (k8s.io/apiserver
//! `pkg/server/options/encryptionconfig/metrics`):
//! `apiserver_encryption_config_controller_automatic_reloads_total{status, apiserver_id_hash}`,
//! `..._automatic_reload_last_timestamp_seconds{status, apiserver_id_hash}` and
//! `..._last_config_info{apiserver_id_hash, hash}` (the file's content hash, 1).

use std::sync::atomic::AtomicU64;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;

use crate::metrics::Metrics;

/// kube's `getHash` of this server's id: `sha256:<hex>`, empty for an empty id (this
/// server has no `APIServerID`, so the label is empty).
const APISERVER_ID_HASH: &str = "";

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ReloadLabels {
    pub status: &'static str,
    pub apiserver_id_hash: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct InfoLabels {
    pub apiserver_id_hash: &'static str,
    pub hash: String,
}

/// The three families (unregistered by default).
#[derive(Clone, Default)]
pub struct ReloadMetrics {
    reloads: Family<ReloadLabels, Counter>,
    last_timestamp: Family<ReloadLabels, Gauge<f64, AtomicU64>>,
    last_config: Family<InfoLabels, Gauge>,
}

impl ReloadMetrics {
    /// The families, served on `/metrics` through `metrics`.
    pub fn register(metrics: &mut Metrics) -> ReloadMetrics {
        let families = ReloadMetrics::default();
        metrics.register(
            "apiserver_encryption_config_controller_automatic_reloads",
            "Total number of reload successes and failures of encryption configuration split by apiserver identity.",
            families.reloads.clone(),
        );
        metrics.register(
            "apiserver_encryption_config_controller_automatic_reload_last_timestamp_seconds",
            "Timestamp of the last successful or failed automatic reload of encryption configuration split by apiserver identity.",
            families.last_timestamp.clone(),
        );
        metrics.register(
            "apiserver_encryption_config_controller_last_config_info",
            "Information about the last applied encryption configuration with hash as label, split by apiserver identity.",
            families.last_config.clone(),
        );
        families
    }

    /// kube's `RecordEncryptionConfigLastConfigInfo`: only the latest hash is shown.
    pub fn config_info(&self, hash: &str) {
        self.last_config.clear();
        let labels = InfoLabels {
            apiserver_id_hash: APISERVER_ID_HASH,
            hash: hash.into(),
        };
        self.last_config.get_or_create(&labels).set(1);
    }

    /// kube's `RecordEncryptionConfigAutomaticReloadSuccess`.
    pub fn success(&self, hash: &str) {
        self.reload("success");
        self.config_info(hash);
    }

    /// kube's `RecordEncryptionConfigAutomaticReloadFailure`.
    pub fn failure(&self) {
        self.reload("failure");
    }

    fn reload(&self, status: &'static str) {
        let labels = ReloadLabels {
            status,
            apiserver_id_hash: APISERVER_ID_HASH,
        };
        self.reloads.get_or_create(&labels).inc();
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs_f64())
            .unwrap_or_default();
        self.last_timestamp.get_or_create(&labels).set(now);
    }
}
