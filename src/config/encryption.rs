//! Encryption at rest's flag (k8s.io/apiserver's `--encryption-provider-config`): the
//! `EncryptionConfiguration` file read and checked at start-up with kube's texts.

use std::path::PathBuf;

use clap::Args;

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
}

impl Problems {
    /// The configuration of `--encryption-provider-config` (`Some(None)` without the
    /// flag); `None` after a problem, which is kube's text.
    pub(super) fn encryption(
        &mut self,
        flags: &EncryptionFlags,
    ) -> Option<Option<EncryptionConfiguration>> {
        let Some(path) = &flags.encryption_provider_config else {
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
