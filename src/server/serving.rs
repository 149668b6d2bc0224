//! The serving certificates, live: `--tls-cert-file` / `--tls-private-key-file` (or the
//! self-signed pair in `--cert-dir`) and every `--tls-sni-cert-key` pair are compared
//! with the pairs in use every [`POLL_INTERVAL`], as k8s.io/apiserver's
//! `DynamicCertKeyPairContent` and `DynamicSNIContent` reload them. Renewed pairs are
//! handed to every new TLS handshake by [`ServingCertificate`], the SNI pair whose names
//! match the handshake's server name ([`super::sni`]) or else the default pair; open
//! connections keep the certificate they were set up with.
//!
//! A pair is swapped only when both files parse and the key matches the certificate,
//! so a renewal caught between writing the certificate and writing the key is never
//! half-applied: the old pair keeps serving and the problem is logged once per change.

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;

use super::sni::{ByName, Named};
use super::tls::TlsError;
use crate::authn::cafile::{POLL_INTERVAL, Problems};
use crate::config::transport::NamedCertKey;

/// A pair in use, and a digest of the files' content it came from.
#[derive(Debug, Clone)]
struct Loaded {
    key: Arc<CertifiedKey>,
    source: [u8; 32],
}

/// The pairs in use: the default pair, the SNI pairs in flag order, and the SNI pairs
/// by server name.
#[derive(Debug)]
struct Served {
    default: Loaded,
    sni: Vec<Loaded>,
    by_name: ByName,
}

/// Hands each handshake the SNI pair named by its server name, or the default pair.
#[derive(Debug)]
pub struct ServingCertificate {
    current: RwLock<Arc<Served>>,
}

impl ResolvesServerCert for ServingCertificate {
    fn resolve(&self, hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        let served = self.in_use();
        let key = served.by_name.find(hello.server_name());
        Some(key.unwrap_or(&served.default.key).clone())
    }
}

impl ServingCertificate {
    fn in_use(&self) -> Arc<Served> {
        self.current
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    fn swap(&self, next: Served) {
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

/// One pair of files followed.
struct PairFiles {
    cert: PathBuf,
    key: PathBuf,
    /// The explicit SNI names of an SNI pair.
    names: Vec<String>,
    flag: &'static str,
    problems: Problems,
}

impl PairFiles {
    fn new(cert: PathBuf, key: PathBuf, names: Vec<String>, flag: &'static str) -> PairFiles {
        PairFiles {
            cert,
            key,
            names,
            flag,
            problems: Problems::default(),
        }
    }

    fn load_now(&self) -> Result<Loaded, TlsError> {
        let (cert_pem, key_pem) = (read_now(&self.cert)?, read_now(&self.key)?);
        let pair = certified_key(&cert_pem, &key_pem, &self.cert, &self.key)?;
        Ok(Loaded {
            key: Arc::new(pair),
            source: digest(&cert_pem, &key_pem),
        })
    }

    /// The pair if its files changed from `in_use` and parse; problems are logged once.
    async fn changed(&mut self, in_use: &Loaded) -> Option<Loaded> {
        let (cert_pem, key_pem) = match (read(&self.cert).await, read(&self.key).await) {
            (Ok(c), Ok(k)) => (c, k),
            (Err(e), _) | (_, Err(e)) => {
                self.report(&e, None);
                return None;
            }
        };
        let source = digest(&cert_pem, &key_pem);
        if in_use.source == source {
            self.problems.clear();
            return None;
        }
        match certified_key(&cert_pem, &key_pem, &self.cert, &self.key) {
            Ok(pair) => {
                self.problems.clear();
                tracing::info!(flag = self.flag, cert = %self.cert.display(), key = %self.key.display(), "loaded a new serving certificate");
                Some(Loaded {
                    key: Arc::new(pair),
                    source,
                })
            }
            Err(e) => {
                self.report(&e, Some(&source));
                None
            }
        }
    }

    fn report(&mut self, error: &TlsError, source: Option<&[u8; 32]>) {
        let error = error.to_string();
        self.problems
            .report(self.flag, &self.cert, &error, source.map(|s| s.as_slice()));
    }
}

/// Follows the serving pairs' files.
pub struct ServingFiles {
    default: PairFiles,
    sni: Vec<PairFiles>,
    serving: Arc<ServingCertificate>,
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

/// The SNI pairs by name, from the pairs in use and their files' explicit names.
fn by_name(sni: &[Loaded], files: &[PairFiles]) -> ByName {
    let named: Vec<Named> = sni
        .iter()
        .zip(files)
        .map(|(loaded, files)| Named {
            key: loaded.key.clone(),
            explicit: files.names.clone(),
        })
        .collect();
    ByName::build(&named)
}

impl ServingFiles {
    /// Loads the default pair and the SNI pairs at start-up (any problem is fatal here)
    /// and returns the follower with the certificate resolver for the TLS configuration.
    pub fn load(
        cert: PathBuf,
        key: PathBuf,
        sni: &[NamedCertKey],
    ) -> Result<(ServingFiles, Arc<ServingCertificate>), TlsError> {
        let flag = "--tls-cert-file/--tls-private-key-file";
        let default = PairFiles::new(cert, key, Vec::new(), flag);
        let sni: Vec<PairFiles> = sni
            .iter()
            .map(|p| {
                PairFiles::new(
                    p.cert.clone(),
                    p.key.clone(),
                    p.names.clone(),
                    "--tls-sni-cert-key",
                )
            })
            .collect();
        let sni_loaded = sni
            .iter()
            .map(PairFiles::load_now)
            .collect::<Result<Vec<_>, _>>()?;
        let served = Served {
            default: default.load_now()?,
            by_name: by_name(&sni_loaded, &sni),
            sni: sni_loaded,
        };
        let serving = Arc::new(ServingCertificate {
            current: RwLock::new(Arc::new(served)),
        });
        let files = ServingFiles {
            default,
            sni,
            serving: serving.clone(),
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

    /// Swaps in every pair whose files changed and parse.
    async fn check(&mut self) {
        let in_use = self.serving.in_use();
        let default = self.default.changed(&in_use.default).await;
        let mut sni = in_use.sni.clone();
        let mut sni_changed = false;
        for (files, loaded) in self.sni.iter_mut().zip(sni.iter_mut()) {
            if let Some(next) = files.changed(loaded).await {
                *loaded = next;
                sni_changed = true;
            }
        }
        if default.is_none() && !sni_changed {
            return;
        }
        self.serving.swap(Served {
            default: default.unwrap_or_else(|| in_use.default.clone()),
            by_name: by_name(&sni, &self.sni),
            sni,
        });
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
