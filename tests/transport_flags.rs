//! The transport flags over real TLS: `--http2-max-streams-per-connection` is the
//! SETTINGS_MAX_CONCURRENT_STREAMS an HTTP/2 client sees, `--tls-min-version` and
//! `--tls-cipher-suites` are what handshakes can negotiate, `--tls-sni-cert-key` pairs
//! are served by server name (and followed when their files change), and bad values stop
//! start-up with every problem listed.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use common::Server;
use common::raw::{connector, dev_roots, handshake};
use crd_apiserver::server::pki::{self, Authority, Leaf};
use rustls::pki_types::{CertificateDer, ServerName};
use rustls::{CipherSuite, ProtocolVersion};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;

/// The server's SETTINGS_MAX_CONCURRENT_STREAMS, as an h2 client sees it once the
/// server's SETTINGS have arrived (before them, the client assumes 3).
async fn h2_max_streams(server: &Server) -> usize {
    let conn = handshake(server, &connector(server, &[b"h2"]))
        .await
        .unwrap();
    let (client, connection) = h2::client::Builder::new()
        .initial_max_send_streams(3)
        .handshake::<_, Bytes>(conn)
        .await
        .unwrap();
    tokio::spawn(connection);
    let mut client = client.ready().await.unwrap();
    let request = http::Request::get(server.url("/livez")).body(()).unwrap();
    let (response, _) = client.send_request(request, true).unwrap();
    assert_eq!(response.await.unwrap().status(), 200);
    client.current_max_send_streams()
}

#[tokio::test]
async fn http2_max_streams_default_1000_flag_value_zero_kube_default() {
    let cases: [(&[&str], usize); 3] = [
        (&[], 1000),
        (&["--http2-max-streams-per-connection=7"], 7),
        (&["--http2-max-streams-per-connection=0"], 100),
    ];
    for (args, want) in cases {
        let server = Server::start_with(args);
        assert_eq!(h2_max_streams(&server).await, want, "{args:?}");
    }
}

/// A client trusting `roots`, limited to `versions` and (when given) `suites`.
fn client(
    roots: rustls::RootCertStore,
    versions: &[&'static rustls::SupportedProtocolVersion],
    suites: Option<&[CipherSuite]>,
) -> TlsConnector {
    let mut provider = rustls::crypto::ring::default_provider();
    if let Some(suites) = suites {
        provider
            .cipher_suites
            .retain(|s| suites.contains(&s.suite()));
    }
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(provider))
        .with_protocol_versions(versions)
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    TlsConnector::from(Arc::new(config))
}

/// The negotiated version and suite, or the handshake's error.
async fn negotiate(
    server: &Server,
    tls: &TlsConnector,
) -> Result<(ProtocolVersion, CipherSuite), String> {
    let conn = handshake(server, tls).await.map_err(|e| e.to_string())?;
    let session = conn.get_ref().1;
    let version = session.protocol_version().unwrap();
    Ok((version, session.negotiated_cipher_suite().unwrap().suite()))
}

const TLS12: &[&rustls::SupportedProtocolVersion] = &[&rustls::version::TLS12];
const TLS13: &[&rustls::SupportedProtocolVersion] = &[&rustls::version::TLS13];

#[tokio::test]
async fn tls_min_version_13_refuses_tls12_client() {
    let server = Server::start_with(&["--tls-min-version=VersionTLS13"]);
    let refused = negotiate(&server, &client(dev_roots(&server), TLS12, None)).await;
    assert!(refused.is_err(), "a TLS 1.2 client got {refused:?}");
    let (version, _) = negotiate(&server, &client(dev_roots(&server), TLS13, None))
        .await
        .unwrap();
    assert_eq!(version, ProtocolVersion::TLSv1_3);
}

#[tokio::test]
async fn tls_cipher_suites_restrict_tls12_handshakes() {
    let chacha = CipherSuite::TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256;
    let aes128 = CipherSuite::TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256;
    // A TLS 1.3 name in the list is accepted and changes nothing, as in Go.
    let server = Server::start_with(&[
        "--tls-cipher-suites=TLS_AES_128_GCM_SHA256,TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305",
    ]);
    // The client prefers AES-256-GCM, then AES-128-GCM; only ChaCha20 is left to agree on.
    let any_tls12 = client(dev_roots(&server), TLS12, None);
    assert_eq!(
        negotiate(&server, &any_tls12).await.unwrap(),
        (ProtocolVersion::TLSv1_2, chacha)
    );
    let aes_only = client(dev_roots(&server), TLS12, Some(&[aes128]));
    let refused = negotiate(&server, &aes_only).await;
    assert!(
        refused.is_err(),
        "a suite left out was negotiated: {refused:?}"
    );
    // TLS 1.3 suites are not configurable: TLS 1.3 clients are served as before.
    let tls13 = client(dev_roots(&server), TLS13, None);
    let (version, _) = negotiate(&server, &tls13).await.unwrap();
    assert_eq!(version, ProtocolVersion::TLSv1_3);
}

#[tokio::test]
async fn tls_default_flags_tls12_client_served_with_its_preferred_suite() {
    // The same clients against a server without the flags: the restrictions above are
    // the flags' doing.
    let server = Server::start();
    let any_tls12 = client(dev_roots(&server), TLS12, None);
    assert_eq!(
        negotiate(&server, &any_tls12).await.unwrap(),
        (
            ProtocolVersion::TLSv1_2,
            CipherSuite::TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384
        )
    );
}

/// An SNI pair for `hosts` signed by `ca`, written to `dir/name.{crt,key}`.
fn sni_pair(ca: &Authority, dir: &Path, name: &str, hosts: &[&str]) -> (PathBuf, PathBuf) {
    let pem = ca.issue(Leaf::Serving { hosts }).unwrap();
    pki::write_pair(dir, name, &pem).unwrap()
}

/// Accepts whatever the server presents: the tests look at which certificate that is.
#[derive(Debug)]
struct AnyCertificate(Arc<rustls::crypto::CryptoProvider>);

impl rustls::client::danger::ServerCertVerifier for AnyCertificate {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: rustls::pki_types::UnixTime,
    ) -> Result<rustls::client::danger::ServerCertVerified, rustls::Error> {
        Ok(rustls::client::danger::ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        let algorithms = &self.0.signature_verification_algorithms;
        rustls::crypto::verify_tls12_signature(message, cert, dss, algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        let algorithms = &self.0.signature_verification_algorithms;
        rustls::crypto::verify_tls13_signature(message, cert, dss, algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// The CN and DNS SANs of the certificate the server presents for `server_name` (None:
/// no SNI, the server's IP).
async fn presented(server: &Server, server_name: Option<&str>) -> (String, Vec<String>) {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .unwrap()
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(AnyCertificate(provider)))
        .with_no_client_auth();
    let tcp = TcpStream::connect(server.addr).await.unwrap();
    let name = match server_name {
        Some(name) => ServerName::try_from(name.to_string()).unwrap(),
        None => ServerName::IpAddress(server.addr.ip().into()),
    };
    let tls = TlsConnector::from(Arc::new(config));
    let conn = tls.connect(name, tcp).await.unwrap();
    let leaf = conn.get_ref().1.peer_certificates().unwrap()[0].clone();
    let (_, cert) = x509_parser::parse_x509_certificate(leaf.as_ref()).unwrap();
    let cn = cert.subject().iter_common_name().next().unwrap();
    let sans = cert.subject_alternative_name().unwrap().unwrap();
    let dns = sans
        .value
        .general_names
        .iter()
        .filter_map(|n| match n {
            x509_parser::extensions::GeneralName::DNSName(d) => Some(d.to_string()),
            _ => None,
        })
        .collect();
    (cn.as_str().unwrap().to_string(), dns)
}

#[tokio::test]
async fn tls_sni_cert_key_pairs_served_by_name_and_followed() {
    let dir = tempfile::tempdir().unwrap();
    let ca = pki::new_authority("sni-test-ca").unwrap();
    let (a_cert, a_key) = sni_pair(&ca, dir.path(), "a", &["a.example", "alt.example"]);
    let (b_cert, b_key) = sni_pair(&ca, dir.path(), "b", &["b-cert.example"]);
    let server = Server::start_with(&[
        &format!(
            "--tls-sni-cert-key={},{}",
            a_cert.display(),
            a_key.display()
        ),
        &format!(
            "--tls-sni-cert-key={},{}:named.example,*.wild.example",
            b_cert.display(),
            b_key.display()
        ),
    ]);
    let a = || {
        (
            "a.example".to_string(),
            vec!["a.example".to_string(), "alt.example".to_string()],
        )
    };
    let b = || {
        (
            "b-cert.example".to_string(),
            vec!["b-cert.example".to_string()],
        )
    };
    let default = presented(&server, None).await;
    assert_eq!(default.0, "localhost", "{default:?}");
    #[rustfmt::skip]
    let cases = [
        ("a.example", a()),             // the certificate's CN
        ("ALT.example", a()),           // its DNS SAN, any case
        ("named.example", b()),         // explicit names
        ("x.wild.example", b()),
        ("b-cert.example", default.clone()), // explicit names replace the certificate's own
        ("other.example", default.clone()),
    ];
    for (name, want) in cases {
        assert_eq!(presented(&server, Some(name)).await, want, "{name}");
    }

    // A renewed pair under the same files is served to new handshakes.
    let renewed = ca
        .issue(Leaf::Serving {
            hosts: &["renamed.example"],
        })
        .unwrap();
    pki::write_file(&a_key, renewed.key.as_bytes(), 0o600).unwrap();
    pki::write_file(&a_cert, renewed.cert.as_bytes(), 0o644).unwrap();
    common::eventually(Duration::from_secs(15), "the renewed SNI pair", || {
        let server = &server;
        async move {
            let got = presented(server, Some("renamed.example")).await;
            (got.0 == "renamed.example").then_some(())
        }
    })
    .await;
    let old_name = presented(&server, Some("a.example")).await;
    assert_eq!(
        old_name.0, "localhost",
        "the replaced pair's names are gone"
    );
}

#[test]
fn transport_flags_bad_values_stop_start_up_listing_each() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_crd-apiserver"))
        .current_dir(common::repo_root())
        .args([
            "--crd-dir=manifests/examples",
            "--tls-min-version=VersionTLS11",
            "--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA,TLS_NOPE",
            "--tls-sni-cert-key=/nonexistent.crt,/nonexistent.key",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(64));
    let stderr = String::from_utf8_lossy(&out.stderr);
    for want in [
        "--tls-min-version: VersionTLS11 is not supported by this server (TLS 1.0 and 1.1 are not implemented); accepted: VersionTLS12, VersionTLS13",
        "--tls-cipher-suites: Cipher suite TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA is not supported by this server; accepted: TLS_AES_128_GCM_SHA256, ",
        "--tls-cipher-suites: Cipher suite TLS_NOPE not supported or doesn't exist; accepted: TLS_AES_128_GCM_SHA256, ",
        "--tls-sni-cert-key: /nonexistent.crt is not a readable file",
        "--tls-sni-cert-key: /nonexistent.key is not a readable file",
    ] {
        assert!(stderr.contains(want), "missing {want:?} in:\n{stderr}");
    }
}
