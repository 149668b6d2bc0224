//! Certificates this server makes itself (rcgen): CAs, serving and client leaves with a
//! chosen lifetime, a CA rebuilt from its PEM pair to sign again, and the files they are
//! written to. Used by `--serving-ca-secret` ([`super::ca_secret`]), the self-signed pair
//! of `--cert-dir` and dev mode's PKI (`server::pki`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa,
    Issuer, KeyPair, KeyUsagePurpose, SanType,
};
use rustls_pki_types::pem::PemObject;

/// Why a certificate could not be made or written.
#[derive(Debug, thiserror::Error)]
pub enum PkiError {
    #[error("generating a certificate: {0}")]
    Generate(#[from] rcgen::Error),
    #[error("reading a CA certificate: {0}")]
    Parse(String),
    #[error("writing {path}: {source}")]
    Write {
        path: String,
        source: std::io::Error,
    },
}

/// A certificate and its key, PEM-encoded.
pub struct Pem {
    pub cert: String,
    pub key: String,
}

/// A CA that can sign leaves.
pub struct Authority {
    pub pem: Pem,
    issuer: Issuer<'static, KeyPair>,
    /// Leaves it signs end no later than it does.
    not_after: time::OffsetDateTime,
}

fn distinguished_name(cn: &str, orgs: &[&str]) -> DistinguishedName {
    let mut dn = DistinguishedName::new();
    dn.push(DnType::CommonName, cn);
    for org in orgs {
        dn.push(DnType::OrganizationName, *org);
    }
    dn
}

/// A CA's lifetime when none is asked for (ten years).
const DEFAULT_CA_VALIDITY: Duration = Duration::from_secs(3650 * 24 * 3600);
/// A leaf's lifetime when none is asked for (one year).
const DEFAULT_LEAF_VALIDITY: Duration = Duration::from_secs(365 * 24 * 3600);
/// How far back `notBefore` is set, for clocks a little behind ours (at most a tenth of
/// the certificate's life, so a short-lived one is renewed after its issue, not at once).
const BACKDATE: Duration = Duration::from_secs(5 * 60);

/// Valid from now (backdated) for `lifetime`, and never past `cap`.
fn validity(params: &mut CertificateParams, lifetime: Duration, cap: Option<time::OffsetDateTime>) {
    let now = time::OffsetDateTime::now_utc();
    // X.509's last representable time (9999-12-31T23:59:59Z) bounds a huge lifetime.
    let last = time::OffsetDateTime::from_unix_timestamp(253_402_300_799).unwrap_or(now);
    let end = time::Duration::try_from(lifetime)
        .ok()
        .and_then(|life| now.checked_add(life))
        .map_or(last, |end| end.min(last));
    let end = cap.map_or(end, |cap| end.min(cap));
    let backdate = time::Duration::try_from(BACKDATE).unwrap_or(time::Duration::ZERO);
    params.not_before = now - backdate.min((end - now) / 10);
    params.not_after = end;
}

fn ca_params(cn: &str) -> CertificateParams {
    let mut params = CertificateParams::default();
    params.distinguished_name = distinguished_name(cn, &[]);
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::CrlSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    params
}

/// A new self-signed CA, valid ten years.
pub fn new_authority(cn: &str) -> Result<Authority, PkiError> {
    new_authority_for(cn, DEFAULT_CA_VALIDITY)
}

/// A new self-signed CA valid for `lifetime`.
pub fn new_authority_for(cn: &str, lifetime: Duration) -> Result<Authority, PkiError> {
    let mut params = ca_params(cn);
    validity(&mut params, lifetime, None);
    let key = KeyPair::generate()?;
    let cert = params.self_signed(&key)?;
    let pem = Pem {
        cert: cert.pem(),
        key: key.serialize_pem(),
    };
    let not_after = params.not_after;
    let issuer = Issuer::new(params, key);
    Ok(Authority {
        pem,
        issuer,
        not_after,
    })
}

/// What a leaf certificate is for.
pub enum Leaf<'a> {
    /// A serving certificate for these DNS names and IP addresses.
    Serving { hosts: &'a [&'a str] },
    /// A client certificate: CN = user, O = groups.
    Client {
        user: &'a str,
        groups: &'a [&'a str],
    },
}

impl Authority {
    /// The CA of a PEM pair this module made (its subject is its common name only):
    /// leaves it signs name it as their issuer and chain to its certificate.
    pub fn from_pem(cert_pem: &str, key_pem: &str) -> Result<Authority, PkiError> {
        let bad = |m: &str| PkiError::Parse(m.to_string());
        let der = rustls_pki_types::CertificateDer::from_pem_slice(cert_pem.as_bytes())
            .map_err(|e| bad(&e.to_string()))?;
        let (_, cert) =
            x509_parser::parse_x509_certificate(der.as_ref()).map_err(|e| bad(&e.to_string()))?;
        let cn = cert
            .subject()
            .iter_common_name()
            .next()
            .and_then(|cn| cn.as_str().ok())
            .ok_or_else(|| bad("the CA certificate has no common name"))?;
        let not_after = cert.validity().not_after.to_datetime();
        let key = KeyPair::from_pem(key_pem)?;
        let issuer = Issuer::new(ca_params(cn), key);
        let pem = Pem {
            cert: cert_pem.to_string(),
            key: key_pem.to_string(),
        };
        Ok(Authority {
            pem,
            issuer,
            not_after,
        })
    }

    /// Signs a new leaf certificate valid one year (never past the CA's end).
    pub fn issue(&self, leaf: Leaf<'_>) -> Result<Pem, PkiError> {
        self.issue_for(leaf, DEFAULT_LEAF_VALIDITY)
    }

    /// Signs a new leaf certificate valid for `lifetime` (never past the CA's end).
    pub fn issue_for(&self, leaf: Leaf<'_>, lifetime: Duration) -> Result<Pem, PkiError> {
        let mut params = CertificateParams::default();
        params.key_usages = vec![
            KeyUsagePurpose::DigitalSignature,
            KeyUsagePurpose::KeyEncipherment,
        ];
        match leaf {
            Leaf::Serving { hosts } => {
                params.distinguished_name =
                    distinguished_name(hosts.first().copied().unwrap_or("localhost"), &[]);
                params.subject_alt_names = hosts.iter().filter_map(|h| san(h)).collect();
                params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
            }
            Leaf::Client { user, groups } => {
                params.distinguished_name = distinguished_name(user, groups);
                params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
            }
        }
        validity(&mut params, lifetime, Some(self.not_after));
        let key = KeyPair::generate()?;
        let cert = params.signed_by(&key, &self.issuer)?;
        Ok(Pem {
            cert: cert.pem(),
            key: key.serialize_pem(),
        })
    }
}

fn san(host: &str) -> Option<SanType> {
    match host.parse::<std::net::IpAddr>() {
        Ok(ip) => Some(SanType::IpAddress(ip)),
        Err(_) => host.to_string().try_into().ok().map(SanType::DnsName),
    }
}

/// Writes `name.crt` (0644) and `name.key` (0600) into `dir`, created 0700 when absent,
/// and returns their paths.
pub fn write_pair(dir: &Path, name: &str, pem: &Pem) -> Result<(PathBuf, PathBuf), PkiError> {
    private_dir(dir)?;
    let cert = dir.join(format!("{name}.crt"));
    let key = dir.join(format!("{name}.key"));
    write_file(&cert, pem.cert.as_bytes(), 0o644)?;
    write_file(&key, pem.key.as_bytes(), 0o600)?;
    Ok((cert, key))
}

/// Creates `dir` and its missing parents with mode 0700; an existing directory is left
/// as it is.
pub fn private_dir(dir: &Path) -> Result<(), PkiError> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|source| PkiError::Write {
            path: dir.display().to_string(),
            source,
        })
}

/// Replaces `path` with `data`. The content goes to a new file created with `mode`
/// (so a key is never readable by others, not even for a moment) which is then renamed
/// over `path`: readers such as the certificate reloader see the old file or the new
/// one, never a half-written one, and an existing file's wider mode is not inherited.
pub fn write_file(path: &Path, data: &[u8], mode: u32) -> Result<(), PkiError> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let err = |path: &Path| {
        let path = path.display().to_string();
        move |source| PkiError::Write { path, source }
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    let temp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    // A leftover of an interrupted write by this pid; create_new below needs it gone.
    let _ = std::fs::remove_file(&temp);
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(&temp)
        .map_err(err(&temp))?;
    let written = file.write_all(data).and_then(|()| file.sync_all());
    if let Err(e) = written.and_then(|()| std::fs::rename(&temp, path)) {
        let _ = std::fs::remove_file(&temp);
        return Err(err(path)(e));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};

    use super::*;

    #[test]
    fn write_file_key_over_wider_file_new_inode_private_from_start() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("admin.key");
        std::fs::write(&path, b"old").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let old_inode = std::fs::metadata(&path).unwrap().ino();

        write_file(&path, b"new key", 0o600).unwrap();

        let meta = std::fs::metadata(&path).unwrap();
        assert_eq!(meta.mode() & 0o777, 0o600);
        // A new file created 0600 was renamed over the old one: the key's bytes never sat
        // in a file with the wider mode (writing in place, then chmod, keeps the inode).
        assert_ne!(meta.ino(), old_inode, "written in place");
        assert_eq!(std::fs::read(&path).unwrap(), b"new key");
        let leftovers: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "temporary file left behind");
    }
}
