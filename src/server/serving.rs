//! The serving certificate, live: `--tls-cert-file` / `--tls-private-key-file` (or the
//! self-signed pair in `--cert-dir`) are compared with the pair in use every
//! [`POLL_INTERVAL`], as k8s.io/apiserver's `DynamicCertKeyPairContent` reloads them. A
//! renewed pair is handed to every new TLS handshake by [`ServingCertificate`]; open
//! connections keep the certificate they were set up with.
//!
//! The pair is swapped only when both files parse and the key matches the certificate,
//! so a renewal caught between writing the certificate and writing the key is never
//! half-applied: the old pair keeps serving and the problem is logged once per change.

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;

use super::tls::TlsError;
use crate::authn::cafile::{POLL_INTERVAL, Problems};

/// The pair in use, and a digest of the files' content it came from.
#[derive(Debug)]
struct InUse {
    key: Arc<CertifiedKey>,
    source: [u8; 32],
}

/// Hands the current serving pair to each handshake (any server name).
#[derive(Debug)]
pub struct ServingCertificate {
    current: RwLock<Arc<InUse>>,
}

impl ResolvesServerCert for ServingCertificate {
    fn resolve(&self, _hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(self.in_use().key.clone())
    }
}

impl ServingCertificate {
    fn in_use(&self) -> Arc<InUse> {
        self.current
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    fn swap(&self, next: InUse) {
        *self.current.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(next);
    }
}

/// A SHA-256 over both files, each length-prefixed.
fn digest(cert_pem: &[u8], key_pem: &[u8]) -> [u8; 32] {
    let mut ctx = ring::digest::Context::new(&ring::digest::SHA256);
    for part in [cert_pem, key_pem] {
        ctx.update(&(part.len() as u64).to_be_bytes());
        ctx.update(part);
    }
    let mut out = [0u8; 32];
    out.copy_from_slice(ctx.finish().as_ref());
    out
}

/// The pair from PEM: a non-empty chain (leaf first) and a key that matches the leaf.
pub fn certified_key(
    cert_pem: &[u8],
    key_pem: &[u8],
    cert_path: &Path,
    key_path: &Path,
) -> Result<CertifiedKey, TlsError> {
    let pem_error = |path: &Path, message: String| TlsError::Pem {
        path: path.display().to_string(),
        message,
    };
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(cert_pem)
        .collect::<Result<_, _>>()
        .map_err(|e| pem_error(cert_path, e.to_string()))?;
    if chain.is_empty() {
        return Err(pem_error(cert_path, "no certificate found".into()));
    }
    let key =
        PrivateKeyDer::from_pem_slice(key_pem).map_err(|e| pem_error(key_path, e.to_string()))?;
    let signing_key = rustls::crypto::ring::default_provider()
        .key_provider
        .load_private_key(key)
        .map_err(|e| pem_error(key_path, e.to_string()))?;
    let pair = CertifiedKey::new(chain, signing_key);
    // A key whose public half cannot be compared is refused too: serving a pair that
    // may not match would fail every handshake.
    pair.keys_match().map_err(|e| TlsError::Mismatch {
        cert: cert_path.display().to_string(),
        key: key_path.display().to_string(),
        message: e.to_string(),
    })?;
    Ok(pair)
}

/// Follows the serving pair's files.
pub struct ServingFiles {
    cert: PathBuf,
    key: PathBuf,
    serving: Arc<ServingCertificate>,
    problems: Problems,
}

async fn read(path: &Path) -> Result<Vec<u8>, TlsError> {
    tokio::fs::read(path)
        .await
        .map_err(|source| TlsError::Read {
            path: path.display().to_string(),
            source,
        })
}

fn read_now(path: &Path) -> Result<Vec<u8>, TlsError> {
    std::fs::read(path).map_err(|source| TlsError::Read {
        path: path.display().to_string(),
        source,
    })
}

impl ServingFiles {
    /// Loads the pair at start-up (any problem is fatal here) and returns the follower
    /// with the certificate resolver for the TLS configuration.
    pub fn load(
        cert: PathBuf,
        key: PathBuf,
    ) -> Result<(ServingFiles, Arc<ServingCertificate>), TlsError> {
        let (cert_pem, key_pem) = (read_now(&cert)?, read_now(&key)?);
        let pair = certified_key(&cert_pem, &key_pem, &cert, &key)?;
        let serving = Arc::new(ServingCertificate {
            current: RwLock::new(Arc::new(InUse {
                key: Arc::new(pair),
                source: digest(&cert_pem, &key_pem),
            })),
        });
        let files = ServingFiles {
            cert,
            key,
            serving: serving.clone(),
            problems: Problems::default(),
        };
        Ok((files, serving))
    }

    /// Runs until the process ends.
    pub async fn run(mut self) {
        let mut ticker = tokio::time::interval(POLL_INTERVAL);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        loop {
            ticker.tick().await;
            self.check().await;
        }
    }

    async fn check(&mut self) {
        let (cert_pem, key_pem) = match (read(&self.cert).await, read(&self.key).await) {
            (Ok(c), Ok(k)) => (c, k),
            (Err(e), _) | (_, Err(e)) => return self.report(&e, None),
        };
        let source = digest(&cert_pem, &key_pem);
        if self.serving.in_use().source == source {
            self.problems.clear();
            return;
        }
        match certified_key(&cert_pem, &key_pem, &self.cert, &self.key) {
            Ok(pair) => {
                self.serving.swap(InUse {
                    key: Arc::new(pair),
                    source,
                });
                self.problems.clear();
                tracing::info!(cert = %self.cert.display(), key = %self.key.display(), "loaded a new serving certificate");
            }
            Err(e) => self.report(&e, Some(&source)),
        }
    }

    fn report(&mut self, error: &TlsError, source: Option<&[u8; 32]>) {
        let flag = "--tls-cert-file/--tls-private-key-file";
        let error = error.to_string();
        self.problems
            .report(flag, &self.cert, &error, source.map(|s| s.as_slice()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::pki::{self, Leaf};

    #[test]
    fn certified_key_pairs_checked() {
        let ca = pki::new_authority("serving-ca").expect("ca");
        let a = ca.issue(Leaf::Serving { hosts: &["a"] }).expect("leaf");
        let b = ca.issue(Leaf::Serving { hosts: &["b"] }).expect("leaf");
        let (c, k) = (Path::new("tls.crt"), Path::new("tls.key"));
        let cases: [(&str, &str, &str, Option<&str>); 5] = [
            ("matching pair", &a.cert, &a.key, None),
            (
                "chain with CA",
                &format!("{}{}", a.cert, ca.pem.cert),
                &a.key,
                None,
            ),
            (
                "key of another certificate",
                &a.cert,
                &b.key,
                Some("does not match"),
            ),
            (
                "no certificate",
                "",
                &a.key,
                Some("tls.crt: no certificate found"),
            ),
            ("no key", &a.cert, "", Some("tls.key")),
        ];
        for (name, cert, key, want) in cases {
            let got = certified_key(cert.as_bytes(), key.as_bytes(), c, k).map(|_| ());
            match (got, want) {
                (Ok(()), None) => {}
                (Err(e), Some(want)) => assert!(e.to_string().contains(want), "{name}: {e}"),
                (got, want) => panic!("{name}: got {got:?}, want {want:?}"),
            }
        }
    }
}
