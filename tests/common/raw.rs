//! Raw TLS clients for the tests of floods and transport flags: a connector trusting the
//! dev serving CA with chosen ALPN protocols, a bare handshake, the test process's
//! open-files limit, and the probe every flood test ends with.

use std::sync::Arc;
use std::time::{Duration, Instant};

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;

use super::Server;

/// The dev serving CA, as roots.
pub fn dev_roots(server: &Server) -> rustls::RootCertStore {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut roots = rustls::RootCertStore::empty();
    for ca in CertificateDer::pem_file_iter(server.pki.join("serving-ca.crt")).unwrap() {
        roots.add(ca.unwrap()).unwrap();
    }
    roots
}

/// A raw TLS client trusting the server's dev CA, offering `alpn`.
pub fn connector(server: &Server, alpn: &[&[u8]]) -> TlsConnector {
    let mut config = rustls::ClientConfig::builder()
        .with_root_certificates(dev_roots(server))
        .with_no_client_auth();
    config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
    TlsConnector::from(Arc::new(config))
}

/// A TLS connection to the server's address (no SNI: the name is its IP).
pub async fn handshake(
    server: &Server,
    tls: &TlsConnector,
) -> std::io::Result<TlsStream<TcpStream>> {
    let tcp = TcpStream::connect(server.addr).await?;
    let name = ServerName::IpAddress(server.addr.ip().into());
    tls.connect(name, tcp).await
}

/// The test process needs a file descriptor per flood connection.
pub fn raise_open_files_limit(wanted: u64) {
    use rustix::process::{Resource, getrlimit, setrlimit};
    let limit = getrlimit(Resource::Nofile);
    let raised = rustix::process::Rlimit {
        current: limit.maximum,
        maximum: limit.maximum,
    };
    setrlimit(Resource::Nofile, raised).unwrap();
    let soft = getrlimit(Resource::Nofile).current;
    assert!(
        soft.is_none_or(|s| s >= wanted),
        "open-files hard limit {soft:?} is below the {wanted} this test needs (ulimit -Hn)"
    );
}

/// `/livez` on a new connection answers 200 within a second, five times over.
pub async fn livez_answers_within_a_second(server: &Server) {
    for _ in 0..5 {
        let probe = server.anonymous();
        let started = Instant::now();
        let resp = tokio::time::timeout(
            Duration::from_secs(5),
            probe.get(server.url("/livez")).send(),
        )
        .await
        .expect("livez answered during the flood")
        .unwrap();
        let took = started.elapsed();
        assert_eq!(resp.status(), 200);
        assert!(took < Duration::from_secs(1), "livez took {took:?}");
    }
}
