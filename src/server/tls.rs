//! TLS: the rustls server configuration (ring provider, the versions and TLS 1.2 cipher
//! suites of `--tls-min-version` and `--tls-cipher-suites`, h2 + http/1.1 via ALPN, the
//! live serving certificates of [`super::serving`]) and a client-certificate verifier
//! that only proves key possession.
//!
//! Client certificates are optional at the TLS level and their chains are *not* checked
//! here: like k8s.io/apiserver (`tls.RequestClientCert`), the authentication stage decides
//! which CA a certificate must chain to (client CA, front-proxy CA), so a rotated CA takes
//! effect without touching the listener and an untrusted certificate means "not
//! authenticated", not a failed handshake.

use std::sync::Arc;

use rustls::DigitallySignedStruct;
use rustls::client::danger::HandshakeSignatureValid;
use rustls::crypto::CryptoProvider;
use rustls::pki_types::{CertificateDer, UnixTime};
use rustls::server::ResolvesServerCert;
use rustls::server::danger::{ClientCertVerified, ClientCertVerifier};
use rustls::{DistinguishedName, SignatureScheme};

use crate::config::ciphers::TlsVersion;
use crate::config::transport::TlsPolicy;

/// Why TLS material could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    #[error("reading {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}: {message}")]
    Pem { path: String, message: String },
    /// The private key is not the certificate's (or cannot be compared with it).
    #[error("the private key in {key} does not match the certificate in {cert}: {message}")]
    Mismatch {
        cert: String,
        key: String,
        message: String,
    },
    #[error("building the TLS configuration: {0}")]
    Config(#[from] rustls::Error),
}

/// Installs ring as the process-wide rustls provider (idempotent).
pub fn install_crypto_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// The server configuration: certificates from `serving`, the versions and suites of
/// `policy`, optional client certificates, h2 + http/1.1.
pub fn server_config(
    serving: Arc<dyn ResolvesServerCert>,
    policy: &TlsPolicy,
) -> Result<rustls::ServerConfig, TlsError> {
    let mut offered = rustls::crypto::ring::default_provider();
    if let Some(tls12) = &policy.tls12_suites {
        // As Go: the list restricts TLS 1.2; TLS 1.3 suites stay as they are.
        offered.cipher_suites.retain(|s| match s {
            rustls::SupportedCipherSuite::Tls12(_) => tls12.contains(&s.suite()),
            rustls::SupportedCipherSuite::Tls13(_) => true,
        });
    }
    let tls12_left = offered
        .cipher_suites
        .iter()
        .any(|s| s.version() == &rustls::version::TLS12);
    let versions: &[&'static rustls::SupportedProtocolVersion] =
        match (policy.min_version, tls12_left) {
            (TlsVersion::Tls12, true) => &[&rustls::version::TLS13, &rustls::version::TLS12],
            // No TLS 1.2 suite chosen: a TLS 1.2 handshake could not succeed (in Go it fails).
            (TlsVersion::Tls12, false) | (TlsVersion::Tls13, _) => &[&rustls::version::TLS13],
        };
    let verifier = PossessionOnlyVerifier {
        provider: provider(),
    };
    let mut config = rustls::ServerConfig::builder_with_provider(Arc::new(offered))
        .with_protocol_versions(versions)?
        .with_client_cert_verifier(Arc::new(verifier))
        .with_cert_resolver(serving);
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(config)
}

/// Accepts any client certificate whose handshake signature proves the key; the chain is
/// checked by the authentication stage.
#[derive(Debug)]
struct PossessionOnlyVerifier {
    provider: Arc<CryptoProvider>,
}

impl ClientCertVerifier for PossessionOnlyVerifier {
    fn offer_client_auth(&self) -> bool {
        true
    }

    fn client_auth_mandatory(&self) -> bool {
        false
    }

    fn root_hint_subjects(&self) -> &[DistinguishedName] {
        &[]
    }

    fn verify_client_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _now: UnixTime,
    ) -> Result<ClientCertVerified, rustls::Error> {
        Ok(ClientCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}
