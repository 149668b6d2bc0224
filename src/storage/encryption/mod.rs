//! Encryption at rest, as kube's `--encryption-provider-config` does it: the
//! `EncryptionConfiguration` read at start-up, the providers (`aesgcm`, `aescbc`,
//! `secretbox`, `identity`, `kms` v2) and the store wrapper that encrypts every value on
//! its way to a backend and decrypts it on its way back (below the watch cache, which so
//! holds decrypted objects only in memory).

pub mod aes;
pub mod config;
pub mod kms;
pub mod metrics;
pub mod prefix;
pub mod resources;
pub mod secretbox;
pub mod store;
#[cfg(test)]
mod tests;
pub mod validate;

use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;

/// Why a value could not be transformed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EncryptionError {
    /// No provider can read this value (kube's "no matching prefix found" and the like).
    #[error("{0}")]
    Read(String),
    /// The write provider failed (a KMS plugin down, say).
    #[error("{0}")]
    Write(String),
}

/// A value read back: the plaintext, and whether it should be re-written (kube's
/// `stale`: read by a provider or key other than the one writes use).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decrypted {
    pub data: Vec<u8>,
    pub stale: bool,
}

/// kube's `value.Transformer` for one resource. `context` is the authenticated data:
/// the value's storage key, as kube's etcd3 store passes it.
pub trait Transformer: Send + Sync {
    fn transform_from_storage<'a>(
        &'a self,
        data: &'a [u8],
        context: &'a [u8],
    ) -> BoxFuture<'a, Result<Decrypted, EncryptionError>>;
    fn transform_to_storage<'a>(
        &'a self,
        data: &'a [u8],
        context: &'a [u8],
    ) -> BoxFuture<'a, Result<Vec<u8>, EncryptionError>>;
}

/// kube's `KMSConfiguration` of one `kms` provider (apiVersion `v2`; `v1` is refused as
/// kube 1.36 refuses it unless its deprecated gate is on).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KmsConfiguration {
    pub api_version: String,
    pub name: String,
    /// `unix:///path/to/socket`.
    pub endpoint: String,
    /// Per call (kube's default 3s).
    pub timeout: Duration,
}

/// The transformer of one KMS provider (CONTRACT: the kms engineer fills it in).
pub type KmsTransformer = Arc<dyn Transformer>;

/// Fills `buf` from the system's randomness (nonces and IVs).
pub(crate) fn random(buf: &mut [u8]) -> Result<(), String> {
    use ring::rand::SecureRandom;
    ring::rand::SystemRandom::new()
        .fill(buf)
        .map_err(|_| "unable to read sufficient random bytes".to_string())
}
