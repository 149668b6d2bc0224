//! Certificates this server makes itself: the self-signed serving certificate written to
//! `--cert-dir`, and the dev-mode PKI (serving CA, client CA, admin client certificate).

use std::path::{Path, PathBuf};

use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa,
    Issuer, KeyPair, KeyUsagePurpose, SanType,
};

/// Why a certificate could not be made or written.
#[derive(Debug, thiserror::Error)]
pub enum PkiError {
    #[error("generating a certificate: {0}")]
    Generate(#[from] rcgen::Error),
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
}

fn distinguished_name(cn: &str, orgs: &[&str]) -> DistinguishedName {
    let mut dn = DistinguishedName::new();
    dn.push(DnType::CommonName, cn);
    for org in orgs {
        dn.push(DnType::OrganizationName, *org);
    }
    dn
}

fn validity(params: &mut CertificateParams, days: i64) {
    let now = time_now();
    params.not_before = now - time::Duration::minutes(5);
    params.not_after = now + time::Duration::days(days);
}

fn time_now() -> time::OffsetDateTime {
    time::OffsetDateTime::now_utc()
}

/// A new self-signed CA.
pub fn new_authority(cn: &str) -> Result<Authority, PkiError> {
    let mut params = CertificateParams::default();
    params.distinguished_name = distinguished_name(cn, &[]);
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::CrlSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    validity(&mut params, 3650);
    let key = KeyPair::generate()?;
    let cert = params.self_signed(&key)?;
    let pem = Pem {
        cert: cert.pem(),
        key: key.serialize_pem(),
    };
    let issuer = Issuer::new(params, key);
    Ok(Authority { pem, issuer })
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
    /// Signs a new leaf certificate.
    pub fn issue(&self, leaf: Leaf<'_>) -> Result<Pem, PkiError> {
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
        validity(&mut params, 365);
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
