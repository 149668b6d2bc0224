//! One connection after its TLS handshake: HTTP/1.1 or h2 per ALPN, the peer's
//! certificate chain handed to every request, and the connection's end.
//!
//! A connection whose requests are all done is idle and is closed after the idle
//! timeout. It may be evicted when a new connection needs its slot only while it
//! carries no stream, or while every response it carries has waited for a peer that
//! stopped reading for [`STALL_GRACE`](crate::server::streams::STALL_GRACE) (see
//! [`crate::server::streams`] for how that is told apart from a watch waiting for
//! events): such peers must not hold every slot, and a flood of newcomers must not end
//! the watches and responses of established clients.
//! An evicted connection is closed gracefully and dropped after a short grace (100 ms),
//! whatever it is still sending.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use rustls::pki_types::CertificateDer;
use tokio::net::TcpStream;
use tokio::sync::watch;
use tokio::time::Instant;
use tokio_rustls::server::TlsStream;

use super::chain::Chain;
use crate::server::exchange;
use crate::server::slots::{Answer, Slots};
use crate::server::streams::{Standing, Streams};

const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(30);
const KEEP_ALIVE_INTERVAL: Duration = Duration::from_secs(30);

/// What every connection of the server shares.
#[derive(Clone)]
pub struct Shared {
    pub chain: Arc<Chain>,
    /// The connection slots; idle and stalled connections offer theirs.
    pub slots: Arc<Slots>,
    pub idle_timeout: Duration,
    /// SETTINGS_MAX_CONCURRENT_STREAMS of every h2 connection.
    pub h2_max_streams: u32,
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
    let streams = Streams::new();
    let chain = shared.chain.clone();
    let counted = streams.clone();
    let service = hyper::service::service_fn(move |req| {
        let chain = chain.clone();
        let certs = certs.clone();
        let request = counted.request();
        async move {
            // Boxed: hyper moves each stream's future several times while it spawns its
            // task, and the pipeline's state machine is 8 KiB (this one is 312 bytes).
            let resp = Box::pin(exchange::handle(chain, &certs, peer, req)).await;
            Ok::<_, Infallible>(request.answered(resp))
        }
    });
    let builder = builder(shared.h2_max_streams);
    let conn = builder.serve_connection_with_upgrades(TokioIo::new(tls), service);
    tokio::pin!(conn);
    let idle = until_idle(streams.clone(), shared.slots.clone(), shared.idle_timeout);
    tokio::pin!(idle);
    let mut closing = shared.closing.clone();
    let stop = async move {
        let _ = closing.wait_for(|c| *c).await;
    };
    tokio::pin!(stop);
    let forced = force_close(streams.busy());
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
fn builder(h2_max_streams: u32) -> Builder<TokioExecutor> {
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
        .max_send_buf_size(H2_SEND_BUFFER)
        .max_concurrent_streams(h2_max_streams);
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
    /// A new connection took its slot while it carried no stream, or only stalled ones.
    Evicted,
}

/// How often a connection whose streams the server works on looks again whether they
/// stalled (a watch whose peer stopped reading); a handler's answer is looked at at once.
const SERVING_RECHECK: Duration = Duration::from_secs(5);

/// Resolves once the connection has had nothing busy for `timeout`, or was asked to give
/// up its slot. It offers its slot only while idle or stalled ([`Standing`]); the pool
/// asks again before evicting, so an offer whose stream moved again is declined.
async fn until_idle(streams: Arc<Streams>, slots: Arc<Slots>, timeout: Duration) -> IdleEnd {
    let mut busy = streams.busy();
    let idle = idle_for(busy.clone(), timeout);
    tokio::pin!(idle);
    // One timer for the whole connection, moved only when a look is due earlier: a new
    // timer per look would be registered and removed several times per request.
    let recheck = tokio::time::sleep(SERVING_RECHECK);
    tokio::pin!(recheck);
    loop {
        busy.borrow_and_update();
        let now = Instant::now();
        let due = match streams.standing(now) {
            Standing::Serving => now + SERVING_RECHECK,
            Standing::Sending { stalled_at } => stalled_at,
            Standing::Idle | Standing::Stalled => {
                let offer = slots.offer(streams.clone());
                tokio::select! {
                    () = &mut idle => return IdleEnd::Idle,
                    answer = offer.answered() => if answer == Answer::Leave {
                        return IdleEnd::Evicted;
                    },
                    changed = busy.changed() => if changed.is_err() {
                        return IdleEnd::Idle;
                    },
                }
                continue;
            }
        };
        if recheck.is_elapsed() || due < recheck.deadline() {
            recheck.as_mut().reset(due);
        }
        // Requests starting and ending on a busy connection are not looked at one by one
        // (a multiplexed connection changes its count twice per request): an answer may
        // start a stall, so it is looked at; the end of the last stream is seen at the
        // next look, within the stall grace once its handler has answered.
        tokio::select! {
            () = &mut idle => return IdleEnd::Idle,
            () = streams.answered() => {}
            () = &mut recheck => {}
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

#[cfg(test)]
mod tests {
    use axum::body::Body;
    use bytes::Bytes;
    use http::Response;
    use http_body_util::BodyExt;

    use super::*;
    use crate::server::streams;

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

    /// `until_idle` watching a connection with one request whose handler runs.
    fn watched() -> (
        Arc<Streams>,
        streams::Request,
        Arc<Slots>,
        tokio::task::JoinHandle<IdleEnd>,
    ) {
        let streams = Streams::new();
        let request = streams.request();
        let slots = Slots::new(1, 1);
        let ended = tokio::spawn(until_idle(
            streams.clone(),
            slots.clone(),
            Duration::from_secs(3600),
        ));
        (streams, request, slots, ended)
    }

    /// A response body the test feeds.
    fn fed() -> (
        tokio::sync::mpsc::Sender<Result<Bytes, std::io::Error>>,
        Body,
    ) {
        let (tx, rx) = tokio::sync::mpsc::channel(1);
        let body = Body::from_stream(tokio_stream::wrappers::ReceiverStream::new(rx));
        (tx, body)
    }

    #[tokio::test(start_paused = true)]
    async fn until_idle_watch_waiting_for_events_never_evictable() {
        let (_streams, request, slots, ended) = watched();
        let (_events, body) = fed();
        let mut body = request.answered(Response::new(body)).into_body();
        assert!(futures::poll!(body.frame()).is_pending());
        tokio::time::sleep(Duration::from_secs(600)).await;
        assert!(!evict_when_offered(&slots).await, "a watch was offered");
        assert!(!ended.is_finished());
        ended.abort();
    }

    #[tokio::test(start_paused = true)]
    async fn until_idle_running_handler_not_evictable_until_done() {
        let (_streams, request, slots, ended) = watched();
        tokio::time::sleep(Duration::from_secs(600)).await;
        assert!(
            !evict_when_offered(&slots).await,
            "offered while a handler runs"
        );
        drop(request.answered(Response::new(Body::from("done"))));
        assert!(
            evict_when_offered(&slots).await,
            "no offer once the response was sent"
        );
        assert_eq!(ended.await.unwrap(), IdleEnd::Evicted);
    }

    #[tokio::test(start_paused = true)]
    async fn until_idle_response_peer_stopped_reading_evictable_after_grace() {
        // The h2 zero-window peer: the body's first frame was taken, never the next.
        let (_streams, request, slots, ended) = watched();
        let (events, body) = fed();
        let mut body = request.answered(Response::new(body)).into_body();
        events.send(Ok(Bytes::from_static(b"line"))).await.unwrap();
        assert!(body.frame().await.is_some());
        tokio::time::sleep(streams::STALL_GRACE / 2).await;
        assert!(
            !evict_when_offered(&slots).await,
            "offered before the grace"
        );
        tokio::time::sleep(streams::STALL_GRACE).await;
        assert!(evict_when_offered(&slots).await, "not offered once stalled");
        assert_eq!(ended.await.unwrap(), IdleEnd::Evicted);
    }

    #[tokio::test(start_paused = true)]
    async fn until_idle_stalled_stream_moves_again_not_evicted() {
        let (_streams, request, slots, ended) = watched();
        let (events, body) = fed();
        let mut body = request.answered(Response::new(body)).into_body();
        events.send(Ok(Bytes::from_static(b"line"))).await.unwrap();
        assert!(body.frame().await.is_some());
        tokio::time::sleep(streams::STALL_GRACE * 2).await;
        // The peer reads again: hyper asks for more, and the watch waits for events.
        assert!(futures::poll!(body.frame()).is_pending());
        assert!(
            !slots.evict_oldest(),
            "a stream that moved again was evicted"
        );
        tokio::time::sleep(Duration::from_secs(600)).await;
        assert!(!evict_when_offered(&slots).await);
        assert!(!ended.is_finished());
        ended.abort();
    }

    #[tokio::test(start_paused = true)]
    async fn until_idle_nothing_busy_ends_after_timeout() {
        let ended = until_idle(Streams::new(), Slots::new(1, 1), Duration::from_secs(90));
        assert_eq!(ended.await, IdleEnd::Idle);
    }
}
