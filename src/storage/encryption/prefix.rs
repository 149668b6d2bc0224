//! kube's prefix transformers (k8s.io/apiserver `pkg/storage/value/transformer.go`) for
//! one resource: the providers in configuration order, each behind its prefix
//! (`k8s:enc:aesgcm:v1:`, `k8s:enc:aescbc:v1:`, `k8s:enc:secretbox:v1:`,
//! `k8s:enc:kms:v2:<name>:`, none for `identity`), and inside an AES or secretbox provider
//! its keys, each behind `<name>:`. Reads try every listed prefix and report `stale` when
//! anything but the first provider and key read the value; writes use the first.

use std::sync::Arc;

use super::aes::{Cbc, Gcm};
use super::metrics::Recorder;
use super::secretbox::Secretbox;
use super::{Decrypted, EncryptionError, Transformer};

/// What kube's identity transformer refuses to read.
const ENCRYPTED: &[u8] = b"k8s:enc:";

/// The cipher of one named key.
pub enum Cipher {
    Gcm(Gcm),
    Cbc(Box<Cbc>),
    Secretbox(Secretbox),
}

impl Cipher {
    fn decrypt(&self, data: &[u8], context: &[u8]) -> Result<Decrypted, EncryptionError> {
        match self {
            Cipher::Gcm(gcm) => gcm.decrypt(data, context),
            Cipher::Cbc(cbc) => cbc.decrypt(data),
            Cipher::Secretbox(sb) => sb.decrypt(data),
        }
    }

    fn encrypt(&self, data: &[u8], context: &[u8]) -> Result<Vec<u8>, EncryptionError> {
        match self {
            Cipher::Gcm(gcm) => gcm.encrypt(data, context),
            Cipher::Cbc(cbc) => cbc.encrypt(data),
            Cipher::Secretbox(sb) => sb.encrypt(data),
        }
    }
}

/// One named key: its prefix is `<name>:`.
pub struct Key {
    pub prefix: Vec<u8>,
    pub cipher: Cipher,
}

/// What reads and writes behind one provider's prefix.
pub enum Kind {
    /// `aesgcm`, `aescbc`, `secretbox`: the keys in order, and the text when none matches.
    Keys {
        keys: Vec<Key>,
        no_match: &'static str,
    },
    /// `identity`: the value as is (refusing encrypted values on read).
    Identity,
    /// `kms` v2: the plugin's envelope transformer.
    Kms(Arc<dyn Transformer>),
}

/// One provider of a resource's list.
pub struct Provider {
    pub prefix: Vec<u8>,
    /// The prefix as the metrics label it (`identity` for none).
    pub label: Arc<str>,
    pub kind: Kind,
}

/// A resource's providers, in configuration order (kube's `prefixTransformers` with the
/// error "no matching prefix found").
pub struct Providers {
    pub providers: Vec<Arc<Provider>>,
    pub recorder: Recorder,
}

impl Providers {
    /// The plaintext of a stored value; `stale` unless the first provider and its first
    /// key read it.
    pub async fn read(&self, data: &[u8], context: &[u8]) -> Result<Decrypted, EncryptionError> {
        let mut errors = Vec::new();
        for (i, provider) in self.providers.iter().enumerate() {
            let Some(rest) = data.strip_prefix(provider.prefix.as_slice()) else {
                continue;
            };
            let started = std::time::Instant::now();
            let result = provider.read(rest, context).await;
            if provider.prefix.is_empty() && result.is_err() {
                continue;
            }
            self.recorder
                .record("from_storage", &provider.label, started, result.is_ok());
            match result {
                Ok(mut decrypted) => {
                    decrypted.stale |= i != 0;
                    return Ok(decrypted);
                }
                Err(e) => errors.push(e.to_string()),
            }
        }
        if errors.is_empty() {
            let unknown: Arc<str> = "unknown".into();
            let now = std::time::Instant::now();
            self.recorder.record("from_storage", &unknown, now, false);
        }
        Err(EncryptionError::Read(reduce(
            errors,
            "no matching prefix found",
        )))
    }

    /// The stored form of `data`: the first provider's prefix and output.
    pub async fn write(&self, data: &[u8], context: &[u8]) -> Result<Vec<u8>, EncryptionError> {
        let Some(first) = self.providers.first() else {
            return Ok(data.to_vec());
        };
        let started = std::time::Instant::now();
        let result = first.write(data, context).await;
        self.recorder
            .record("to_storage", &first.label, started, result.is_ok());
        result
    }
}

impl Provider {
    async fn read(&self, data: &[u8], context: &[u8]) -> Result<Decrypted, EncryptionError> {
        match &self.kind {
            Kind::Identity if data.starts_with(ENCRYPTED) => Err(EncryptionError::Read(
                "identity transformer tried to read encrypted data".into(),
            )),
            Kind::Identity => Ok(Decrypted {
                data: data.to_vec(),
                stale: false,
            }),
            Kind::Keys { keys, no_match } => read_keys(keys, no_match, data, context),
            Kind::Kms(kms) => kms.transform_from_storage(data, context).await,
        }
    }

    async fn write(&self, data: &[u8], context: &[u8]) -> Result<Vec<u8>, EncryptionError> {
        let sealed = match &self.kind {
            Kind::Identity => return Ok(data.to_vec()),
            Kind::Keys { keys, .. } => match keys.first() {
                Some(key) => {
                    let sealed = key.cipher.encrypt(data, context)?;
                    let mut out = key.prefix.clone();
                    out.extend_from_slice(&sealed);
                    out
                }
                None => return Err(EncryptionError::Write("provider has no keys".into())),
            },
            Kind::Kms(kms) => kms.transform_to_storage(data, context).await?,
        };
        let mut out = Vec::with_capacity(self.prefix.len() + sealed.len());
        out.extend_from_slice(&self.prefix);
        out.extend_from_slice(&sealed);
        Ok(out)
    }
}

/// The key-level prefix transformers of an AES or secretbox provider.
fn read_keys(
    keys: &[Key],
    no_match: &str,
    data: &[u8],
    context: &[u8],
) -> Result<Decrypted, EncryptionError> {
    let mut errors = Vec::new();
    for (i, key) in keys.iter().enumerate() {
        let Some(rest) = data.strip_prefix(key.prefix.as_slice()) else {
            continue;
        };
        match key.cipher.decrypt(rest, context) {
            Ok(mut decrypted) => {
                decrypted.stale |= i != 0;
                return Ok(decrypted);
            }
            Err(e) => errors.push(e.to_string()),
        }
    }
    Err(EncryptionError::Read(reduce(errors, no_match)))
}

/// kube's `errors.Reduce(errors.NewAggregate(errs))`, or `otherwise` when there are none:
/// one error as itself, several as `[a, b]` (repeated texts once).
fn reduce(errors: Vec<String>, otherwise: &str) -> String {
    let mut seen: Vec<String> = Vec::new();
    for e in errors {
        if !seen.contains(&e) {
            seen.push(e);
        }
    }
    match seen.len() {
        0 => otherwise.to_string(),
        1 => seen.remove(0),
        _ => format!("[{}]", seen.join(", ")),
    }
}
