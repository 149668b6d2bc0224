//! Authentication stage: who is asking. Today: x509 client certificates that chain to
//! `--client-ca-file` (user = CN, groups = O), else anonymous.

pub mod x509;

use std::collections::BTreeMap;

/// The authenticated identity handed to authorization and logs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UserInfo {
    pub name: String,
    pub uid: String,
    pub groups: Vec<String>,
    pub extra: BTreeMap<String, Vec<String>>,
}

impl UserInfo {
    /// `system:anonymous` in `system:unauthenticated`, as kube names them.
    pub fn anonymous() -> Self {
        UserInfo {
            name: "system:anonymous".into(),
            uid: String::new(),
            groups: vec!["system:unauthenticated".into()],
            extra: BTreeMap::new(),
        }
    }

    /// An authenticated user; `system:authenticated` is added as kube does.
    pub fn authenticated(name: String, mut groups: Vec<String>) -> Self {
        if !groups.iter().any(|g| g == "system:authenticated") {
            groups.push("system:authenticated".into());
        }
        UserInfo {
            name,
            uid: String::new(),
            groups,
            extra: BTreeMap::new(),
        }
    }
}

/// The authentication chain, configured once at start-up.
pub struct Authenticator {
    x509: Option<x509::X509Authenticator>,
}

impl Authenticator {
    pub fn new(x509: Option<x509::X509Authenticator>) -> Self {
        Authenticator { x509 }
    }

    /// The first authenticator that recognises the request decides; a certificate that
    /// fails verification is a 401 as in kube; no credentials at all is anonymous.
    pub fn authenticate(
        &self,
        peer_certs: &[rustls::pki_types::CertificateDer<'static>],
    ) -> Result<UserInfo, crate::error::ApiError> {
        if let Some(x509) = &self.x509 {
            match x509.authenticate(peer_certs) {
                x509::Outcome::User(user) => return Ok(user),
                x509::Outcome::NoCertificate => {}
                x509::Outcome::Rejected(reason) => {
                    tracing::info!(authenticator = "x509", %reason, "client certificate rejected");
                    return Err(crate::error::ApiError::Unauthorized);
                }
            }
        }
        Ok(UserInfo::anonymous())
    }
}
