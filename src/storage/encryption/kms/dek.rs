//! The data encryption key of a KMS v2 value, as kube's aes package builds it: from a
//! seed (`HKDF_SHA256_XNONCE_AES_GCM_SEED`, what this server writes: each write derives
//! a fresh AES-256-GCM key with HKDF-SHA256-Expand(seed, info) from 32 random bytes of
//! info, stored as `info || nonce || ciphertext+tag`) or the DEK itself (`AES_GCM_KEY`,
//! older values: `nonce || ciphertext+tag`). The authenticated data is the storage key.

use ring::aead::{AES_128_GCM, AES_256_GCM, Aad, LessSafeKey, NONCE_LEN, Nonce, UnboundKey};
use ring::hkdf::{HKDF_SHA256, KeyType, Prk};
use ring::rand::{SecureRandom, SystemRandom};

/// kube's `commonSize`: the seed, the info and the derived key are this long.
pub const SEED_LEN: usize = 32;
const INFO_LEN: usize = 32;
const DERIVED_KEY_LEN: usize = 32;

/// A DEK as a value's `encryptedDEKSourceType` says to use the plugin's plaintext.
pub enum Dek {
    Seed(Prk),
    Key(Box<LessSafeKey>),
}

struct DerivedLen;

impl KeyType for DerivedLen {
    fn len(&self) -> usize {
        DERIVED_KEY_LEN
    }
}

/// `len` random bytes (a new seed, say).
pub fn random(len: usize) -> Result<Vec<u8>, String> {
    let mut out = vec![0; len];
    SystemRandom::new()
        .fill(&mut out)
        .map_err(|_| "failed to read random bytes".to_owned())?;
    Ok(out)
}

impl Dek {
    /// kube's `NewHKDFExtendedNonceGCMTransformer`.
    pub fn seed(seed: &[u8]) -> Result<Dek, String> {
        if seed.len() < SEED_LEN {
            return Err(format!(
                "invalid seed length {} used for key generation",
                seed.len()
            ));
        }
        Ok(Dek::Seed(Prk::new_less_safe(HKDF_SHA256, seed)))
    }

    /// kube's `NewGCMTransformer(aes.NewCipher(key))`.
    pub fn key(key: &[u8]) -> Result<Dek, String> {
        gcm(key).map(|k| Dek::Key(Box::new(k)))
    }

    /// Encrypts one value (seed mode only: this server never writes with a bare DEK).
    pub fn seal(&self, data: &[u8], context: &[u8]) -> Result<Vec<u8>, String> {
        match self {
            Dek::Seed(prk) => {
                let mut out = random(INFO_LEN)?;
                let key = derive(prk, &out)
                    .map_err(|e| format!("failed to derive write key from KDF: {e}"))?;
                seal_into(&key, data, context, &mut out)?;
                Ok(out)
            }
            Dek::Key(key) => {
                let mut out = Vec::with_capacity(NONCE_LEN + data.len() + 16);
                seal_into(key, data, context, &mut out)?;
                Ok(out)
            }
        }
    }

    /// Decrypts one value.
    pub fn open(&self, data: &[u8], context: &[u8]) -> Result<Vec<u8>, String> {
        match self {
            Dek::Seed(prk) => {
                let Some((info, rest)) = data.split_at_checked(INFO_LEN) else {
                    return Err(SHORT.to_owned());
                };
                let key = derive(prk, info)
                    .map_err(|e| format!("failed to derive read key from KDF: {e}"))?;
                open_with(&key, rest, context)
            }
            Dek::Key(key) => open_with(key, data, context),
        }
    }
}

const SHORT: &str = "the stored data was shorter than the required size";

/// AES-GCM with a 16- or 32-byte key (kube's DEKs are 32; 24 is refused as Go's
/// `aes.NewCipher` would accept it but no KMS v2 server ever wrote one).
fn gcm(key: &[u8]) -> Result<LessSafeKey, String> {
    let algorithm = match key.len() {
        16 => &AES_128_GCM,
        32 => &AES_256_GCM,
        n => return Err(format!("crypto/aes: invalid key size {n}")),
    };
    UnboundKey::new(algorithm, key)
        .map(LessSafeKey::new)
        .map_err(|_| format!("crypto/aes: invalid key size {}", key.len()))
}

/// The AES-GCM key of one value: [`expand`] of its info.
fn derive(prk: &Prk, info: &[u8]) -> Result<LessSafeKey, String> {
    gcm(&expand(prk, info)?)
}

/// HKDF-Expand only (the seed is the pseudo-random key), SHA-256, 32 bytes.
fn expand(prk: &Prk, info: &[u8]) -> Result<[u8; DERIVED_KEY_LEN], String> {
    let mut key = [0u8; DERIVED_KEY_LEN];
    let parts = [info];
    prk.expand(&parts, DerivedLen)
        .and_then(|okm| okm.fill(&mut key))
        .map_err(|_| "failed to read a derived key from KDF".to_owned())?;
    Ok(key)
}

/// Appends `nonce || ciphertext || tag` to `out`.
fn seal_into(
    key: &LessSafeKey,
    data: &[u8],
    context: &[u8],
    out: &mut Vec<u8>,
) -> Result<(), String> {
    let nonce_bytes =
        random(NONCE_LEN).map_err(|e| format!("failed to write nonce for AES-GCM: {e}"))?;
    let mut nonce = [0u8; NONCE_LEN];
    nonce.copy_from_slice(&nonce_bytes);
    out.reserve(NONCE_LEN + data.len() + key.algorithm().tag_len());
    out.extend_from_slice(&nonce);
    let start = out.len();
    out.extend_from_slice(data);
    let tag = key
        .seal_in_place_separate_tag(
            Nonce::assume_unique_for_key(nonce),
            Aad::from(context),
            &mut out[start..],
        )
        .map_err(|_| "failed to encrypt with AES-GCM".to_owned())?;
    out.extend_from_slice(tag.as_ref());
    Ok(())
}

fn open_with(key: &LessSafeKey, data: &[u8], context: &[u8]) -> Result<Vec<u8>, String> {
    let Some((nonce, sealed)) = data.split_at_checked(NONCE_LEN) else {
        return Err(SHORT.to_owned());
    };
    let nonce = Nonce::try_assume_unique_for_key(nonce).map_err(|_| SHORT.to_owned())?;
    let mut buf = sealed.to_vec();
    let plain = key
        .open_in_place(nonce, Aad::from(context), &mut buf)
        .map_err(|_| "cipher: message authentication failed".to_owned())?;
    let len = plain.len();
    buf.truncate(len);
    Ok(buf)
}

#[cfg(test)]
#[path = "dek_tests.rs"]
mod tests;
