//! Transport flags with k8s.io/apiserver's names and value syntax: the TLS versions and
//! cipher suites offered, serving pairs chosen by SNI, HTTP/2 streams per connection,
//! and the connection limit; validated into a [`Transport`].

use std::path::PathBuf;

use clap::Args;
use rustls::CipherSuite;

use super::ciphers::{self, Suite, TlsVersion, Version};
use super::validate::Problems;

/// kube-apiserver's `--http2-max-streams-per-connection` (an aggregated server's
/// recommended options): its clients, such as the aggregator, multiplex many users'
/// requests and watches over few connections.
pub const DEFAULT_H2_MAX_STREAMS: i64 = 1000;
/// What k8s.io/apiserver gives clients when the flag is 0 (or negative): Go clients'
/// initial stream limit.
pub const H2_MAX_STREAMS_UNSET: u32 = 100;

/// How connections are served.
#[derive(Args, Debug, Clone)]
pub struct TransportFlags {
    /// Minimum TLS version: VersionTLS12 (default) or VersionTLS13 (Go's names).
    #[arg(long = "tls-min-version")]
    pub tls_min_version: Option<String>,
    /// Comma-separated TLS 1.2 cipher suites (Go's names); omitted = every suite this
    /// server implements. TLS 1.3 suites are not configurable.
    #[arg(long = "tls-cipher-suites", value_delimiter = ',')]
    pub tls_cipher_suites: Vec<String>,
    /// A serving pair chosen by SNI: `certfile,keyfile` or `certfile,keyfile:name1,name2`
    /// (names default to the certificate's CN and DNS names); repeatable.
    #[arg(long = "tls-sni-cert-key", value_parser = NamedCertKey::parse)]
    pub tls_sni_cert_key: Vec<NamedCertKey>,
    /// Concurrent streams a client may open on one HTTP/2 connection; 0 = k8s.io/apiserver's default (100).
    #[arg(long = "http2-max-streams-per-connection", default_value_t = DEFAULT_H2_MAX_STREAMS, allow_negative_numbers = true)]
    pub http2_max_streams_per_connection: i64,
    /// Connections served at once, counted after their TLS handshake (tests lower it).
    #[arg(long = "max-connections", default_value_t = 4096, hide = true)]
    pub max_connections: u32,
}

/// `--tls-sni-cert-key`'s value (k8s.io/component-base's `NamedCertKey`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedCertKey {
    pub cert: PathBuf,
    pub key: PathBuf,
    /// Explicit SNI names; empty = the certificate's own.
    pub names: Vec<String>,
}

impl NamedCertKey {
    /// `certfile,keyfile[:name,...]`, each part trimmed, with kube's errors.
    pub fn parse(value: &str) -> Result<NamedCertKey, &'static str> {
        let (pair, names) = match value.split_once(':') {
            Some((pair, names)) => {
                let names = names.trim();
                if names.is_empty() {
                    return Err("empty names list is not allowed");
                }
                let names = names.split(',').map(|n| n.trim().to_string()).collect();
                (pair.trim(), names)
            }
            None => (value.trim(), Vec::new()),
        };
        match pair.split(',').collect::<Vec<_>>()[..] {
            [cert, key] => Ok(NamedCertKey {
                cert: PathBuf::from(cert.trim()),
                key: PathBuf::from(key.trim()),
                names,
            }),
            _ => Err("expected comma separated certificate and key file paths"),
        }
    }
}

/// The TLS parameters of the listener.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsPolicy {
    pub min_version: TlsVersion,
    /// The TLS 1.2 suites offered; None = every suite implemented.
    pub tls12_suites: Option<Vec<CipherSuite>>,
}

/// The validated transport flags.
#[derive(Debug, Clone)]
pub struct Transport {
    pub tls: TlsPolicy,
    pub sni: Vec<NamedCertKey>,
    pub h2_max_streams: u32,
    pub max_connections: u32,
}

impl Problems {
    /// Checks the transport flags; None when any is wrong (each problem is added).
    pub(super) fn transport(&mut self, flags: &TransportFlags) -> Option<Transport> {
        let before = self.count();
        let min_version = self.min_version(flags.tls_min_version.as_deref());
        let tls12_suites = self.cipher_suites(&flags.tls_cipher_suites);
        for pair in &flags.tls_sni_cert_key {
            self.readable("tls-sni-cert-key", &pair.cert);
            self.readable("tls-sni-cert-key", &pair.key);
        }
        let h2_max_streams = match flags.http2_max_streams_per_connection {
            n if n <= 0 => H2_MAX_STREAMS_UNSET,
            n => u32::try_from(n).unwrap_or_else(|_| {
                self.add(
                    "http2-max-streams-per-connection",
                    format!("{n} is more than {}", u32::MAX),
                );
                0
            }),
        };
        if flags.max_connections == 0 {
            self.add("max-connections", "must be greater than 0");
        }
        (self.count() == before).then(|| Transport {
            tls: TlsPolicy {
                min_version,
                tls12_suites,
            },
            sni: flags.tls_sni_cert_key.clone(),
            h2_max_streams,
            max_connections: flags.max_connections,
        })
    }

    fn min_version(&mut self, name: Option<&str>) -> TlsVersion {
        let accepted = || ciphers::accepted_versions().join(", ");
        match name.map(|n| (n, ciphers::version(n))) {
            None => TlsVersion::Tls12,
            Some((_, Some(Version::Supported(version)))) => version,
            Some((name, Some(Version::NotImplemented))) => {
                let problem = format!(
                    "{name} is not supported by this server (TLS 1.0 and 1.1 are not implemented); accepted: {}",
                    accepted()
                );
                self.add("tls-min-version", problem);
                TlsVersion::Tls12
            }
            Some((name, None)) => {
                let problem = format!("unknown tls version {name:?}; accepted: {}", accepted());
                self.add("tls-min-version", problem);
                TlsVersion::Tls12
            }
        }
    }

    fn cipher_suites(&mut self, names: &[String]) -> Option<Vec<CipherSuite>> {
        if names.is_empty() {
            return None;
        }
        let accepted = || ciphers::accepted_suites().join(", ");
        let mut suites = Vec::new();
        for name in names {
            match ciphers::suite(name) {
                Some(Suite::Tls12(suite)) => suites.push(suite),
                Some(Suite::Tls13) => {}
                Some(Suite::NotImplemented) => self.add(
                    "tls-cipher-suites",
                    format!(
                        "Cipher suite {name} is not supported by this server; accepted: {}",
                        accepted()
                    ),
                ),
                None => self.add(
                    "tls-cipher-suites",
                    format!(
                        "Cipher suite {name} not supported or doesn't exist; accepted: {}",
                        accepted()
                    ),
                ),
            }
        }
        Some(suites)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_cert_key_parse_kube_syntax() {
        let pair = |cert: &str, key: &str, names: &[&str]| NamedCertKey {
            cert: cert.into(),
            key: key.into(),
            names: names.iter().map(|n| n.to_string()).collect(),
        };
        #[rustfmt::skip]
        let cases = [
            ("a.crt,a.key", Ok(pair("a.crt", "a.key", &[]))),
            (" a.crt , a.key ", Ok(pair("a.crt", "a.key", &[]))),
            ("foo.crt,foo.key:*.foo.com,foo.com", Ok(pair("foo.crt", "foo.key", &["*.foo.com", "foo.com"]))),
            ("foo.crt,foo.key: a.com , b.com", Ok(pair("foo.crt", "foo.key", &["a.com", "b.com"]))),
            ("foo.crt,foo.key:", Err("empty names list is not allowed")),
            ("foo.crt,foo.key: ", Err("empty names list is not allowed")),
            ("foo.crt", Err("expected comma separated certificate and key file paths")),
            ("a,b,c", Err("expected comma separated certificate and key file paths")),
            ("a:b.com", Err("expected comma separated certificate and key file paths")),
        ];
        for (value, want) in cases {
            assert_eq!(NamedCertKey::parse(value), want, "{value}");
        }
    }
}

#[cfg(test)]
mod validate_tests {
    use clap::Parser;

    use super::*;
    use crate::config::Cli;

    fn validate(args: &[&str]) -> Result<Transport, Vec<String>> {
        let crds = env!("CARGO_MANIFEST_DIR").to_string() + "/manifests/examples";
        let mut argv = vec!["crd-apiserver", "--crd-dir", &crds];
        argv.extend_from_slice(args);
        let flags = Cli::try_parse_from(argv).expect("flags parse").serve;
        flags
            .validate()
            .map(|c| c.transport)
            .map_err(|e| e.problems)
    }

    /// Flags, and the version, TLS 1.2 suites and h2 stream limit they choose.
    type Case = (
        &'static [&'static str],
        TlsVersion,
        Option<Vec<CipherSuite>>,
        u32,
    );

    #[test]
    fn validate_transport_good_flags_chosen() {
        let ecdsa = CipherSuite::TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256;
        let chacha = CipherSuite::TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256;
        #[rustfmt::skip]
        let cases: [Case; 6] = [
            (&[], TlsVersion::Tls12, None, 1000),
            (&["--http2-max-streams-per-connection", "0"], TlsVersion::Tls12, None, 100),
            (&["--http2-max-streams-per-connection=-5"], TlsVersion::Tls12, None, 100),
            (&["--http2-max-streams-per-connection", "7", "--tls-min-version", "VersionTLS13"], TlsVersion::Tls13, None, 7),
            (&["--tls-cipher-suites", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,TLS_AES_128_GCM_SHA256,TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305"], TlsVersion::Tls12, Some(vec![ecdsa, chacha]), 1000),
            (&["--tls-cipher-suites", "TLS_AES_256_GCM_SHA384"], TlsVersion::Tls12, Some(vec![]), 1000),
        ];
        for (args, version, suites, streams) in cases {
            let got = validate(args).unwrap_or_else(|p| panic!("{args:?}: {p:?}"));
            assert_eq!(got.tls.min_version, version, "{args:?}");
            assert_eq!(got.tls.tls12_suites, suites, "{args:?}");
            assert_eq!(got.h2_max_streams, streams, "{args:?}");
        }
    }

    #[test]
    fn validate_transport_bad_flags_report_every_problem() {
        let accepted_suites = ciphers::accepted_suites().join(", ");
        let accepted_versions = "VersionTLS12, VersionTLS13";
        #[rustfmt::skip]
        let cases: [(&str, &[&str], Vec<String>); 5] = [
            ("old and unknown versions", &["--tls-min-version", "VersionTLS10"], vec![
                format!("--tls-min-version: VersionTLS10 is not supported by this server (TLS 1.0 and 1.1 are not implemented); accepted: {accepted_versions}"),
            ]),
            ("unknown version", &["--tls-min-version", "TLS13"], vec![
                format!("--tls-min-version: unknown tls version \"TLS13\"; accepted: {accepted_versions}"),
            ]),
            ("suites rustls lacks and unknown names", &["--tls-cipher-suites", "TLS_RSA_WITH_RC4_128_SHA,TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,NOPE"], vec![
                format!("--tls-cipher-suites: Cipher suite TLS_RSA_WITH_RC4_128_SHA is not supported by this server; accepted: {accepted_suites}"),
                format!("--tls-cipher-suites: Cipher suite NOPE not supported or doesn't exist; accepted: {accepted_suites}"),
            ]),
            ("missing SNI files", &["--tls-sni-cert-key", "/no.crt,/no.key:a.example"], vec![
                "--tls-sni-cert-key: /no.crt is not a readable file".into(),
                "--tls-sni-cert-key: /no.key is not a readable file".into(),
            ]),
            ("streams past u32 and no connections", &["--http2-max-streams-per-connection", "4294967296", "--max-connections", "0"], vec![
                "--http2-max-streams-per-connection: 4294967296 is more than 4294967295".into(),
                "--max-connections: must be greater than 0".into(),
            ]),
        ];
        for (name, args, want) in cases {
            let got = validate(args).expect_err(name);
            assert_eq!(got, want, "{name}");
        }
    }

    #[test]
    fn cli_sni_syntax_error_refused_with_kube_text() {
        let err = Cli::try_parse_from(["crd-apiserver", "--tls-sni-cert-key", "a.crt:x"])
            .expect_err("refused");
        assert!(
            err.to_string()
                .contains("expected comma separated certificate and key file paths"),
            "{err}"
        );
    }
}
