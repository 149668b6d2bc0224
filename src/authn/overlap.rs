//! The front-proxy trust hazard: when the requestheader CA bundle shares an authority
//! with the client CA bundle and `--requestheader-allowed-names` is empty, every holder
//! of a client certificate passes the front-proxy check and may claim any user through
//! the `X-Remote-*` headers, `system:masters` included.
//!
//! Two CA certificates are the same authority when they have the same subject and the
//! same public key: a chain check only looks at names and signatures, so a re-issued CA
//! certificate trusts exactly the leaves its predecessor did. A client CA issued by a
//! requestheader CA counts too (the client can send it as an intermediate); deeper
//! chains through intermediates the bundles do not hold cannot be seen from here.

use rustls::pki_types::CertificateDer;

use super::live::CertAuthenticators;
use crate::metrics::Metrics;

/// One CA certificate of a bundle, reduced to what chain building compares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuthorityId {
    subject: Vec<u8>,
    issuer: Vec<u8>,
    public_key: Vec<u8>,
    /// The subject for logs, e.g. `CN=front-proxy-ca`.
    pub name: String,
}

impl AuthorityId {
    /// `None` for a certificate x509-parser cannot read (webpki may still use it; such
    /// a CA is then not compared).
    pub fn of(cert: &CertificateDer<'_>) -> Option<AuthorityId> {
        let (_, parsed) = x509_parser::parse_x509_certificate(cert.as_ref()).ok()?;
        Some(AuthorityId {
            subject: parsed.subject().as_raw().to_vec(),
            issuer: parsed.issuer().as_raw().to_vec(),
            public_key: parsed.public_key().raw.to_vec(),
            name: parsed.subject().to_string(),
        })
    }

    fn same_authority(&self, other: &AuthorityId) -> bool {
        self.subject == other.subject && self.public_key == other.public_key
    }

    fn issued_by(&self, other: &AuthorityId) -> bool {
        self.subject != self.issuer && self.issuer == other.subject
    }
}

/// The client CAs whose certificates the requestheader bundle also trusts: the same
/// authority, or one issued by a requestheader CA.
pub fn shared(requestheader: &[AuthorityId], client: &[AuthorityId]) -> Vec<String> {
    let mut names: Vec<String> = client
        .iter()
        .filter(|c| {
            requestheader
                .iter()
                .any(|r| c.same_authority(r) || c.issued_by(r))
        })
        .map(|c| c.name.clone())
        .collect();
    names.dedup();
    names
}

/// The shared CAs' names when the configuration has the hazard, else `None`.
pub fn hazard(certs: &CertAuthenticators) -> Option<Vec<String>> {
    let requestheader = certs.requestheader.as_ref()?;
    let client = certs.x509.as_ref()?;
    if !requestheader.allowed_names.is_empty() {
        return None;
    }
    let names = shared(
        requestheader.verifier.authorities(),
        client.verifier().authorities(),
    );
    (!names.is_empty()).then_some(names)
}

/// Logs a change of the hazard (it appeared or went away) and sets the gauge.
pub fn report_change(shared: Option<&[String]>, metrics: &Metrics) {
    metrics.set_requestheader_ca_shared(shared.is_some());
    match shared {
        Some(cas) => warn(cas),
        None => tracing::info!(
            "the requestheader CA bundle no longer lets client certificates claim users through headers"
        ),
    }
}

/// Logs the hazard with the shared CAs' names.
pub fn warn(cas: &[String]) {
    tracing::warn!(
        shared_cas = ?cas,
        "the requestheader CA bundle shares CAs with the client CA bundle and --requestheader-allowed-names is empty: any client certificate from these CAs can claim any user through the X-Remote-* headers; set --requestheader-allowed-names (or requestheader-allowed-names in the ConfigMap) or use a separate front-proxy CA"
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::authn::requestheader::{HeaderNames, RequestHeaderAuthenticator};
    use crate::authn::x509::tests::der;
    use crate::authn::x509::{CertVerifier, X509Authenticator};
    use crate::server::pki;
    use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair};

    fn id(pem: &str) -> AuthorityId {
        AuthorityId::of(&der(pem)).expect("parsable")
    }

    /// A self-signed CA named `cn` with `key`.
    fn ca_with_key(cn: &str, key: &KeyPair) -> String {
        let mut params = CertificateParams::default();
        params.distinguished_name.push(DnType::CommonName, cn);
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.self_signed(key).expect("ca").pem()
    }

    /// An intermediate CA named `cn` signed by a fresh root; returns (root, intermediate).
    fn intermediate(cn: &str) -> (String, String) {
        let root_key = KeyPair::generate().expect("key");
        let mut root = CertificateParams::default();
        root.distinguished_name.push(DnType::CommonName, "root-ca");
        root.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        let root_pem = root.self_signed(&root_key).expect("root").pem();
        let issuer = Issuer::new(root, root_key);
        let mut params = CertificateParams::default();
        params.distinguished_name.push(DnType::CommonName, cn);
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        let key = KeyPair::generate().expect("key");
        let pem = params.signed_by(&key, &issuer).expect("intermediate").pem();
        (root_pem, pem)
    }

    type Bundle<'a> = Vec<&'a str>;

    #[test]
    fn shared_bundles_compared_by_subject_and_key() {
        let proxy = pki::new_authority("front-proxy-ca").expect("ca");
        let client = pki::new_authority("client-ca").expect("ca");
        let key = KeyPair::generate().expect("key");
        let first = ca_with_key("shared-ca", &key);
        let reissued = ca_with_key("shared-ca", &key);
        let impostor = ca_with_key("shared-ca", &KeyPair::generate().expect("key"));
        let (root, sub) = intermediate("client-sub-ca");
        let (p, c) = (&proxy.pem.cert, &client.pem.cert);
        // name, requestheader bundle, client bundle, shared CAs.
        let cases: Vec<(&str, Bundle, Bundle, Bundle)> = vec![
            ("distinct CAs", vec![p], vec![c], vec![]),
            ("same CA", vec![p], vec![c, p], vec!["CN=front-proxy-ca"]),
            (
                "re-issued CA",
                vec![&first],
                vec![&reissued],
                vec!["CN=shared-ca"],
            ),
            (
                "same name, other key",
                vec![&first],
                vec![&impostor],
                vec![],
            ),
            (
                "client CA issued by requestheader CA",
                vec![&root],
                vec![&sub],
                vec!["CN=client-sub-ca"],
            ),
            (
                "requestheader CA issued by client CA",
                vec![&sub],
                vec![&root],
                vec![],
            ),
        ];
        for (name, requestheader, client, want) in cases {
            let r: Vec<_> = requestheader.into_iter().map(id).collect();
            let c: Vec<_> = client.into_iter().map(id).collect();
            assert_eq!(shared(&r, &c), want, "{name}");
        }
    }

    #[test]
    fn hazard_only_with_empty_allowed_names() {
        let ca = pki::new_authority("one-ca").expect("ca");
        let verifier = || CertVerifier::from_pem(ca.pem.cert.as_bytes()).expect("verifier");
        let certs = |allowed: &[&str]| CertAuthenticators {
            requestheader: Some(RequestHeaderAuthenticator {
                verifier: verifier(),
                allowed_names: allowed.iter().map(|s| s.to_string()).collect(),
                names: HeaderNames::standard(),
            }),
            x509: Some(X509Authenticator::new(verifier())),
        };
        assert_eq!(hazard(&certs(&[])), Some(vec!["CN=one-ca".to_string()]));
        assert_eq!(hazard(&certs(&["front-proxy-client"])), None);
        let no_client = CertAuthenticators {
            x509: None,
            ..certs(&[])
        };
        assert_eq!(hazard(&no_client), None);
    }
}
