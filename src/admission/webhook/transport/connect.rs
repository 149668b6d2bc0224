//! One pooled HTTPS client per webhook connection identity (endpoint host, caBundle,
//! credentials): rustls on ring, HTTP/2 by ALPN with HTTP/1.1 fallback, the service
//! override applied by the resolver while TLS still verifies the service's name.

use std::collections::BTreeMap;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body_util::Full;
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::connect::dns::Name;
use hyper_util::rt::TokioExecutor;
use rustls::RootCertStore;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

use super::credentials::Credentials;

pub type Pooled = Client<HttpsConnector<HttpConnector<Resolver>>, Full<Bytes>>;

/// `<name>.<namespace>.svc` (or `<name>.<namespace>.svc:<port>`) → where to connect.
pub type Overrides = Arc<BTreeMap<String, SocketAddr>>;

/// DNS, with the service overrides first.
#[derive(Clone)]
pub struct Resolver {
    overrides: Overrides,
}

impl tower::Service<Name> for Resolver {
    type Response = std::vec::IntoIter<SocketAddr>;
    type Error = std::io::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Self::Error>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, name: Name) -> Self::Future {
        let host = name.as_str().to_string();
        let fixed = self.overrides.get(&host).copied();
        Box::pin(async move {
            if let Some(addr) = fixed {
                return Ok(vec![addr].into_iter());
            }
            let addrs: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            Ok(addrs.into_iter())
        })
    }
}

/// A client for calls with these roots and credentials.
pub fn client(
    ca_bundle: Option<&[u8]>,
    credentials: &Credentials,
    overrides: &Overrides,
) -> Result<Pooled, String> {
    let roots = roots(ca_bundle)?;
    let builder = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(|e| e.to_string())?
    .with_root_certificates(roots);
    let config = match &credentials.client_cert {
        Some((cert, key)) => {
            let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(cert)
                .collect::<Result<_, _>>()
                .map_err(|e| format!("client certificate: {e}"))?;
            let key = PrivateKeyDer::from_pem_slice(key).map_err(|e| format!("client key: {e}"))?;
            builder
                .with_client_auth_cert(chain, key)
                .map_err(|e| e.to_string())?
        }
        None => builder.with_no_client_auth(),
    };
    let mut http = HttpConnector::new_with_resolver(Resolver {
        overrides: overrides.clone(),
    });
    http.enforce_http(false);
    http.set_nodelay(true);
    let https = hyper_rustls::HttpsConnectorBuilder::new()
        .with_tls_config(config)
        .https_only()
        .enable_all_versions()
        .wrap_connector(http);
    Ok(Client::builder(TokioExecutor::new())
        .pool_idle_timeout(std::time::Duration::from_secs(90))
        .build(https))
}

/// `caBundle` pins the roots; without it, the system's.
fn roots(ca_bundle: Option<&[u8]>) -> Result<RootCertStore, String> {
    let mut roots = RootCertStore::empty();
    match ca_bundle {
        Some(pem) => {
            for cert in CertificateDer::pem_slice_iter(pem) {
                let cert = cert.map_err(|e| format!("caBundle: {e}"))?;
                roots.add(cert).map_err(|e| format!("caBundle: {e}"))?;
            }
            if roots.is_empty() {
                return Err("caBundle: no certificate found".into());
            }
        }
        None => {
            let native = rustls_native_certs::load_native_certs();
            roots.add_parsable_certificates(native.certs);
        }
    }
    Ok(roots)
}
