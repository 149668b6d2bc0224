//! KMS v2 envelope encryption, as kube's `kms` provider with `apiVersion: v2` does it: the
//! plugin reached over gRPC on a unix socket, a DEK seed per key ID encrypted once by the
//! plugin and cached, a DEK derived per write (HKDF-SHA256), values stored as kube's
//! `EncryptedObject`; the plugin's Status polled for health and key ID changes.

pub mod api;
mod cache;
mod dek;
mod envelope;
mod metrics;
mod probe;
mod service;
mod state;
mod validate;

use std::sync::{Arc, Mutex, PoisonError, Weak};

use super::{KmsConfiguration, KmsTransformer};

pub use self::metrics::register as register_metrics;
pub use self::probe::Probe;

/// kube's prefix of a `kms` v2 provider's values: `k8s:enc:kms:v2:<name>:`. The caller's
/// provider list adds it on writes and strips it before [`transformer`]'s reads, as kube's
/// `kmsPrefixTransformer` does.
pub fn prefix(name: &str) -> String {
    format!("k8s:enc:kms:v2:{name}:")
}

/// One configured `kms` v2 provider: its transformer and its health check (kube's
/// `kms-provider-<i>` check, which the `kms-providers` health check runs).
pub struct Provider {
    pub transformer: KmsTransformer,
    pub probe: Arc<Probe>,
}

/// Connects to the plugin of `config` and returns its transformer (CONTRACT).
///
/// As kube, a plugin that does not answer yet is no error: the first Status is tried
/// once here, then every 10 s in the background until it answers; until then reads and
/// writes fail with `got unexpected nil transformer`.
pub async fn transformer(config: &KmsConfiguration) -> Result<KmsTransformer, String> {
    provider(config).await.map(|p| p.transformer)
}

/// [`transformer`] with the provider's health check.
pub async fn provider(config: &KmsConfiguration) -> Result<Provider, String> {
    if config.api_version != "v2" {
        return Err(format!(
            "could not configure KMS plugin {}, unsupported KMS API version {}",
            crate::gofmt::quote(&config.name),
            crate::gofmt::quote(&config.api_version)
        ));
    }
    let service =
        service::Grpc::new(&config.endpoint, &config.name, config.timeout).map_err(|e| {
            format!(
                "could not configure KMSv2-Plugin's probe {}, error: {e}",
                crate::gofmt::quote(&config.name)
            )
        })?;
    Ok(start(&config.name, Arc::new(service)).await)
}

/// The probes of the process's live `kms` v2 providers, in the order they were made.
static PROBES: Mutex<Vec<Weak<Probe>>> = Mutex::new(Vec::new());

/// kube's `kms-providers` health check (of `/healthz` and `/readyz`): each live provider's
/// probe in turn, failures as `kms-provider-<i>: <error>`; `None` when no `kms` provider
/// is configured (the check is then not listed, as in kube).
pub async fn health() -> Option<Result<(), String>> {
    let probes: Vec<Arc<Probe>> = {
        let mut probes = PROBES.lock().unwrap_or_else(PoisonError::into_inner);
        probes.retain(|p| p.strong_count() > 0);
        probes.iter().filter_map(Weak::upgrade).collect()
    };
    if probes.is_empty() {
        return None;
    }
    let mut errs = Vec::new();
    for (i, probe) in probes.iter().enumerate() {
        if let Err(e) = probe.check().await {
            errs.push(format!("kms-provider-{i}: {e}"));
        }
    }
    Some(validate::aggregate(errs).map_or(Ok(()), Err))
}

/// The provider over `service`, primed by one check, polled from then on.
async fn start(name: &str, service: Arc<dyn service::Service>) -> Provider {
    let state = Arc::new(state::StateCell::default());
    let probe = Arc::new(Probe::new(name, service.clone(), state.clone()));
    PROBES
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(Arc::downgrade(&probe));
    let primed = probe::check_and_log(&probe).await;
    tokio::spawn(probe::poll(Arc::downgrade(&probe), primed));
    let transformer = envelope::Envelope::new(name, service, state, Some(probe.clone()));
    Provider {
        transformer: Arc::new(transformer),
        probe,
    }
}
