//! Client-certificate checks: a [`CertVerifier`] proves a chain leads to one CA bundle for
//! client authentication (and says why not, for logs and metrics); the x509 authenticator
//! wraps it to make the user from the subject (CN = user, O = groups), as kube's
//! `x509.CommonNameUserConversion`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, UnixTime};
use rustls::server::WebPkiClientVerifier;
use rustls::server::danger::ClientCertVerifier;
use rustls::{CertificateError, RootCertStore};

use super::overlap::AuthorityId;
use super::{Outcome, RejectReason, Rejection};
use crate::cluster::cache::{DEFAULT_CAPACITY, TtlCache};
use crate::request::user::UserInfo;

/// How long a chain's verification result is reused. A connection presents the same
/// chain on every request, and signature checks dominate the cost of small requests;
/// a rotated CA builds a new verifier (and so a new, empty cache) at once.
const VERIFY_CACHE_TTL: Duration = Duration::from_secs(10);

/// Verifies client certificate chains against one CA bundle.
#[derive(Clone)]
pub struct CertVerifier {
    verifier: Arc<dyn ClientCertVerifier>,
    /// The PEM or DER bundle it was built from, to notice when a reload changes nothing.
    source: Arc<[u8]>,
    /// The bundle's CAs, to compare bundles ([`super::overlap`]).
    authorities: Arc<[AuthorityId]>,
    /// Recent results by SHA-256 of the presented chain.
    verified: Arc<TtlCache<[u8; 32], Result<Subject, Rejection>>>,
}

/// Why a CA bundle cannot verify client certificates.
#[derive(Debug, thiserror::Error)]
pub enum CaBundleError {
    /// The bundle is not PEM.
    #[error("invalid CA bundle: {0}")]
    Pem(rustls::pki_types::pem::Error),
    /// The bundle is PEM without a `CERTIFICATE` block.
    #[error("the CA bundle holds no certificate")]
    Empty,
    /// A certificate in the bundle cannot be a trust anchor.
    #[error("invalid client CA certificate: {0}")]
    Certificate(rustls::Error),
    /// rustls refused the set of trust anchors.
    #[error("client CA: {0}")]
    Verifier(rustls::server::VerifierBuilderError),
}

/// The parts of a verified leaf's subject that become a user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Subject {
    pub common_name: String,
    pub organizations: Vec<String>,
}

impl CertVerifier {
    /// From a PEM bundle (a file's or a ConfigMap key's content).
    pub fn from_pem(pem: &[u8]) -> Result<Self, CaBundleError> {
        let certs: Result<Vec<_>, _> = CertificateDer::pem_slice_iter(pem).collect();
        let certs = certs.map_err(CaBundleError::Pem)?;
        if certs.is_empty() {
            return Err(CaBundleError::Empty);
        }
        let mut verifier = Self::new(&certs)?;
        verifier.source = Arc::from(pem);
        Ok(verifier)
    }

    /// From the CA certificates the client certificates must chain to.
    pub fn new(cas: &[CertificateDer<'static>]) -> Result<Self, CaBundleError> {
        let mut roots = RootCertStore::empty();
        for ca in cas {
            roots.add(ca.clone()).map_err(CaBundleError::Certificate)?;
        }
        let verifier = WebPkiClientVerifier::builder_with_provider(
            Arc::new(roots),
            Arc::new(rustls::crypto::ring::default_provider()),
        )
        .build()
        .map_err(CaBundleError::Verifier)?;
        let source: Vec<u8> = cas.iter().flat_map(|c| c.as_ref().to_vec()).collect();
        Ok(CertVerifier {
            verifier,
            source: Arc::from(source),
            authorities: cas.iter().filter_map(AuthorityId::of).collect(),
            verified: Arc::new(TtlCache::new(DEFAULT_CAPACITY)),
        })
    }

    /// Whether this verifier was built from exactly `pem`.
    pub fn built_from(&self, pem: &[u8]) -> bool {
        *self.source == *pem
    }

    /// The CAs this verifier trusts.
    pub fn authorities(&self) -> &[AuthorityId] {
        &self.authorities
    }

    /// Checks `leaf` (with the client's intermediates) for client authentication now.
    pub fn verify(
        &self,
        leaf: &CertificateDer<'static>,
        intermediates: &[CertificateDer<'static>],
    ) -> Result<Subject, Rejection> {
        let mut digest = ring::digest::Context::new(&ring::digest::SHA256);
        for cert in std::iter::once(leaf).chain(intermediates) {
            digest.update(&(cert.len() as u64).to_be_bytes());
            digest.update(cert.as_ref());
        }
        let mut key = [0u8; 32];
        key.copy_from_slice(digest.finish().as_ref());
        let now = Instant::now();
        if let Some(result) = self.verified.get(&key, now) {
            return result;
        }
        let result = self.verify_uncached(leaf, intermediates);
        self.verified
            .insert(key, result.clone(), VERIFY_CACHE_TTL, now);
        result
    }

    fn verify_uncached(
        &self,
        leaf: &CertificateDer<'static>,
        intermediates: &[CertificateDer<'static>],
    ) -> Result<Subject, Rejection> {
        self.verifier
            .verify_client_cert(leaf, intermediates, UnixTime::now())
            .map_err(|e| Rejection {
                reason: classify(&e),
                detail: e.to_string(),
            })?;
        subject(leaf)
    }
}

/// Maps a verification failure onto the reasons `/metrics` counts.
fn classify(err: &rustls::Error) -> RejectReason {
    match err {
        rustls::Error::InvalidCertificate(c) => match c {
            CertificateError::UnknownIssuer => RejectReason::UnknownAuthority,
            CertificateError::Expired | CertificateError::ExpiredContext { .. } => {
                RejectReason::Expired
            }
            CertificateError::NotValidYet | CertificateError::NotValidYetContext { .. } => {
                RejectReason::NotYetValid
            }
            CertificateError::InvalidPurpose | CertificateError::InvalidPurposeContext { .. } => {
                RejectReason::WrongKeyUsage
            }
            _ => RejectReason::BadCertificate,
        },
        _ => RejectReason::BadCertificate,
    }
}

/// The subject's CN and O values.
fn subject(cert: &CertificateDer<'_>) -> Result<Subject, Rejection> {
    let (_, parsed) =
        x509_parser::parse_x509_certificate(cert.as_ref()).map_err(|e| Rejection {
            reason: RejectReason::BadCertificate,
            detail: format!("unparsable certificate: {e}"),
        })?;
    let subject = parsed.subject();
    // Go's pkix.Name keeps the last CN when a subject carries several.
    let common_name = subject
        .iter_common_name()
        .last()
        .and_then(|a| a.as_str().ok())
        .unwrap_or_default()
        .to_string();
    let organizations = subject
        .iter_organization()
        .filter_map(|a| a.as_str().ok().map(str::to_string))
        .collect();
    Ok(Subject {
        common_name,
        organizations,
    })
}

/// `--client-ca-file` (or the ConfigMap's `client-ca-file`) authentication.
#[derive(Clone)]
pub struct X509Authenticator {
    verifier: CertVerifier,
}

impl X509Authenticator {
    pub fn new(verifier: CertVerifier) -> Self {
        X509Authenticator { verifier }
    }

    pub fn verifier(&self) -> &CertVerifier {
        &self.verifier
    }

    /// No certificate, or a verified one without a CN, is not ours (as upstream); a
    /// certificate that does not verify is rejected.
    pub fn authenticate(&self, chain: &[CertificateDer<'static>]) -> Outcome {
        let Some((leaf, intermediates)) = chain.split_first() else {
            return Outcome::NotMine;
        };
        match self.verifier.verify(leaf, intermediates) {
            Ok(s) if s.common_name.is_empty() => Outcome::NotMine,
            Ok(s) => {
                let mut user = UserInfo::new(s.common_name, s.organizations);
                user.extra
                    .insert(CREDENTIAL_ID_KEY.into(), vec![credential_id(leaf)]);
                Outcome::User(user)
            }
            Err(r) => Outcome::Rejected(r),
        }
    }
}

/// kube's `user.CredentialIDKey`: the extra that names the credential a user proved.
pub const CREDENTIAL_ID_KEY: &str = "authentication.kubernetes.io/credential-id";

/// kube's credential id of a client certificate: `X509SHA256=<hex SHA-256 of its DER>`.
fn credential_id(leaf: &CertificateDer<'_>) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA256, leaf.as_ref());
    let hex: String = digest.as_ref().iter().map(|b| format!("{b:02x}")).collect();
    format!("X509SHA256={hex}")
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::server::pki::{self, Leaf};
    use rcgen::{CertificateParams, DnType, ExtendedKeyUsagePurpose, Issuer, KeyPair};

    pub fn der(pem: &str) -> CertificateDer<'static> {
        CertificateDer::from_pem_slice(pem.as_bytes()).expect("pem")
    }

    /// A client certificate from a fresh CA, valid between the given day offsets.
    pub fn dated_client(from_days: i64, to_days: i64) -> (String, CertificateDer<'static>) {
        let ca_key = KeyPair::generate().expect("key");
        let mut ca = CertificateParams::new(Vec::<String>::new()).expect("params");
        ca.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        ca.distinguished_name.push(DnType::CommonName, "dated-ca");
        let ca_cert = ca.self_signed(&ca_key).expect("ca");
        let issuer = Issuer::new(ca, ca_key);
        let mut leaf = CertificateParams::new(Vec::<String>::new()).expect("params");
        leaf.distinguished_name.push(DnType::CommonName, "alice");
        leaf.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
        let now = time::OffsetDateTime::now_utc();
        leaf.not_before = now + time::Duration::days(from_days);
        leaf.not_after = now + time::Duration::days(to_days);
        let key = KeyPair::generate().expect("key");
        let cert = leaf.signed_by(&key, &issuer).expect("leaf");
        (ca_cert.pem(), CertificateDer::from(cert.der().to_vec()))
    }

    #[test]
    fn authenticate_certificates_outcomes() {
        let ca = pki::new_authority("client-ca").expect("ca");
        let other = pki::new_authority("other-ca").expect("ca");
        let auth =
            X509Authenticator::new(CertVerifier::from_pem(ca.pem.cert.as_bytes()).expect("v"));
        let client = |a: &pki::Authority, user: &str, groups: &[&str]| {
            der(&a.issue(Leaf::Client { user, groups }).expect("leaf").cert)
        };
        let serving = der(&ca
            .issue(Leaf::Serving { hosts: &["x"] })
            .expect("leaf")
            .cert);
        // rcgen keeps one value per attribute type, so one O is all a test can make.
        let alice_cert = client(&ca, "alice", &["dev"]);
        let mut alice = UserInfo::new("alice".into(), vec!["dev".into()]);
        // kube's credential id: the certificate's SHA-256, as `sha256sum` of its DER prints it.
        let digest = ring::digest::digest(&ring::digest::SHA256, alice_cert.as_ref());
        let hex: String = digest.as_ref().iter().map(|b| format!("{b:02x}")).collect();
        alice.extra.insert(
            "authentication.kubernetes.io/credential-id".into(),
            vec![format!("X509SHA256={hex}")],
        );
        assert_eq!(hex.len(), 64);
        let cases: Vec<(&str, Vec<CertificateDer<'static>>, Outcome)> = vec![
            ("no certificate", vec![], Outcome::NotMine),
            ("trusted", vec![alice_cert], Outcome::User(alice)),
            ("empty cn", vec![client(&ca, "", &[])], Outcome::NotMine),
        ];
        for (name, chain, want) in cases {
            assert_eq!(auth.authenticate(&chain), want, "{name}");
        }
        let rejected = [
            (
                "other ca",
                client(&other, "alice", &[]),
                RejectReason::UnknownAuthority,
            ),
            ("serving cert", serving, RejectReason::WrongKeyUsage),
        ];
        for (name, cert, reason) in rejected {
            match auth.authenticate(&[cert]) {
                Outcome::Rejected(r) => assert_eq!(r.reason, reason, "{name}: {}", r.detail),
                other => panic!("{name}: {other:?}"),
            }
        }
    }

    #[test]
    fn verify_out_of_date_certificates_rejected_with_reason() {
        let cases = [
            ("expired", -30, -1, RejectReason::Expired),
            ("not yet valid", 1, 30, RejectReason::NotYetValid),
        ];
        for (name, from, to, reason) in cases {
            let (ca, leaf) = dated_client(from, to);
            let verifier = CertVerifier::from_pem(ca.as_bytes()).expect("verifier");
            let got = verifier.verify(&leaf, &[]).map_err(|r| r.reason);
            assert_eq!(got, Err(reason), "{name}");
        }
    }

    #[test]
    fn from_pem_bad_bundles_fail_with_reason() {
        for (name, pem, want) in [
            ("empty", "", "the CA bundle holds no certificate"),
            (
                "garbage",
                "-----BEGIN CERTIFICATE-----\nzz\n",
                "invalid CA bundle: missing section end marker: [67, 69, 82, 84, 73, 70, 73, 67, 65, 84, 69]",
            ),
            (
                "not a certificate",
                "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n",
                "invalid client CA certificate: invalid peer certificate: BadEncoding",
            ),
        ] {
            let got = CertVerifier::from_pem(pem.as_bytes())
                .err()
                .map(|e| e.to_string());
            assert_eq!(got.as_deref(), Some(want), "{name}");
        }
    }
}
