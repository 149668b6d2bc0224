//! What KMS v2 counts, under kube's names, labels and help texts
//! (k8s.io/apiserver pkg/storage/value/encrypt/envelope/metrics, and the value package's
//! `envelope_transformation_cache_misses_total`). Key IDs appear only as their SHA-256
//! hash, and, as kube bounds them with an LRU of 100, at most [`KEY_ID_SERIES`] label sets
//! per metric are kept: the oldest is dropped.

use std::collections::VecDeque;
use std::sync::atomic::AtomicU64;
use std::sync::{LazyLock, Mutex, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};

use super::validate::hash_if_not_empty;
use crate::metrics::Metrics;

/// Label sets kept per key ID metric (kube's `cacheSize`).
pub const KEY_ID_SERIES: usize = 100;

pub const FROM_STORAGE: &str = "from_storage";
pub const TO_STORAGE: &str = "to_storage";

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct KeyIdLabels {
    pub transformation_type: &'static str,
    pub provider_name: String,
    pub key_id_hash: String,
    pub apiserver_id_hash: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct StatusKeyIdLabels {
    pub provider_name: String,
    pub key_id_hash: String,
    pub apiserver_id_hash: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct InvalidKeyIdLabels {
    pub provider_name: String,
    pub error: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ProviderLabels {
    pub provider_name: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct OperationLabels {
    pub provider_name: String,
    pub method_name: &'static str,
    pub grpc_status_code: &'static str,
}

type Seconds = Gauge<f64, AtomicU64>;
type LatencyFamily = Family<OperationLabels, Histogram, fn() -> Histogram>;

fn latency_histogram() -> Histogram {
    // kube: ExponentialBuckets(0.0001, 2, 20), 0.1 ms to ~52 s.
    Histogram::new(exponential_buckets(0.0001, 2.0, 20))
}

/// The process's KMS v2 metrics (one set, as kube's are global).
pub struct KmsMetrics {
    key_id_total: Family<KeyIdLabels, Counter>,
    key_id_last: Family<KeyIdLabels, Seconds>,
    status_key_id_last: Family<StatusKeyIdLabels, Seconds>,
    invalid_key_id: Family<InvalidKeyIdLabels, Counter>,
    cache_size: Family<ProviderLabels, Gauge>,
    latency: LatencyFamily,
    cache_misses: Counter,
    key_id_sets: Mutex<VecDeque<KeyIdLabels>>,
    status_sets: Mutex<VecDeque<StatusKeyIdLabels>>,
    /// `sha256:` of this process's identity (kube's apiserver ID, `apiserver-<uuid>`).
    apiserver_id_hash: String,
}

pub static METRICS: LazyLock<KmsMetrics> = LazyLock::new(|| KmsMetrics {
    key_id_total: Family::default(),
    key_id_last: Family::default(),
    status_key_id_last: Family::default(),
    invalid_key_id: Family::default(),
    cache_size: Family::default(),
    latency: Family::new_with_constructor(latency_histogram),
    cache_misses: Counter::default(),
    key_id_sets: Mutex::new(VecDeque::new()),
    status_sets: Mutex::new(VecDeque::new()),
    apiserver_id_hash: hash_if_not_empty(&format!("apiserver-{}", uuid::Uuid::new_v4())),
});

/// Serves the KMS v2 metrics on `/metrics` (call once, when a `kms` provider is configured).
pub fn register(metrics: &mut Metrics) {
    let m = &*METRICS;
    metrics.register(
        "apiserver_envelope_encryption_key_id_hash",
        "Number of times a keyID is used split by transformation type, provider, and apiserver identity.",
        m.key_id_total.clone(),
    );
    metrics.register(
        "apiserver_envelope_encryption_key_id_hash_last_timestamp_seconds",
        "The last time in seconds when a keyID was used.",
        m.key_id_last.clone(),
    );
    metrics.register(
        "apiserver_envelope_encryption_key_id_hash_status_last_timestamp_seconds",
        "The last time in seconds when a keyID was returned by the Status RPC call.",
        m.status_key_id_last.clone(),
    );
    metrics.register(
        "apiserver_envelope_encryption_invalid_key_id_from_status",
        "Number of times an invalid keyID is returned by the Status RPC call split by error.",
        m.invalid_key_id.clone(),
    );
    metrics.register(
        "apiserver_envelope_encryption_dek_source_cache_size",
        "Number of records in data encryption key (DEK) source cache. On a restart, this value is an approximation of the number of decrypt RPC calls the server will make to the KMS plugin.",
        m.cache_size.clone(),
    );
    metrics.register(
        "apiserver_envelope_encryption_kms_operations_latency_seconds",
        "KMS operation duration with gRPC error code status total.",
        m.latency.clone(),
    );
    metrics.register(
        "apiserver_storage_envelope_transformation_cache_misses",
        "Total number of cache misses while accessing key decryption key(KEK).",
        m.cache_misses.clone(),
    );
}

fn now_seconds() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or(Duration::ZERO)
        .as_secs_f64()
}

impl KmsMetrics {
    /// kube's `RecordKeyID`.
    /// `key_id_hash` is [`hash_if_not_empty`] of the key ID.
    pub fn key_id_used(
        &self,
        transformation_type: &'static str,
        provider: &str,
        key_id_hash: &str,
    ) {
        let labels = KeyIdLabels {
            transformation_type,
            provider_name: provider.to_owned(),
            key_id_hash: key_id_hash.to_owned(),
            apiserver_id_hash: self.apiserver_id_hash.clone(),
        };
        if let Some(old) = remember_owned(&self.key_id_sets, labels.clone()) {
            self.key_id_total.remove(&old);
            self.key_id_last.remove(&old);
        }
        self.key_id_total.get_or_create(&labels).inc();
        self.key_id_last.get_or_create(&labels).set(now_seconds());
    }

    /// kube's `RecordKeyIDFromStatus`.
    pub fn status_key_id(&self, provider: &str, key_id: &str) {
        let labels = StatusKeyIdLabels {
            provider_name: provider.to_owned(),
            key_id_hash: hash_if_not_empty(key_id),
            apiserver_id_hash: self.apiserver_id_hash.clone(),
        };
        if let Some(old) = remember_owned(&self.status_sets, labels.clone()) {
            self.status_key_id_last.remove(&old);
        }
        self.status_key_id_last
            .get_or_create(&labels)
            .set(now_seconds());
    }

    /// kube's `RecordInvalidKeyIDFromStatus`.
    pub fn invalid_status_key_id(&self, provider: &str, error: &'static str) {
        let labels = InvalidKeyIdLabels {
            provider_name: provider.to_owned(),
            error,
        };
        self.invalid_key_id.get_or_create(&labels).inc();
    }

    /// kube's `RecordDekSourceCacheSize`.
    pub fn cache_size(&self, provider: &str, size: usize) {
        let labels = ProviderLabels {
            provider_name: provider.to_owned(),
        };
        self.cache_size
            .get_or_create(&labels)
            .set(i64::try_from(size).unwrap_or(i64::MAX));
    }

    /// kube's `RecordCacheMiss`.
    pub fn cache_miss(&self) {
        self.cache_misses.inc();
    }

    /// kube's `RecordKMSOperationLatency` (the method is the gRPC path).
    pub fn operation(
        &self,
        provider: &str,
        method_name: &'static str,
        code: &'static str,
        took: Duration,
    ) {
        let labels = OperationLabels {
            provider_name: provider.to_owned(),
            method_name,
            grpc_status_code: code,
        };
        self.latency
            .get_or_create(&labels)
            .observe(took.as_secs_f64());
    }
}

/// Keeps `labels` among the newest [`KEY_ID_SERIES`]; returns the one pushed out.
fn remember_owned<L: PartialEq>(sets: &Mutex<VecDeque<L>>, labels: L) -> Option<L> {
    let mut sets = sets.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(at) = sets.iter().rposition(|l| *l == labels) {
        if at + 1 != sets.len()
            && let Some(again) = sets.remove(at)
        {
            sets.push_back(again);
        }
        return None;
    }
    sets.push_back(labels);
    if sets.len() > KEY_ID_SERIES {
        return sets.pop_front();
    }
    None
}
