//! kube's `aesgcm` and `aescbc` providers (k8s.io/apiserver
//! `pkg/storage/value/encrypt/aes`): AES-GCM stores `nonce(12) + sealed` with the
//! storage key as additional data; AES-CBC stores `iv(16) + CBC(PKCS#7 padded)` and binds
//! nothing. Keys of 16, 24 or 32 bytes; error texts are Go's.

use aes::cipher::block_padding::NoPadding;
use aes::cipher::{BlockDecryptMut, BlockEncryptMut, InnerIvInit, KeyInit};
use aes_gcm::aead::{Aead, Payload};

use super::{Decrypted, EncryptionError, random};

const GCM_NONCE: usize = 12;
const BLOCK: usize = 16;

/// Go's `cipher.AEAD.Open` failure text.
const AUTH_FAILED: &str = "cipher: message authentication failed";
const SHORT: &str = "the stored data was shorter than the required size";

type Aes192Gcm = aes_gcm::AesGcm<aes::Aes192, aes_gcm::aead::consts::U12>;

/// The AEAD of one `aesgcm` key: ring's for AES-128 and AES-256, RustCrypto's for AES-192
/// (which ring lacks).
pub enum Gcm {
    Ring(Box<ring::aead::LessSafeKey>),
    Aes192(Box<Aes192Gcm>),
}

/// Why a key cannot make a cipher (Go's `aes.KeySizeError`).
pub fn key_size_error(len: usize) -> String {
    format!("crypto/aes: invalid key size {len}")
}

impl Gcm {
    pub fn new(key: &[u8]) -> Result<Gcm, String> {
        let ring_key = |alg| {
            ring::aead::UnboundKey::new(alg, key)
                .map(|k| Gcm::Ring(Box::new(ring::aead::LessSafeKey::new(k))))
                .map_err(|_| key_size_error(key.len()))
        };
        match key.len() {
            16 => ring_key(&ring::aead::AES_128_GCM),
            32 => ring_key(&ring::aead::AES_256_GCM),
            24 => Aes192Gcm::new_from_slice(key)
                .map(|k| Gcm::Aes192(Box::new(k)))
                .map_err(|_| key_size_error(key.len())),
            n => Err(key_size_error(n)),
        }
    }

    pub fn decrypt(&self, data: &[u8], aad: &[u8]) -> Result<Decrypted, EncryptionError> {
        if data.len() < GCM_NONCE {
            return Err(EncryptionError::Read(SHORT.into()));
        }
        let (nonce, sealed) = data.split_at(GCM_NONCE);
        let failed = |_| EncryptionError::Read(AUTH_FAILED.into());
        let data = match self {
            Gcm::Ring(key) => {
                let nonce = ring::aead::Nonce::try_assume_unique_for_key(nonce).map_err(failed)?;
                let mut buf = sealed.to_vec();
                let plain = key
                    .open_in_place(nonce, ring::aead::Aad::from(aad), &mut buf)
                    .map_err(failed)?;
                let len = plain.len();
                buf.truncate(len);
                buf
            }
            Gcm::Aes192(key) => key
                .decrypt(nonce.into(), Payload { msg: sealed, aad })
                .map_err(|_| EncryptionError::Read(AUTH_FAILED.into()))?,
        };
        Ok(Decrypted { data, stale: false })
    }

    pub fn encrypt(&self, data: &[u8], aad: &[u8]) -> Result<Vec<u8>, EncryptionError> {
        let mut nonce = [0u8; GCM_NONCE];
        random(&mut nonce).map_err(|e| {
            EncryptionError::Write(format!("failed to write nonce for AES-GCM: {e}"))
        })?;
        let sealed = match self {
            Gcm::Ring(key) => {
                let mut out = Vec::with_capacity(GCM_NONCE + data.len() + BLOCK);
                out.extend_from_slice(&nonce);
                out.extend_from_slice(data);
                let n = ring::aead::Nonce::assume_unique_for_key(nonce);
                let aad = ring::aead::Aad::from(aad);
                let tag = key
                    .seal_in_place_separate_tag(n, aad, &mut out[GCM_NONCE..])
                    .map_err(|_| EncryptionError::Write("AES-GCM seal failed".into()))?;
                out.extend_from_slice(tag.as_ref());
                return Ok(out);
            }
            Gcm::Aes192(key) => key
                .encrypt((&nonce).into(), Payload { msg: data, aad })
                .map_err(|_| EncryptionError::Write("AES-GCM seal failed".into()))?,
        };
        let mut out = Vec::with_capacity(GCM_NONCE + sealed.len());
        out.extend_from_slice(&nonce);
        out.extend_from_slice(&sealed);
        Ok(out)
    }
}

/// The block cipher of one `aescbc` key.
#[derive(Clone)]
pub enum Cbc {
    Aes128(aes::Aes128),
    Aes192(aes::Aes192),
    Aes256(aes::Aes256),
}

impl Cbc {
    pub fn new(key: &[u8]) -> Result<Cbc, String> {
        let bad = |_| key_size_error(key.len());
        match key.len() {
            16 => aes::Aes128::new_from_slice(key)
                .map(Cbc::Aes128)
                .map_err(bad),
            24 => aes::Aes192::new_from_slice(key)
                .map(Cbc::Aes192)
                .map_err(bad),
            32 => aes::Aes256::new_from_slice(key)
                .map(Cbc::Aes256)
                .map_err(bad),
            n => Err(key_size_error(n)),
        }
    }

    pub fn decrypt(&self, data: &[u8]) -> Result<Decrypted, EncryptionError> {
        let read = |m: &str| EncryptionError::Read(m.into());
        if data.len() < BLOCK {
            return Err(read(SHORT));
        }
        let (iv, body) = data.split_at(BLOCK);
        if body.len() % BLOCK != 0 {
            return Err(read("the stored data is not a multiple of the block size"));
        }
        let mut buf = body.to_vec();
        let iv = iv.into();
        let done = match self {
            Cbc::Aes128(c) => cbc::Decryptor::inner_iv_init(c.clone(), iv)
                .decrypt_padded_mut::<NoPadding>(&mut buf)
                .map(|_| ()),
            Cbc::Aes192(c) => cbc::Decryptor::inner_iv_init(c.clone(), iv)
                .decrypt_padded_mut::<NoPadding>(&mut buf)
                .map(|_| ()),
            Cbc::Aes256(c) => cbc::Decryptor::inner_iv_init(c.clone(), iv)
                .decrypt_padded_mut::<NoPadding>(&mut buf)
                .map(|_| ()),
        };
        done.map_err(|_| read("the stored data is not a multiple of the block size"))?;
        let size = unpad(&buf)?;
        buf.truncate(size);
        Ok(Decrypted {
            data: buf,
            stale: false,
        })
    }

    pub fn encrypt(&self, data: &[u8]) -> Result<Vec<u8>, EncryptionError> {
        let padding = BLOCK - data.len() % BLOCK;
        let mut out = vec![0u8; BLOCK];
        random(&mut out)
            .map_err(|_| EncryptionError::Write("unable to read sufficient random bytes".into()))?;
        let mut body = Vec::with_capacity(data.len() + padding);
        body.extend_from_slice(data);
        body.resize(data.len() + padding, padding as u8);
        let len = body.len();
        let iv = out.as_slice().into();
        let done = match self {
            Cbc::Aes128(c) => cbc::Encryptor::inner_iv_init(c.clone(), iv)
                .encrypt_padded_mut::<NoPadding>(&mut body, len)
                .map(|_| ()),
            Cbc::Aes192(c) => cbc::Encryptor::inner_iv_init(c.clone(), iv)
                .encrypt_padded_mut::<NoPadding>(&mut body, len)
                .map(|_| ()),
            Cbc::Aes256(c) => cbc::Encryptor::inner_iv_init(c.clone(), iv)
                .encrypt_padded_mut::<NoPadding>(&mut body, len)
                .map(|_| ()),
        };
        done.map_err(|_| EncryptionError::Write("AES-CBC padding failed".into()))?;
        out.extend_from_slice(&body);
        Ok(out)
    }
}

/// The length of `data` without its PKCS#7 padding, checked as kube checks it.
fn unpad(data: &[u8]) -> Result<usize, EncryptionError> {
    let empty = || EncryptionError::Read("invalid PKCS7 data (empty or not padded)".into());
    let last = *data.last().ok_or_else(empty)?;
    let padding = usize::from(last);
    if padding == 0 || padding > data.len() {
        return Err(empty());
    }
    let size = data.len() - padding;
    if data[size..].iter().any(|b| *b != last) {
        return Err(EncryptionError::Read("invalid padding on input".into()));
    }
    Ok(size)
}
