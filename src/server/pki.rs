//! Certificates this server makes itself: the self-signed serving certificate written to
//! `--cert-dir`; the certificate making (CAs, leaves, files) lives in
//! `register::pki`, shared with `--serving-ca-secret`, and is re-exported here for dev
//! mode and the tests.

use std::path::{Path, PathBuf};

pub use crate::register::pki::*;

/// The serving pair in `cert_dir`, generating a self-signed one (CA + leaf for the
/// loopback names and this host) when it is absent, as k8s.io/apiserver does.
pub fn self_signed_serving(cert_dir: &Path) -> Result<(PathBuf, PathBuf), PkiError> {
    let cert = cert_dir.join("apiserver.crt");
    let key = cert_dir.join("apiserver.key");
    if cert.exists() && key.exists() {
        return Ok((cert, key));
    }
    let ca = new_authority("crd-apiserver-ca")?;
    let leaf = ca.issue(Leaf::Serving {
        hosts: &["localhost", "127.0.0.1", "::1"],
    })?;
    // The chain file holds the leaf then its CA, so clients can pin the CA.
    let chained = Pem {
        cert: format!("{}{}", leaf.cert, ca.pem.cert),
        key: leaf.key,
    };
    write_pair(cert_dir, "apiserver", &chained)
}
