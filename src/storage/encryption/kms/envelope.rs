//! kube's KMS v2 `envelopeTransformer`: a write encrypts with the current state's DEK
//! seed (no plugin call) and stores an `EncryptedObject`; a read finds the value's DEK
//! source in the cache or asks the plugin to decrypt it once, and is stale when written
//! under another key ID (or DEK source type) than writes use now.
//!
//! The `k8s:enc:kms:v2:<name>:` prefix is not this transformer's: the provider list adds
//! and strips it, as kube's `kmsPrefixTransformer` does (see [`super::prefix`]).

use std::sync::Arc;

use futures::future::BoxFuture;
use prost::Message;

use super::api::{DecryptRequest, EncryptedDekSourceType, EncryptedObject};
use super::cache::SeedCache;
use super::dek::Dek;
use super::metrics::{FROM_STORAGE, METRICS, TO_STORAGE};
use super::probe::Probe;
use super::service::Service;
use super::state::StateCell;
use super::validate;
use crate::storage::encryption::{Decrypted, EncryptionError, Transformer};

pub struct Envelope {
    name: String,
    service: Arc<dyn Service>,
    state: Arc<StateCell>,
    cache: SeedCache,
    /// Kept so that the provider's poll lives as long as its transformer.
    _probe: Option<Arc<Probe>>,
}

impl Envelope {
    pub fn new(
        name: &str,
        service: Arc<dyn Service>,
        state: Arc<StateCell>,
        probe: Option<Arc<Probe>>,
    ) -> Envelope {
        Envelope {
            name: name.to_owned(),
            service,
            state,
            cache: SeedCache::new(name),
            _probe: probe,
        }
    }

    async fn read(&self, data: &[u8], context: &[u8]) -> Result<Decrypted, String> {
        let object = EncryptedObject::decode(data).map_err(|e| e.to_string())?;
        let kind = validate::encrypted_object(&object)?;
        // Reads need a state too (kube's stateFunc), though only to tell staleness.
        let state = self.state.current()?;
        let key = validate::cache_key(
            kind,
            &object.encrypted_dek_source,
            &object.key_id,
            &object.annotations,
        );
        let dek = self
            .cache
            .get_or_load(key, || self.decrypt_dek(&object, kind))
            .await?;
        let key_id_hash = if object.key_id == state.key_id {
            state.key_id_hash.clone()
        } else {
            validate::hash_if_not_empty(&object.key_id)
        };
        METRICS.key_id_used(FROM_STORAGE, &self.name, &key_id_hash);
        let data = dek.open(&object.encrypted_data, context)?;
        Ok(Decrypted {
            data,
            stale: object.key_id != state.key_id || kind != state.kind,
        })
    }

    /// One plugin Decrypt of a value's DEK source.
    async fn decrypt_dek(
        &self,
        object: &EncryptedObject,
        kind: EncryptedDekSourceType,
    ) -> Result<Dek, String> {
        let request = DecryptRequest {
            ciphertext: object.encrypted_dek_source.clone(),
            uid: uuid::Uuid::new_v4().to_string(),
            key_id: object.key_id.clone(),
            annotations: object.annotations.clone(),
        };
        let plaintext = self
            .service
            .decrypt(request)
            .await
            .map_err(|e| format!("failed to decrypt DEK, error: {e}"))?;
        match kind {
            EncryptedDekSourceType::HkdfSha256XnonceAesGcmSeed => Dek::seed(&plaintext),
            EncryptedDekSourceType::AesGcmKey => Dek::key(&plaintext),
        }
    }

    fn write(&self, data: &[u8], context: &[u8]) -> Result<Vec<u8>, String> {
        let state = self.state.current()?;
        state.validate_encrypt_capability()?;
        // Reads of what is written now find its DEK without asking the plugin.
        self.cache.set(state.cache_key, &state.dek);
        let encrypted = state.dek.seal(data, context)?;
        METRICS.key_id_used(TO_STORAGE, &self.name, &state.key_id_hash);
        Ok(state.encode(&encrypted))
    }
}

impl Transformer for Envelope {
    fn transform_from_storage<'a>(
        &'a self,
        data: &'a [u8],
        context: &'a [u8],
    ) -> BoxFuture<'a, Result<Decrypted, EncryptionError>> {
        Box::pin(async move {
            self.read(data, context)
                .await
                .map_err(EncryptionError::Read)
        })
    }

    fn transform_to_storage<'a>(
        &'a self,
        data: &'a [u8],
        context: &'a [u8],
    ) -> BoxFuture<'a, Result<Vec<u8>, EncryptionError>> {
        Box::pin(async move { self.write(data, context).map_err(EncryptionError::Write) })
    }
}

#[cfg(test)]
#[path = "envelope_tests.rs"]
mod tests;
