//! What one connection's streams are doing, for the decision to evict it: requests are
//! *busy* from their head to the last byte of their response; the server is *working*
//! on a stream while its handler runs and while its response body waits for the
//! server's next bytes (a watch between events, a LIST being encoded); and every stream
//! that moves (a head, an answer, a body asked for more) notes the time.
//!
//! A connection may give up its slot to a newcomer only when it carries no stream, or
//! when the server works on none of its streams and none has moved for [`STALL_GRACE`]:
//! every response waits for a peer that stopped reading (an h2 peer that gives no
//! window, a socket that stays full). A watch, or a response the peer is still reading,
//! is never evicted. hyper polls a response body only when it can take more (h2 polls
//! before reserving window; HTTP/1.1 once its write buffer has room), so a body that is
//! not polled again is one the peer is not reading.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use bytes::Bytes;
use http::Response;
use hyper::body::{Body as HttpBody, Frame, SizeHint};
use tokio::sync::{Notify, watch};
use tokio::time::Instant;

use crate::server::slots::Evictable;

/// How long every stream of a connection must have waited for its peer to read before
/// the connection may be evicted. Short, so that a flood of peers that never read cannot
/// keep a probe waiting for longer; the oldest offer goes first, so a client that paused
/// for a moment is evicted only after every connection that stalled before it.
pub const STALL_GRACE: Duration = Duration::from_secs(1);

/// Where a connection stands, for eviction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Standing {
    /// No stream: evictable.
    Idle,
    /// A handler runs, or a response body waits for the server's next bytes.
    Serving,
    /// Every stream waits for its peer; evictable from `stalled_at` unless one moves.
    Sending { stalled_at: Instant },
    /// Every stream has waited for its peer for the grace: evictable.
    Stalled,
}

impl Standing {
    /// Where a connection with `busy` requests, `working` of them on the server's side,
    /// whose streams last moved at `moved`, stands at `now`.
    pub fn of(busy: usize, working: usize, moved: Instant, now: Instant) -> Standing {
        if busy == 0 {
            return Standing::Idle;
        }
        if working > 0 {
            return Standing::Serving;
        }
        let stalled_at = moved + STALL_GRACE;
        match now >= stalled_at {
            true => Standing::Stalled,
            false => Standing::Sending { stalled_at },
        }
    }

    pub fn evictable(self) -> bool {
        matches!(self, Standing::Idle | Standing::Stalled)
    }
}

/// The counters of one connection's streams.
pub struct Streams {
    busy: watch::Sender<usize>,
    working: AtomicUsize,
    /// Told when a handler answers (a stream may now wait for its peer).
    answered: Notify,
    /// When a stream last moved, in milliseconds since `epoch`.
    moved_ms: AtomicU64,
    epoch: Instant,
}

impl Streams {
    pub fn new() -> Arc<Streams> {
        Arc::new(Streams {
            busy: watch::channel(0).0,
            working: AtomicUsize::new(0),
            answered: Notify::new(),
            moved_ms: AtomicU64::new(0),
            epoch: Instant::now(),
        })
    }

    /// The busy count, changing as requests start and their responses are sent.
    pub fn busy(&self) -> watch::Receiver<usize> {
        self.busy.subscribe()
    }

    /// Resolves when a handler has answered since the last call.
    pub async fn answered(&self) {
        self.answered.notified().await;
    }

    pub fn standing(&self, now: Instant) -> Standing {
        // Moves are noted before the working count falls, and requests count as
        // working before they count as busy: no reading sees a stale stall.
        let busy = *self.busy.borrow();
        let working = self.working.load(Ordering::SeqCst);
        let moved = self.epoch + Duration::from_millis(self.moved_ms.load(Ordering::SeqCst));
        Standing::of(busy, working, moved, now)
    }

    /// Counts a request that has just arrived: busy, and worked on until answered.
    pub fn request(self: &Arc<Self>) -> Request {
        self.moved();
        self.working.fetch_add(1, Ordering::SeqCst);
        self.busy.send_modify(|n| *n += 1);
        Request {
            streams: self.clone(),
            handling: true,
        }
    }

    fn moved(&self) {
        let ms = Instant::now()
            .saturating_duration_since(self.epoch)
            .as_millis();
        self.moved_ms
            .store(u64::try_from(ms).unwrap_or(u64::MAX), Ordering::SeqCst);
    }

    fn work_done(&self) {
        self.working.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Evictable for Streams {
    fn evictable(&self) -> bool {
        self.standing(Instant::now()).evictable()
    }
}

/// One request of a connection: busy until its response has been sent (or its stream
/// reset), worked on while its handler runs.
pub struct Request {
    streams: Arc<Streams>,
    handling: bool,
}

impl Request {
    /// The handler's response, its body keeping the request counted until hyper drops it.
    pub fn answered(mut self, resp: Response<Body>) -> Response<Body> {
        self.streams.moved();
        self.streams.work_done();
        self.handling = false;
        self.streams.answered.notify_one();
        resp.map(|inner| {
            Body::new(Sent {
                inner,
                request: self,
                awaiting_server: false,
            })
        })
    }
}

impl Drop for Request {
    fn drop(&mut self) {
        if self.handling {
            self.streams.work_done();
        }
        self.streams.busy.send_modify(|n| *n = n.saturating_sub(1));
    }
}

/// A response body on its way: worked on while it waits for the server's next bytes.
struct Sent {
    inner: Body,
    request: Request,
    awaiting_server: bool,
}

impl HttpBody for Sent {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let this = &mut *self;
        let polled = Pin::new(&mut this.inner).poll_frame(cx);
        let streams = &this.request.streams;
        streams.moved();
        let pending = polled.is_pending();
        if pending != this.awaiting_server {
            this.awaiting_server = pending;
            match pending {
                true => streams.working.fetch_add(1, Ordering::SeqCst),
                false => streams.working.fetch_sub(1, Ordering::SeqCst),
            };
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

impl Drop for Sent {
    fn drop(&mut self) {
        if self.awaiting_server {
            self.request.streams.work_done();
        }
    }
}

#[cfg(test)]
mod tests {
    use http_body_util::BodyExt;

    use super::*;

    #[test]
    fn standing_of_counts_and_grace() {
        let moved = Instant::now();
        let later = |secs| moved + Duration::from_secs(secs);
        #[rustfmt::skip]
        let cases = [
            ("no stream", 0, 0, later(0), Standing::Idle),
            ("no stream long after", 0, 0, later(3600), Standing::Idle),
            ("handler or body awaiting the server", 1, 1, later(3600), Standing::Serving),
            ("one of two streams worked on", 2, 1, later(3600), Standing::Serving),
            ("peer read just now", 1, 0, later(0), Standing::Sending { stalled_at: later(1) }),
            ("peer read nothing for the grace", 1, 0, later(1), Standing::Stalled),
            ("two streams unread", 2, 0, later(60), Standing::Stalled),
        ];
        for (name, busy, working, now, want) in cases {
            assert_eq!(Standing::of(busy, working, moved, now), want, "{name}");
        }
    }

    #[tokio::test(start_paused = true)]
    async fn request_watch_between_events_serving_unread_body_stalls() {
        let streams = Streams::new();
        let request = streams.request();
        assert_eq!(streams.standing(Instant::now()), Standing::Serving);
        let (tx, rx) = tokio::sync::mpsc::channel::<Result<Bytes, std::io::Error>>(1);
        let body = Body::from_stream(tokio_stream::wrappers::ReceiverStream::new(rx));
        let mut body = request.answered(Response::new(body)).into_body();
        // Polled with nothing to send: the server's side, however long it waits.
        let frame = futures::poll!(body.frame());
        assert!(frame.is_pending());
        tokio::time::advance(Duration::from_secs(3600)).await;
        assert_eq!(streams.standing(Instant::now()), Standing::Serving);
        // An event handed to hyper and never asked for more: the peer's side.
        tx.send(Ok(Bytes::from_static(b"event"))).await.unwrap();
        assert!(body.frame().await.is_some());
        assert!(matches!(
            streams.standing(Instant::now()),
            Standing::Sending { .. }
        ));
        tokio::time::advance(STALL_GRACE).await;
        assert_eq!(streams.standing(Instant::now()), Standing::Stalled);
        // hyper asks for more: the watch waits for its next event again.
        assert!(futures::poll!(body.frame()).is_pending());
        assert_eq!(streams.standing(Instant::now()), Standing::Serving);
        drop(body);
        assert_eq!(streams.standing(Instant::now()), Standing::Idle);
    }

    #[tokio::test]
    async fn request_dropped_before_answer_counts_nothing() {
        let streams = Streams::new();
        drop(streams.request());
        assert_eq!(streams.standing(Instant::now()), Standing::Idle);
        assert_eq!(streams.working.load(Ordering::SeqCst), 0);
    }
}
