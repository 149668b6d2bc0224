//! `--encryption-provider-config-automatic-reload`, as kube's encryption configuration
//! controller does it (k8s.io/apiserver `pkg/server/options/encryptionconfig/controller`):
//! the file polled (kube's `EncryptionConfigFileChangePollDuration`, a minute), re-read when
//! its content hash differs from the loaded one, the new configuration decoded, validated
//! and its providers made, then applied (swapped whole into the store's transformers). A file that
//! fails keeps the providers in use, counts a failure and is tried again at the next poll.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use super::config::{EncryptionConfiguration, content_hash};
use super::metrics::TransformationMetrics;
use super::reload_metrics::ReloadMetrics;
use super::resources::{Encryption, Plan};

/// kube's `EncryptionConfigFileChangePollDuration`.
pub const POLL: Duration = Duration::from_secs(60);

/// Puts a new configuration in use (the server applies it to its served resources and
/// swaps the store's transformers).
pub type Apply = Arc<dyn Fn(Arc<Encryption>) + Send + Sync>;

/// The controller of one configuration file.
pub struct Reload {
    pub path: PathBuf,
    pub every: Duration,
    pub apply: Apply,
    pub transformation: TransformationMetrics,
    pub metrics: ReloadMetrics,
}

/// What one poll did.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The file's content is the loaded one.
    Unchanged,
    /// A new configuration is in use; its content hash.
    Loaded(String),
}

impl Reload {
    /// Polls until the runtime ends; `loaded` is the content hash in use.
    pub fn spawn(self, loaded: String) -> tokio::task::JoinHandle<()> {
        tokio::spawn(self.run(loaded))
    }

    async fn run(self, mut loaded: String) {
        let mut ticks = tokio::time::interval(self.every);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticks.tick().await;
            match self.poll(&loaded).await {
                Ok(Outcome::Unchanged) => {}
                Ok(Outcome::Loaded(hash)) => {
                    tracing::info!(path = %self.path.display(), %hash, "Loaded new encryption config content");
                    self.metrics.success(&hash);
                    loaded = hash;
                }
                Err(e) => {
                    self.metrics.failure();
                    tracing::error!(
                        "error processing encryption config file {}: {e}",
                        self.path.display()
                    );
                }
            }
        }
    }

    /// kube's `processWorkItem`: nothing when the content hash is `loaded`, else the new
    /// configuration in use, or kube's text of why not (the old one kept).
    pub async fn poll(&self, loaded: &str) -> Result<Outcome, String> {
        let quoted = crate::gofmt::quote(&self.path.display().to_string());
        let data = tokio::fs::read(&self.path).await.map_err(|e| {
            format!("error reading encryption provider configuration file {quoted}: {e}")
        })?;
        if data.is_empty() {
            return Err(format!(
                "encryption provider configuration file {quoted} is empty"
            ));
        }
        if content_hash(&data) == loaded {
            return Ok(Outcome::Unchanged);
        }
        let config = EncryptionConfiguration::load(&self.path)?;
        if config.content_hash == loaded {
            return Ok(Outcome::Unchanged);
        }
        let made = Plan::new(&config)?
            .connect(self.transformation.clone())
            .await?;
        (self.apply)(Arc::new(made));
        Ok(Outcome::Loaded(config.content_hash))
    }
}
