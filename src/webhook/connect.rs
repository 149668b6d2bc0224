//! One pooled HTTPS client per webhook connection identity (endpoint host, caBundle,
//! credentials): rustls on ring, HTTP/2 by ALPN with HTTP/1.1 fallback, the service
//! override applied to the address dialled while TLS still verifies the service's name.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use http::Uri;
use http_body_util::Full;
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use rustls::RootCertStore;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

use super::credentials::Credentials;

/// How long a pooled connection may stay idle.
pub const POOL_IDLE: std::time::Duration = std::time::Duration::from_secs(90);

pub type Pooled = Client<HttpsConnector<Overriding>, Full<Bytes>>;

/// `<name>.<namespace>.svc` → where to connect instead.
pub type Overrides = Arc<BTreeMap<String, SocketAddr>>;

/// The TCP connector, with the service overrides applied to the address dialled (the
/// URI's host stays the TLS server name: hyper-rustls takes it before dialling).
/// hyper-util's `HttpConnector` puts the URI's port on every resolved address, so the
/// override rewrites the URI it dials rather than resolving the name.
#[derive(Clone)]
pub struct Overriding {
    http: HttpConnector,
    overrides: Overrides,
}

impl tower::Service<Uri> for Overriding {
    type Response = <HttpConnector as tower::Service<Uri>>::Response;
    type Error = <HttpConnector as tower::Service<Uri>>::Error;
    type Future = <HttpConnector as tower::Service<Uri>>::Future;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.http.poll_ready(cx)
    }

    fn call(&mut self, dst: Uri) -> Self::Future {
        let fixed = dst.host().and_then(|host| self.overrides.get(host));
        let dst = match fixed.and_then(|addr| dialled(&dst, *addr)) {
            Some(rewritten) => rewritten,
            None => dst,
        };
        self.http.call(dst)
    }
}

/// `dst` with its authority replaced by `addr`.
fn dialled(dst: &Uri, addr: SocketAddr) -> Option<Uri> {
    let mut parts = dst.clone().into_parts();
    parts.authority = Some(addr.to_string().parse().ok()?);
    Uri::from_parts(parts).ok()
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
    let mut http = HttpConnector::new();
    http.enforce_http(false);
    http.set_nodelay(true);
    let http = Overriding {
        http,
        overrides: overrides.clone(),
    };
    let https = hyper_rustls::HttpsConnectorBuilder::new()
        .with_tls_config(config)
        .https_only()
        .enable_all_versions()
        .wrap_connector(http);
    Ok(Client::builder(TokioExecutor::new())
        .pool_idle_timeout(POOL_IDLE)
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
