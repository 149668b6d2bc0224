//! Go's TLS names, as `--tls-cipher-suites` and `--tls-min-version` take them
//! (k8s.io/component-base/cli/flag/ciphersuites_flag.go: every suite of crypto/tls's
//! `CipherSuites()` and `InsecureCipherSuites()`, two legacy ChaCha20 names, and
//! `VersionTLS10` to `VersionTLS13`), and which of them rustls's ring provider can do.

use rustls::CipherSuite;

/// What this server can do with a suite Go names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Suite {
    /// A TLS 1.2 suite rustls implements.
    Tls12(CipherSuite),
    /// A TLS 1.3 suite: accepted and without effect, as in Go (TLS 1.3 suites are not
    /// configurable there either).
    Tls13,
    /// A suite Go implements and rustls does not (CBC, RC4, 3DES, RSA key exchange).
    NotImplemented,
}

#[rustfmt::skip]
const GO_SUITES: [(&str, Suite); 27] = [
    ("TLS_AES_128_GCM_SHA256", Suite::Tls13),
    ("TLS_AES_256_GCM_SHA384", Suite::Tls13),
    ("TLS_CHACHA20_POLY1305_SHA256", Suite::Tls13),
    ("TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", Suite::Tls12(CipherSuite::TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256)),
    ("TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", Suite::Tls12(CipherSuite::TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384)),
    ("TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305", Suite::Tls12(CipherSuite::TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256)),
    ("TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", Suite::Tls12(CipherSuite::TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256)),
    ("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", Suite::Tls12(CipherSuite::TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256)),
    ("TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", Suite::Tls12(CipherSuite::TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384)),
    ("TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305", Suite::Tls12(CipherSuite::TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256)),
    ("TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", Suite::Tls12(CipherSuite::TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256)),
    ("TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", Suite::NotImplemented),
    ("TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256", Suite::NotImplemented),
    ("TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA", Suite::NotImplemented),
    ("TLS_ECDHE_ECDSA_WITH_RC4_128_SHA", Suite::NotImplemented),
    ("TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA", Suite::NotImplemented),
    ("TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", Suite::NotImplemented),
    ("TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256", Suite::NotImplemented),
    ("TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA", Suite::NotImplemented),
    ("TLS_ECDHE_RSA_WITH_RC4_128_SHA", Suite::NotImplemented),
    ("TLS_RSA_WITH_3DES_EDE_CBC_SHA", Suite::NotImplemented),
    ("TLS_RSA_WITH_AES_128_CBC_SHA", Suite::NotImplemented),
    ("TLS_RSA_WITH_AES_128_CBC_SHA256", Suite::NotImplemented),
    ("TLS_RSA_WITH_AES_128_GCM_SHA256", Suite::NotImplemented),
    ("TLS_RSA_WITH_AES_256_CBC_SHA", Suite::NotImplemented),
    ("TLS_RSA_WITH_AES_256_GCM_SHA384", Suite::NotImplemented),
    ("TLS_RSA_WITH_RC4_128_SHA", Suite::NotImplemented),
];

/// The suite Go calls `name`; None for a name Go does not know.
pub fn suite(name: &str) -> Option<Suite> {
    GO_SUITES.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
}

/// The names this server accepts, sorted.
pub fn accepted_suites() -> Vec<&'static str> {
    let mut names: Vec<_> = GO_SUITES
        .iter()
        .filter(|(_, s)| *s != Suite::NotImplemented)
        .map(|(n, _)| *n)
        .collect();
    names.sort_unstable();
    names
}

/// The lowest TLS version offered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TlsVersion {
    Tls12,
    Tls13,
}

/// What Go's version names mean here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    Supported(TlsVersion),
    /// TLS 1.0 and 1.1: Go knows them, rustls does not implement them.
    NotImplemented,
}

const GO_VERSIONS: [(&str, Version); 4] = [
    ("VersionTLS10", Version::NotImplemented),
    ("VersionTLS11", Version::NotImplemented),
    ("VersionTLS12", Version::Supported(TlsVersion::Tls12)),
    ("VersionTLS13", Version::Supported(TlsVersion::Tls13)),
];

/// The version Go calls `name`; None for a name Go does not know.
pub fn version(name: &str) -> Option<Version> {
    GO_VERSIONS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, v)| *v)
}

/// The version names this server accepts.
pub fn accepted_versions() -> Vec<&'static str> {
    GO_VERSIONS
        .iter()
        .filter(|(_, v)| *v != Version::NotImplemented)
        .map(|(n, _)| *n)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suite_go_names_mapped() {
        let cases = [
            (
                "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
                Some(Suite::Tls12(
                    CipherSuite::TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
                )),
            ),
            (
                "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305",
                Some(Suite::Tls12(
                    CipherSuite::TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
                )),
            ),
            ("TLS_AES_128_GCM_SHA256", Some(Suite::Tls13)),
            ("TLS_RSA_WITH_RC4_128_SHA", Some(Suite::NotImplemented)),
            (
                "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA",
                Some(Suite::NotImplemented),
            ),
            ("tls_ecdhe_rsa_with_aes_128_gcm_sha256", None),
            ("TLS13_AES_128_GCM_SHA256", None),
        ];
        for (name, want) in cases {
            assert_eq!(suite(name), want, "{name}");
        }
    }

    #[test]
    fn suite_every_rustls_tls12_suite_has_a_go_name() {
        for supported in rustls::crypto::ring::ALL_CIPHER_SUITES {
            let id = supported.suite();
            let named = GO_SUITES.iter().any(|(_, s)| *s == Suite::Tls12(id));
            let tls13 = supported.version() == &rustls::version::TLS13;
            assert!(named || tls13, "{id:?} has no Go name");
        }
    }

    #[test]
    fn version_go_names_mapped() {
        let cases = [
            ("VersionTLS10", Some(Version::NotImplemented)),
            ("VersionTLS12", Some(Version::Supported(TlsVersion::Tls12))),
            ("VersionTLS13", Some(Version::Supported(TlsVersion::Tls13))),
            ("TLS13", None),
            ("", None),
        ];
        for (name, want) in cases {
            assert_eq!(version(name), want, "{name}");
        }
        assert_eq!(accepted_versions(), ["VersionTLS12", "VersionTLS13"]);
    }
}
