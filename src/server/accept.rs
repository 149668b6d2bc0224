//! The accept loop: TLS handshakes with a timeout, HTTP/1.1 or h2 per ALPN, the peer's
//! certificate chain handed to every request of the connection, graceful draining.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use bytes::{Bytes, BytesMut};
use http::{Method, Request, Response};
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use hyper_util::server::graceful::GracefulShutdown;
use rustls::pki_types::CertificateDer;
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;

use crate::error::ApiError;
use crate::handlers::{self, AppState};
use crate::request::body::MAX_BODY_BYTES;

const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(30);
const KEEP_ALIVE_INTERVAL: Duration = Duration::from_secs(30);
/// Connections served at once; more wait in the listen backlog.
const MAX_CONNECTIONS: usize = 4096;

/// Serves until `stop` resolves, then stops accepting and drains open connections for
/// at most `drain_timeout`.
pub async fn serve(
    listener: TcpListener,
    acceptor: TlsAcceptor,
    state: Arc<AppState>,
    stop: impl std::future::Future<Output = ()>,
    drain_timeout: Duration,
) {
    let graceful = GracefulShutdown::new();
    let permits = Arc::new(tokio::sync::Semaphore::new(MAX_CONNECTIONS));
    tokio::pin!(stop);
    loop {
        let accepted = tokio::select! {
            a = listener.accept() => a,
            _ = &mut stop => break,
        };
        let (tcp, peer) = match accepted {
            Ok(a) => a,
            Err(e) => {
                // Errors such as EMFILE must not end the loop; back off briefly.
                tracing::warn!(error = %e, "accept failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let permit = tokio::select! {
            p = permits.clone().acquire_owned() => p,
            _ = &mut stop => break,
        };
        let Ok(permit) = permit else { break };
        let acceptor = acceptor.clone();
        let state = state.clone();
        let watcher = graceful.watcher();
        tokio::spawn(async move {
            let _permit = permit;
            let tls = match tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(tcp)).await {
                Ok(Ok(tls)) => tls,
                Ok(Err(e)) => return tracing::debug!(%peer, error = %e, "TLS handshake failed"),
                Err(_) => return tracing::debug!(%peer, "TLS handshake timed out"),
            };
            let certs: Arc<Vec<CertificateDer<'static>>> = Arc::new(
                tls.get_ref()
                    .1
                    .peer_certificates()
                    .map(<[_]>::to_vec)
                    .unwrap_or_default(),
            );
            let service = hyper::service::service_fn(move |req| {
                let state = state.clone();
                let certs = certs.clone();
                async move { Ok::<_, Infallible>(handle(state, &certs, req).await) }
            });
            let mut builder = Builder::new(TokioExecutor::new());
            // Slow or idle clients must not hold connection slots forever.
            builder
                .http1()
                .timer(TokioTimer::new())
                .header_read_timeout(HEADER_READ_TIMEOUT);
            builder
                .http2()
                .timer(TokioTimer::new())
                .keep_alive_interval(Some(KEEP_ALIVE_INTERVAL))
                .keep_alive_timeout(HEADER_READ_TIMEOUT);
            let conn = builder.serve_connection_with_upgrades(TokioIo::new(tls), service);
            if let Err(e) = watcher.watch(conn.into_owned()).await {
                tracing::debug!(%peer, error = %e, "connection ended with an error");
            }
        });
    }
    drop(listener);
    tokio::select! {
        _ = graceful.shutdown() => tracing::info!("all connections drained"),
        _ = tokio::time::sleep(drain_timeout) => tracing::warn!("drain timeout reached; closing remaining connections"),
    }
}

/// One HTTP request: body read within the limit, then the handler pipeline.
async fn handle(
    state: Arc<AppState>,
    certs: &[CertificateDer<'static>],
    req: Request<Incoming>,
) -> Response<Body> {
    let (parts, body) = req.into_parts();
    let body = read_body(parts.method.clone(), body);
    let path = parts.uri.path().to_string();
    let query = parts.uri.query().unwrap_or_default().to_string();
    handlers::serve(
        &state,
        parts.method,
        &path,
        &query,
        parts.headers,
        body,
        certs,
    )
    .await
    .into_response()
}

/// Bodies over the limit are still read (and dropped) up to this size, so the client
/// receives the 413 instead of a reset connection.
const DRAIN_LIMIT: usize = 16 * 1024 * 1024;

async fn read_body(method: Method, body: Incoming) -> Result<Bytes, ApiError> {
    if !matches!(
        method,
        Method::POST | Method::PUT | Method::PATCH | Method::DELETE
    ) {
        return Ok(Bytes::new());
    }
    let mut body = body;
    let mut buf = BytesMut::new();
    let mut seen = 0usize;
    while let Some(frame) = body.frame().await {
        let frame = frame
            .map_err(|e| ApiError::BadRequest(format!("error reading the request body: {e}")))?;
        let Ok(data) = frame.into_data() else {
            continue;
        };
        seen += data.len();
        if seen > DRAIN_LIMIT {
            break;
        }
        if seen <= MAX_BODY_BYTES {
            buf.extend_from_slice(&data);
        }
    }
    if seen > MAX_BODY_BYTES {
        return Err(ApiError::RequestEntityTooLarge(format!(
            "Request entity too large: limit is {MAX_BODY_BYTES}"
        )));
    }
    Ok(buf.freeze())
}
