//! One connection after its TLS handshake: HTTP/1.1 or h2 per ALPN, the peer's
//! certificate chain handed to every request, and the connection's end.
//!
//! Requests are counted twice: *busy* from their head to the last byte of their response,
//! *active* from their head until their handler has answered. A connection with nothing
//! busy is idle and is closed after the idle timeout. A connection with nothing active
//! may be evicted when a new connection needs its slot: a response that only waits to
//! be sent (a peer that stopped reading, an h2 peer with a zero window, a watch) must not
//! pin a slot, or such peers could hold every slot. An evicted connection is closed
//! gracefully and dropped after a short grace (100 ms), whatever it is still sending.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use http::Response;
use http_body_util::BodyExt;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use rustls::pki_types::CertificateDer;
use tokio::net::TcpStream;
use tokio::sync::watch;
use tokio::time::Instant;
use tokio_rustls::server::TlsStream;

use crate::handlers::AppState;
use crate::server::exchange;
use crate::server::slots::Slots;

const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(30);
const KEEP_ALIVE_INTERVAL: Duration = Duration::from_secs(30);

/// What every connection of the server shares.
#[derive(Clone)]
pub struct Shared {
    pub state: Arc<AppState>,
    /// The connection slots; idle connections offer theirs.
    pub slots: Arc<Slots>,
    pub idle_timeout: Duration,
    /// Turns true when the server stops: connections finish their requests and close.
    pub closing: watch::Receiver<bool>,
}

/// Serves the connection until the peer closes it, it has been idle too long or was
/// evicted, or the server stops (then in-flight requests finish first).
pub async fn serve(tls: TlsStream<TcpStream>, peer: SocketAddr, shared: Shared) {
    let certs: Arc<Vec<CertificateDer<'static>>> = Arc::new(
        tls.get_ref()
            .1
            .peer_certificates()
            .map(<[_]>::to_vec)
            .unwrap_or_default(),
    );
    let (busy, busy_rx) = watch::channel(0usize);
    let busy = Arc::new(busy);
    let (active, active_rx) = watch::channel(0usize);
    let active = Arc::new(active);
    let state = shared.state.clone();
    let service = hyper::service::service_fn(move |req| {
        let state = state.clone();
        let certs = certs.clone();
        let in_flight = InFlight::enter(&busy);
        let handling = InFlight::enter(&active);
        async move {
            // Boxed: hyper moves each stream's future several times while it spawns its
            // task, and the pipeline's state machine is 8 KiB (this one is 312 bytes).
            let resp = Box::pin(exchange::handle(state, &certs, req)).await;
            drop(handling);
            Ok::<_, Infallible>(in_flight.hold_until_sent(resp))
        }
    });
    let builder = builder();
    let conn = builder.serve_connection_with_upgrades(TokioIo::new(tls), service);
    tokio::pin!(conn);
    let idle = until_idle(
        busy_rx.clone(),
        active_rx,
        shared.slots.clone(),
        shared.idle_timeout,
    );
    tokio::pin!(idle);
    let mut closing = shared.closing.clone();
    let stop = async move {
        let _ = closing.wait_for(|c| *c).await;
    };
    tokio::pin!(stop);
    let forced = force_close(busy_rx.clone());
    tokio::pin!(forced);
    let evicted_grace = tokio::time::sleep(Duration::MAX);
    tokio::pin!(evicted_grace);
    let mut closing_down = false;
    loop {
        tokio::select! {
            ended = conn.as_mut() => {
                if let Err(e) = ended {
                    tracing::debug!(%peer, error = %e, "connection ended with an error");
                }
                return;
            }
            // HTTP/1.1 closes after the response in flight; h2 sends GOAWAY and lets
            // its open streams finish.
            end = &mut idle, if !closing_down => {
                closing_down = true;
                conn.as_mut().graceful_shutdown();
                if end == IdleEnd::Evicted {
                    evicted_grace
                        .as_mut()
                        .reset(Instant::now() + EVICTED_CLOSE_GRACE);
                }
            }
            _ = &mut stop, if !closing_down => {
                closing_down = true;
                conn.as_mut().graceful_shutdown();
            }
            // A peer that does not take part in h2's close (no PING answer) would keep
            // its slot; once nothing is in flight, the connection is dropped.
            _ = &mut forced, if closing_down => return,
            // Evicted: what is still being sent goes with the connection.
            _ = &mut evicted_grace => return,
        }
    }
}

/// h2 data queued per stream before its body is polled again (hyper's default is 400 KiB):
/// a 10,000-object LIST left about 0.8 MiB more resident after it with the default.
const H2_SEND_BUFFER: usize = 64 * 1024;

/// HTTP/1.1 and h2 with the timeouts that keep slow clients from holding a connection:
/// the request head must arrive within 30 s, and an h2 peer must answer pings.
fn builder() -> Builder<TokioExecutor> {
    let mut builder = Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_READ_TIMEOUT);
    builder
        .http2()
        .timer(TokioTimer::new())
        .keep_alive_interval(Some(KEEP_ALIVE_INTERVAL))
        .keep_alive_timeout(HEADER_READ_TIMEOUT)
        .max_send_buf_size(H2_SEND_BUFFER);
    builder
}

/// How long an idle connection has to close gracefully before it is dropped.
const IDLE_CLOSE_GRACE: Duration = Duration::from_secs(1);
/// How long an evicted connection has to close: a newcomer waits for its slot, and what
/// it still sends only waits for a peer that is not reading.
const EVICTED_CLOSE_GRACE: Duration = Duration::from_millis(100);

/// Resolves when the grace has passed and no request is in flight.
async fn force_close(mut busy: watch::Receiver<usize>) {
    tokio::time::sleep(IDLE_CLOSE_GRACE).await;
    let _ = busy.wait_for(|n| *n == 0).await;
}

/// Why a connection stops taking requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum IdleEnd {
    /// Nothing was busy for the idle timeout.
    Idle,
    /// A new connection took its slot while no handler was running.
    Evicted,
}

/// Resolves once the connection has had nothing busy for `timeout`, or was asked to give
/// up its slot while no handler was running (it offers its slot only then).
async fn until_idle(
    busy: watch::Receiver<usize>,
    mut active: watch::Receiver<usize>,
    slots: Arc<Slots>,
    timeout: Duration,
) -> IdleEnd {
    let idle = idle_for(busy, timeout);
    tokio::pin!(idle);
    loop {
        tokio::select! {
            () = &mut idle => return IdleEnd::Idle,
            waited = active.wait_for(|n| *n == 0) => {
                if waited.is_err() {
                    return IdleEnd::Idle;
                }
            }
        }
        let offer = slots.offer();
        tokio::select! {
            () = &mut idle => return IdleEnd::Idle,
            _ = offer.evicted() => return IdleEnd::Evicted,
            again = active.wait_for(|n| *n > 0) => {
                if again.is_err() {
                    return IdleEnd::Idle;
                }
            }
        }
    }
}

/// Resolves once nothing has been busy for `timeout` (never, if the counter is gone).
async fn idle_for(mut busy: watch::Receiver<usize>, timeout: Duration) {
    loop {
        if busy.wait_for(|n| *n == 0).await.is_err() {
            break;
        }
        let gone = tokio::select! {
            again = busy.wait_for(|n| *n > 0) => again.is_err(),
            _ = tokio::time::sleep(timeout) => return,
        };
        if gone {
            break;
        }
    }
    std::future::pending().await
}

/// One request of the connection, counted until its response has been sent.
struct InFlight(Arc<watch::Sender<usize>>);

impl InFlight {
    fn enter(busy: &Arc<watch::Sender<usize>>) -> InFlight {
        busy.send_modify(|n| *n += 1);
        InFlight(busy.clone())
    }

    /// The response, its body keeping the request counted until hyper drops it (sent,
    /// or the stream reset).
    fn hold_until_sent(self, resp: Response<Body>) -> Response<Body> {
        resp.map(|body| {
            Body::new(body.map_frame(move |frame| {
                let _counted = &self;
                frame
            }))
        })
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.send_modify(|n| *n = n.saturating_sub(1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Yields until `slots` has an offer to evict (true), or gives up after many polls.
    async fn evict_when_offered(slots: &Slots) -> bool {
        for _ in 0..1000 {
            if slots.evict_oldest() {
                return true;
            }
            tokio::task::yield_now().await;
        }
        false
    }

    /// `until_idle` watching a busy connection with `active` handlers running.
    struct Watched {
        _busy: watch::Sender<usize>,
        active: watch::Sender<usize>,
        slots: Arc<Slots>,
        ended: tokio::task::JoinHandle<IdleEnd>,
    }

    fn watched(active: usize) -> Watched {
        let (busy, busy_rx) = watch::channel(1usize);
        let (active, active_rx) = watch::channel(active);
        let slots = Slots::new(1);
        let ended = tokio::spawn(until_idle(
            busy_rx,
            active_rx,
            slots.clone(),
            Duration::from_secs(3600),
        ));
        Watched {
            _busy: busy,
            active,
            slots,
            ended,
        }
    }

    #[tokio::test]
    async fn until_idle_response_waiting_to_be_sent_evictable() {
        // A response the peer does not read (h2 zero window): busy, but no handler runs.
        let w = watched(0);
        assert!(
            evict_when_offered(&w.slots).await,
            "no offer while only sending"
        );
        assert_eq!(w.ended.await.unwrap(), IdleEnd::Evicted);
    }

    #[tokio::test]
    async fn until_idle_running_handler_not_evictable_until_done() {
        let Watched {
            _busy,
            active,
            slots,
            ended,
        } = watched(1);
        assert!(
            !evict_when_offered(&slots).await,
            "offered while a handler runs"
        );
        active.send_replace(0);
        assert!(
            evict_when_offered(&slots).await,
            "no offer once the handler answered"
        );
        assert_eq!(ended.await.unwrap(), IdleEnd::Evicted);
    }

    #[tokio::test(start_paused = true)]
    async fn until_idle_nothing_busy_ends_after_timeout() {
        let (_busy, busy_rx) = watch::channel(0usize);
        let (_active, active_rx) = watch::channel(0usize);
        let ended = until_idle(busy_rx, active_rx, Slots::new(1), Duration::from_secs(90));
        assert_eq!(ended.await, IdleEnd::Idle);
    }
}
