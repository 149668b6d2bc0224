//! The accept loop: every TCP connection gets a handshake slot, then — only once its TLS
//! handshake is done — a connection slot; then graceful draining when the server stops.
//!
//! Why this order: a slot taken before the handshake lets anyone who can reach the port
//! fill every slot with connections that never speak, and the health probes time out.
//! So the loop never waits: handshakes are bounded by their own pool and by a deadline,
//! and a full pool (of handshakes, or of connections) asks its oldest evictable member
//! to leave rather than turning the newcomer away. A connection is evictable only while
//! it carries no stream or only streams its peer stopped reading
//! ([`crate::server::streams`]): watches and responses in progress are never ended for
//! a newcomer. When no connection is evictable, the newcomer waits for a slot within its
//! handshake deadline, and at most [`MAX_WAITING`] wait at once; the others are closed.

use std::sync::Arc;
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, watch};
use tokio_rustls::TlsAcceptor;
use tokio_rustls::server::TlsStream;

use super::chain::Chain;
use crate::server::connection::{self, Shared};
use crate::server::slots::{Always, Answer, Slots};

/// TLS handshakes in progress at once; when full, the oldest gives way to a newcomer, so
/// a half-open flood cannot starve a client whose handshake takes milliseconds.
pub const MAX_HANDSHAKES: u32 = 1024;
/// Newcomers with a finished handshake waiting for a connection slot at once.
pub const MAX_WAITING: u32 = 1024;

/// The connection limits of the flags.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Connections served at once, counted after their handshake.
    pub max_connections: u32,
    pub h2_max_streams: u32,
    pub handshake_timeout: Duration,
    pub idle_timeout: Duration,
    pub drain_timeout: Duration,
}

/// Serves until `stop` resolves, then stops accepting and drains open connections for
/// at most `limits.drain_timeout`.
pub async fn serve(
    listener: TcpListener,
    acceptor: TlsAcceptor,
    chain: Arc<Chain>,
    stop: impl std::future::Future<Output = ()>,
    limits: Limits,
) {
    let handshakes = Slots::new(MAX_HANDSHAKES, MAX_HANDSHAKES);
    let (closing_tx, closing) = watch::channel(false);
    let shared = Shared {
        chain,
        slots: Slots::new(limits.max_connections, MAX_WAITING),
        idle_timeout: limits.idle_timeout,
        h2_max_streams: limits.h2_max_streams,
        closing,
    };
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
        let acceptor = acceptor.clone();
        let handshakes = handshakes.clone();
        let shared = shared.clone();
        let deadline = limits.handshake_timeout;
        tokio::spawn(async move {
            let mut closing = shared.closing.clone();
            let stop = async move {
                let _ = closing.wait_for(|c| *c).await;
            };
            let establishing = establish(tcp, acceptor, &handshakes, &shared.slots);
            let established = tokio::select! {
                e = tokio::time::timeout(deadline, establishing) => e,
                _ = stop => return,
            };
            match established {
                Ok(Ok((tls, slot))) => {
                    connection::serve(tls, peer, shared).await;
                    drop(slot);
                }
                Ok(Err(why)) => tracing::debug!(%peer, %why, "connection not established"),
                Err(_) => tracing::debug!(%peer, "TLS handshake timed out"),
            }
        });
    }
    drop(listener);
    // Connections finish their requests in flight and close; handshakes are abandoned.
    closing_tx.send_replace(true);
    tokio::select! {
        _ = shared.slots.all_free() => tracing::info!("all connections drained"),
        _ = tokio::time::sleep(limits.drain_timeout) => tracing::warn!("drain timeout reached; closing remaining connections"),
    }
}

/// The handshake, holding a handshake slot that later arrivals may claim, then — the
/// handshake slot given back, so a flood of bare TCP connections cannot displace a
/// finished handshake — a connection slot.
async fn establish(
    tcp: TcpStream,
    acceptor: TlsAcceptor,
    handshakes: &Arc<Slots>,
    connections: &Arc<Slots>,
) -> Result<(TlsStream<TcpStream>, OwnedSemaphorePermit), String> {
    let handshake = handshakes.take().await.ok_or("no handshake slot")?;
    let offer = handshakes.offer(Arc::new(Always));
    let tls = tokio::select! {
        tls = acceptor.accept(tcp) => tls.map_err(|e| format!("TLS handshake failed: {e}"))?,
        Answer::Leave = offer.answered() => return Err("handshake slot given to a newer connection".into()),
    };
    drop(offer);
    drop(handshake);
    no_delay(&tls);
    let slot = connections
        .take()
        .await
        .ok_or("no connection slot: too many newcomers wait")?;
    Ok((tls, slot))
}

/// No Nagle delay, as Go's net package sets for kube-apiserver: h2 writes a response's
/// HEADERS and DATA frames separately, and with Nagle's algorithm the DATA waited for the
/// client's delayed ACK, about 40 ms per request (23 GETs/s at concurrency 1). Watches
/// coalesce the lines waiting for a slow connection themselves (`watch::queue`).
fn no_delay(tls: &TlsStream<TcpStream>) {
    if let Err(e) = tls.get_ref().0.set_nodelay(true) {
        tracing::debug!(error = %e, "TCP_NODELAY not set");
    }
}
