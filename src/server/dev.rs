//! Dev mode: a PKI and kubeconfig under `pki/dev/` (kept across runs), the example CRDs,
//! the embedded store, loopback only — then the normal server.
//!
//! The PKI and data directories are created 0700 and every private key (and the
//! kubeconfig, which embeds one) is created 0600 ([`pki::write_file`]).

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;

use crate::config::ServeFlags;
use crate::server::pki::{self, Leaf, PkiError};

/// Files of the dev PKI.
pub struct DevPki {
    pub dir: PathBuf,
    pub serving_ca: PathBuf,
    pub client_ca: PathBuf,
    pub admin_cert: PathBuf,
    pub admin_key: PathBuf,
    pub kubeconfig: PathBuf,
}

impl DevPki {
    pub fn at(dir: &Path) -> DevPki {
        DevPki {
            dir: dir.to_path_buf(),
            serving_ca: dir.join("serving-ca.crt"),
            client_ca: dir.join("client-ca.crt"),
            admin_cert: dir.join("admin.crt"),
            admin_key: dir.join("admin.key"),
            kubeconfig: dir.join("kubeconfig"),
        }
    }

    /// Generates the CAs and leaves unless they already exist (so kubeconfigs stay valid).
    pub fn ensure(&self) -> Result<(), PkiError> {
        private_dir(&self.dir)?;
        if self.admin_key.exists() && self.dir.join("serving.key").exists() {
            return Ok(());
        }
        let serving_ca = pki::new_authority("crd-apiserver-dev-serving-ca")?;
        let client_ca = pki::new_authority("crd-apiserver-dev-client-ca")?;
        let serving = serving_ca.issue(Leaf::Serving {
            hosts: &["localhost", "127.0.0.1", "::1"],
        })?;
        let admin = client_ca.issue(Leaf::Client {
            user: "dev-admin",
            groups: &["system:masters"],
        })?;
        pki::write_pair(&self.dir, "serving-ca", &serving_ca.pem)?;
        pki::write_pair(&self.dir, "client-ca", &client_ca.pem)?;
        pki::write_pair(&self.dir, "serving", &serving)?;
        pki::write_pair(&self.dir, "admin", &admin)?;
        Ok(())
    }

    /// A kubeconfig for the admin user against `addr`.
    pub fn write_kubeconfig(&self, addr: SocketAddr) -> Result<(), PkiError> {
        let read = |p: &Path| {
            std::fs::read(p).map_err(|source| PkiError::Write {
                path: p.display().to_string(),
                source,
            })
        };
        let host = match addr.ip() {
            ip if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
            ip => ip,
        };
        let server = format!("https://{}", SocketAddr::new(host, addr.port()));
        let config = format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: crd-apiserver-dev\n  cluster:\n    server: {server}\n    certificate-authority-data: {}\nusers:\n- name: dev-admin\n  user:\n    client-certificate-data: {}\n    client-key-data: {}\ncontexts:\n- name: crd-apiserver-dev\n  context:\n    cluster: crd-apiserver-dev\n    user: dev-admin\n    namespace: default\ncurrent-context: crd-apiserver-dev\n",
            STANDARD.encode(read(&self.serving_ca)?),
            STANDARD.encode(read(&self.admin_cert)?),
            STANDARD.encode(read(&self.admin_key)?),
        );
        pki::write_file(&self.kubeconfig, config.as_bytes(), 0o600)
    }
}

/// Fills dev defaults into the flags: PKI files, example CRDs, loopback address.
pub fn prepare(mut flags: ServeFlags) -> Result<(ServeFlags, DevPki), PkiError> {
    let dev = DevPki::at(&flags.dev_pki_dir);
    dev.ensure()?;
    private_dir(&flags.data_dir)?;
    // With `--serving-ca-secret` the server serves the Secret's certificate (its CA is
    // the Secret's ca.crt, not the dev serving CA the kubeconfig names).
    if flags.register.serving_ca_secret.is_none() {
        flags.tls_cert_file = Some(dev.dir.join("serving.crt"));
        flags.tls_private_key_file = Some(dev.dir.join("serving.key"));
    }
    flags.auth.client_ca_file = Some(dev.client_ca.clone());
    if flags.crd_dir.is_empty() {
        flags.crd_dir = vec![PathBuf::from("manifests/examples")];
    }
    if flags.bind_address.is_unspecified() {
        flags.bind_address = IpAddr::V4(Ipv4Addr::LOCALHOST);
    }
    Ok((flags, dev))
}

/// Creates `dir` 0700; an existing directory others can enter is reported, not changed
/// (it may be one the user pointed at on purpose). Logging is not set up yet, hence
/// stderr.
fn private_dir(dir: &Path) -> Result<(), PkiError> {
    use std::os::unix::fs::PermissionsExt;
    pki::private_dir(dir)?;
    let mode = std::fs::metadata(dir)
        .map_err(|source| PkiError::Write {
            path: dir.display().to_string(),
            source,
        })?
        .permissions()
        .mode();
    if mode & 0o077 != 0 {
        eprintln!(
            "crd-apiserver: warning: {} is open to other users (mode {:o}); run `chmod 700 {}`",
            dir.display(),
            mode & 0o777,
            dir.display()
        );
    }
    Ok(())
}
