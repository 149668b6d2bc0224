//! etcd backend connection: the gRPC client (TLS with client certificates, keepalive) and
//! what the server's version allows (synchronised on-demand watch progress).

use std::path::Path;
use std::time::Duration;

use etcd_client::{Certificate, Client, ConnectOptions, Identity, TlsOptions};

use super::EtcdConfig;
use super::errors::{backend, classify};
use crate::storage::{Result, StorageError};

/// HTTP/2 keepalive ping interval and timeout on open streams, as kube's etcd client.
const KEEPALIVE_TIME: Duration = Duration::from_secs(30);
const KEEPALIVE_TIMEOUT: Duration = Duration::from_secs(10);

/// Builds the client. Channels connect lazily: this fails only on bad configuration.
pub(super) async fn client(config: &EtcdConfig) -> Result<Client> {
    if config.endpoints.is_empty() {
        return Err(backend("no etcd endpoints configured"));
    }
    let mut options = ConnectOptions::new()
        .with_connect_timeout(config.dial_timeout)
        .with_keep_alive(KEEPALIVE_TIME, KEEPALIVE_TIMEOUT)
        // etcd answers pings without open streams with GOAWAY (too_many_pings).
        .with_keep_alive_while_idle(false)
        // Fail fast on a member without a leader instead of waiting, as kube's watches do.
        .with_require_leader(true);
    if let Some(tls) = tls_options(config)? {
        options = options.with_tls(tls);
    }
    Client::connect(&config.endpoints, Some(options))
        .await
        .map_err(|err| classify("connect", &err).into_storage("connect"))
}

/// TLS settings from the CA, certificate and key files; `None` for plain-text endpoints.
fn tls_options(config: &EtcdConfig) -> Result<Option<TlsOptions>> {
    let files = [&config.ca_file, &config.cert_file, &config.key_file];
    let any_file = files.iter().any(|file| file.is_some());
    let plain: Vec<&str> = config
        .endpoints
        .iter()
        .filter(|e| !e.starts_with("https://"))
        .map(String::as_str)
        .collect();
    if plain.len() == config.endpoints.len() {
        if any_file {
            return Err(backend(format!(
                "etcd TLS files are set but no endpoint uses https: {}",
                plain.join(",")
            )));
        }
        return Ok(None);
    }
    if !plain.is_empty() {
        return Err(backend(format!(
            "etcd endpoints mix https and plain text: {}",
            plain.join(",")
        )));
    }
    let mut tls = TlsOptions::new();
    if let Some(ca) = &config.ca_file {
        tls = tls.ca_certificate(Certificate::from_pem(read(ca, "CA")?));
    }
    match (&config.cert_file, &config.key_file) {
        (Some(cert), Some(key)) => {
            let identity = Identity::from_pem(read(cert, "certificate")?, read(key, "key")?);
            tls = tls.identity(identity);
        }
        (None, None) => {}
        _ => {
            return Err(backend(
                "etcd client certificate and key must be given together",
            ));
        }
    }
    Ok(Some(tls))
}

fn read(path: &Path, what: &str) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|err| {
        StorageError::Backend(format!(
            "cannot read etcd client {what} {}: {err}",
            path.display()
        ))
    })
}

/// Whether etcd answers a progress request only once every event up to the reported
/// revision was sent. Older servers may report a revision ahead of events still queued
/// (etcd-io/etcd#15220, #17507); kube's feature checker uses the same versions.
pub(super) fn synchronised_progress(version: &str) -> bool {
    let mut parts = version
        .trim_start_matches('v')
        .split('.')
        .map(leading_number);
    let (Some(major), Some(minor), Some(patch)) = (parts.next(), parts.next(), parts.next()) else {
        return false;
    };
    match (major, minor) {
        (3, 4) => patch >= 31,
        (3, 5) => patch >= 13,
        (3, _) => minor > 5,
        _ => major > 3,
    }
}

/// The number a version part starts with ("13-rc.0" → 13); 0 without digits.
fn leading_number(part: &str) -> u64 {
    let digits: String = part.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn synchronised_progress_versions_like_kube() {
        let cases = [
            ("3.4.23", false),
            ("3.4.30", false),
            ("3.4.31", true),
            ("3.5.0", false),
            ("3.5.12", false),
            ("3.5.13", true),
            ("3.5.13-rc.0", true),
            ("3.6.0", true),
            ("4.0.0", true),
            ("2.3.8", false),
            ("garbage", false),
        ];
        for (version, want) in cases {
            assert_eq!(synchronised_progress(version), want, "{version}");
        }
    }

    fn config(endpoints: &[&str], ca: bool, cert: bool, key: bool) -> EtcdConfig {
        let mut config = EtcdConfig::new(endpoints.iter().map(|e| e.to_string()).collect());
        let path = |on: bool, name: &str| on.then(|| std::path::PathBuf::from(name));
        config.ca_file = path(ca, "/nonexistent/ca.crt");
        config.cert_file = path(cert, "/nonexistent/client.crt");
        config.key_file = path(key, "/nonexistent/client.key");
        config
    }

    #[test]
    fn tls_options_bad_combinations_rejected() {
        let cases = [
            (
                "tls files on http",
                config(&["http://a:2379"], true, false, false),
                "no endpoint uses https",
            ),
            (
                "mixed schemes",
                config(&["https://a:2379", "http://b:2379"], false, false, false),
                "mix https",
            ),
            (
                "cert without key",
                config(&["https://a:2379"], false, true, false),
                "given together",
            ),
            (
                "unreadable ca",
                config(&["https://a:2379"], true, false, false),
                "cannot read etcd client CA",
            ),
        ];
        for (name, config, want) in cases {
            let err = tls_options(&config)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            assert!(err.contains(want), "{name}: {err}");
        }
        assert!(
            tls_options(&config(&["http://a:2379"], false, false, false))
                .unwrap()
                .is_none()
        );
        assert!(
            tls_options(&config(&["https://a:2379"], false, false, false))
                .unwrap()
                .is_some()
        );
    }
}
