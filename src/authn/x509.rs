//! x509 client-certificate authentication: the chain must verify against the client CA
//! for client authentication; the user is the subject CN and the groups its O values.

use std::sync::Arc;

use rustls::RootCertStore;
use rustls::pki_types::{CertificateDer, UnixTime};
use rustls::server::WebPkiClientVerifier;
use rustls::server::danger::ClientCertVerifier;

use super::UserInfo;

/// What the x509 authenticator made of a request.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    User(UserInfo),
    /// No client certificate: not ours to decide.
    NoCertificate,
    /// A certificate that does not verify; the reason is for logs and metrics.
    Rejected(String),
}

/// Verifies client certificates against one CA bundle.
pub struct X509Authenticator {
    verifier: Arc<dyn ClientCertVerifier>,
}

impl X509Authenticator {
    /// From the CA certificates the client certificates must chain to.
    pub fn new(cas: &[CertificateDer<'static>]) -> Result<Self, String> {
        let mut roots = RootCertStore::empty();
        for ca in cas {
            roots
                .add(ca.clone())
                .map_err(|e| format!("invalid client CA certificate: {e}"))?;
        }
        let verifier = WebPkiClientVerifier::builder_with_provider(
            Arc::new(roots),
            Arc::new(rustls::crypto::ring::default_provider()),
        )
        .build()
        .map_err(|e| format!("client CA: {e}"))?;
        Ok(X509Authenticator { verifier })
    }

    pub fn authenticate(&self, chain: &[CertificateDer<'static>]) -> Outcome {
        let Some((leaf, intermediates)) = chain.split_first() else {
            return Outcome::NoCertificate;
        };
        if let Err(e) = self
            .verifier
            .verify_client_cert(leaf, intermediates, UnixTime::now())
        {
            return Outcome::Rejected(e.to_string());
        }
        match subject(leaf) {
            Ok((cn, _)) if cn.is_empty() => {
                Outcome::Rejected("certificate has no common name".into())
            }
            Ok((cn, orgs)) => Outcome::User(UserInfo::authenticated(cn, orgs)),
            Err(e) => Outcome::Rejected(e),
        }
    }
}

/// The subject's CN and O values.
fn subject(cert: &CertificateDer<'_>) -> Result<(String, Vec<String>), String> {
    let (_, parsed) = x509_parser::parse_x509_certificate(cert.as_ref())
        .map_err(|e| format!("unparsable certificate: {e}"))?;
    let subject = parsed.subject();
    let cn = subject
        .iter_common_name()
        .next()
        .and_then(|a| a.as_str().ok())
        .unwrap_or_default()
        .to_string();
    let orgs = subject
        .iter_organization()
        .filter_map(|a| a.as_str().ok().map(str::to_string))
        .collect();
    Ok((cn, orgs))
}
