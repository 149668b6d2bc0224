//! kube's `secretbox` provider (k8s.io/apiserver `pkg/storage/value/encrypt/secretbox`):
//! XSalsa20-Poly1305 with a 32-byte key, stored as `nonce(24) + tag(16) + ciphertext`
//! (NaCl's layout); the storage key is not bound. Error texts are kube's.

use crypto_secretbox::aead::Aead;
use crypto_secretbox::{KeyInit, XSalsa20Poly1305};

use super::{Decrypted, EncryptionError, random};

const NONCE: usize = 24;
const OVERHEAD: usize = 16;

/// One `secretbox` key.
pub struct Secretbox(XSalsa20Poly1305);

impl Secretbox {
    pub fn new(key: &[u8; 32]) -> Secretbox {
        Secretbox(XSalsa20Poly1305::new(key.into()))
    }

    pub fn decrypt(&self, data: &[u8]) -> Result<Decrypted, EncryptionError> {
        if data.len() < OVERHEAD + NONCE {
            return Err(EncryptionError::Read(
                "the stored data was shorter than the required size".into(),
            ));
        }
        let (nonce, sealed) = data.split_at(NONCE);
        let data = self.0.decrypt(nonce.into(), sealed).map_err(|_| {
            EncryptionError::Read("output array was not large enough for encryption".into())
        })?;
        Ok(Decrypted { data, stale: false })
    }

    pub fn encrypt(&self, data: &[u8]) -> Result<Vec<u8>, EncryptionError> {
        let mut nonce = [0u8; NONCE];
        random(&mut nonce)
            .map_err(|_| EncryptionError::Write("unable to read sufficient random bytes".into()))?;
        let sealed = self
            .0
            .encrypt((&nonce).into(), data)
            .map_err(|_| EncryptionError::Write("secretbox seal failed".into()))?;
        let mut out = Vec::with_capacity(NONCE + sealed.len());
        out.extend_from_slice(&nonce);
        out.extend_from_slice(&sealed);
        Ok(out)
    }
}
