//! Encryption at rest's flags (k8s.io/apiserver's `--encryption-provider-config` and
//! `--encryption-provider-config-automatic-reload`): the `EncryptionConfiguration` file
//! read and checked at start-up with kube's texts.

use std::path::PathBuf;
use std::time::Duration;

use clap::{ArgAction, Args};

use super::parse_duration;
use super::validate::Problems;
use crate::storage::encryption::config::EncryptionConfiguration;
use crate::storage::encryption::resources::Plan;

/// Flags of encryption at rest, flattened into the serve flags.
#[derive(Args, Debug, Clone, Default)]
pub struct EncryptionFlags {
    /// The file with kube's EncryptionConfiguration (apiserver.config.k8s.io/v1): which
    /// resources are encrypted in storage, by which providers (aesgcm, aescbc, secretbox,
    /// identity, kms v2); the first provider writes, every listed one reads.
    #[arg(long = "encryption-provider-config")]
    pub encryption_provider_config: Option<PathBuf>,
    /// Determines if the file set by --encryption-provider-config should be automatically
    /// reloaded if the disk contents change (polled; a file that fails keeps the
    /// configuration in use).
    #[arg(long = "encryption-provider-config-automatic-reload", action = ArgAction::Set,
        num_args = 0..=1, default_value_t = false, default_missing_value = "true")]
    pub encryption_provider_config_automatic_reload: bool,
    /// How often the reload polls the file (kube's EncryptionConfigFileChangePollDuration;
    /// tests shorten it).
    #[arg(long = "encryption-provider-config-automatic-reload-interval", default_value = "1m",
        value_parser = parse_duration, hide = true)]
    pub encryption_provider_config_automatic_reload_interval: Duration,
}

impl Problems {
    /// The configuration of `--encryption-provider-config` (`Some(None)` without the
    /// flag); `None` after a problem, which is kube's text.
    pub(super) fn encryption(
        &mut self,
        flags: &EncryptionFlags,
    ) -> Option<Option<EncryptionConfiguration>> {
        let Some(path) = &flags.encryption_provider_config else {
            if flags.encryption_provider_config_automatic_reload {
                self.raw("--encryption-provider-config-automatic-reload must be set with --encryption-provider-config");
                return None;
            }
            return Some(None);
        };
        let checked = EncryptionConfiguration::load(path)
            .and_then(|config| Plan::new(&config).map(|_| config));
        match checked {
            Ok(config) => Some(Some(config)),
            Err(problem) => {
                self.add("encryption-provider-config", problem);
                None
            }
        }
    }
}
