//! A watcher's outgoing queue: the lines one watch has made and its connection has not
//! taken yet, bounded by bytes and by count, and the response body that takes them.
//!
//! Lines are mostly the cache's own bytes (an event's memoised line, an object's served
//! bytes framed by a few bytes of this watcher's own), so queueing one copies nothing;
//! the budget still counts every byte, since queued bytes keep the values they belong to
//! alive after the cache has moved on. A watcher whose queue is full waits for its
//! connection; one whose connection takes nothing for [`STALL`] while it waits is ended
//! as kube's cacher ends a watcher that cannot keep up: its queued lines are dropped, the
//! stream closes after the line in progress (the client watches again from the last
//! resourceVersion it saw) and the caller counts it in `apiserver_terminated_watchers_total`.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use futures::Stream;
use futures::task::AtomicWaker;
use tokio::sync::Notify;
use tokio::time::Instant;

/// The bytes one watcher may hold queued. Two lines of the largest object the default
/// `--max-object-size` (1.5 MiB) admits, and the small lines between them, fit: a client
/// reading a list of large objects always has the next one waiting while it reads one.
/// A line larger than the budget (a larger `--max-object-size`) is queued alone. A
/// watcher that stops reading holds at most this (mostly references to bytes the cache
/// holds anyway; all its own only for Table and metadata-only watches) for [`STALL`],
/// then is ended.
pub const BUDGET: usize = 4 * 1024 * 1024;
/// The lines one watcher may hold queued, however small (bookmarks).
pub const MAX_LINES: usize = 256;
/// How long a full queue waits for the connection to take anything before the watcher is
/// ended: a client that reads keeps taking lines within milliseconds; ten seconds
/// without taking a single one (at most one line, ≤ 1.5 MiB by default, at ~150 KiB/s)
/// is a client that stopped reading.
pub const STALL: Duration = Duration::from_secs(10);
/// Small pieces waiting together go out joined, up to this size (one TLS record): one
/// frame and one write for a burst of small events; larger pieces go out as they are,
/// never copied.
const JOIN: usize = 16 * 1024;

/// One line of the stream: whole, or the pieces it is written from, in order (an event
/// framing an object's shared bytes: the frame's head, the object before and after its
/// resourceVersion, the resourceVersion, the frame's tail). Boxed, so that a queue slot
/// is the size of one `Bytes`.
#[derive(Clone, Debug)]
pub enum Line {
    Whole(Bytes),
    Parts(Box<[Bytes; 5]>),
}

impl Line {
    pub fn len(&self) -> usize {
        match self {
            Line::Whole(bytes) => bytes.len(),
            Line::Parts(parts) => parts.iter().map(Bytes::len).sum(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The line's non-empty pieces, in order.
    fn pieces(self) -> impl Iterator<Item = Bytes> {
        let (whole, parts) = match self {
            Line::Whole(bytes) => (Some(bytes), None),
            Line::Parts(parts) => (None, Some(*parts)),
        };
        whole
            .into_iter()
            .chain(parts.into_iter().flatten())
            .filter(|p| !p.is_empty())
    }
}

/// Where the queue stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum End {
    Open,
    /// The watch ended: the body sends what is queued, then ends.
    Finished,
    /// The watcher was too slow: what was queued is dropped, the body ends.
    Cut,
    /// The body was dropped (the client went away).
    Gone,
}

struct Queue {
    lines: VecDeque<Line>,
    /// Bytes queued, in `lines` and taken by the body but not yet given to the connection.
    bytes: usize,
    end: End,
}

impl Queue {
    fn has_room(&self, len: usize) -> bool {
        self.bytes == 0 || (self.lines.len() < MAX_LINES && self.bytes + len <= BUDGET)
    }

    fn drop_lines(&mut self) {
        let dropped: usize = self.lines.drain(..).map(|l| l.len()).sum();
        self.bytes = self.bytes.saturating_sub(dropped);
    }
}

struct Shared {
    queue: Mutex<Queue>,
    /// Wakes the sender: room was made, or the body is gone.
    room: Notify,
    /// Wakes the body: a line was queued, or the queue ended.
    ready: AtomicWaker,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Marks the end unless an earlier one stands; wakes both sides.
    fn end(&self, end: End) {
        let mut queue = self.lock();
        if queue.end == End::Open {
            queue.end = end;
        }
        if end != End::Finished {
            queue.drop_lines();
        }
        drop(queue);
        self.ready.wake();
        self.room.notify_one();
    }
}

/// The watch's side of the queue.
pub struct Sender {
    shared: Arc<Shared>,
}

/// The response body: the queued lines as the connection takes them.
pub struct Body {
    shared: Arc<Shared>,
    /// Pieces of lines taken from the queue, not yet given to the connection.
    out: VecDeque<Bytes>,
}

/// A queue and its body.
pub fn channel() -> (Sender, Body) {
    let shared = Arc::new(Shared {
        queue: Mutex::new(Queue {
            lines: VecDeque::new(),
            bytes: 0,
            end: End::Open,
        }),
        room: Notify::new(),
        ready: AtomicWaker::new(),
    });
    let body = Body {
        shared: shared.clone(),
        out: VecDeque::new(),
    };
    (Sender { shared }, body)
}

/// What became of a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sent {
    Queued,
    /// The client went away.
    Gone,
    /// The connection took nothing for [`STALL`] while the queue was full: the watcher
    /// is ended (its queue dropped, its stream closing).
    Stalled,
}

impl Sender {
    /// Queues `line` once there is room, waiting for the connection to take what is
    /// queued; ends the watcher when the connection takes nothing for [`STALL`].
    pub async fn send(&self, line: Line) -> Sent {
        let len = line.len();
        let mut line = Some(line);
        let mut deadline = Instant::now() + STALL;
        loop {
            // Made before the look: room made in between is not missed.
            let room = self.shared.room.notified();
            {
                let mut queue = self.shared.lock();
                match queue.end {
                    End::Gone => return Sent::Gone,
                    End::Cut | End::Finished => return Sent::Stalled,
                    End::Open => {}
                }
                if queue.has_room(len)
                    && let Some(line) = line.take()
                {
                    queue.bytes += len;
                    queue.lines.push_back(line);
                    drop(queue);
                    self.shared.ready.wake();
                    return Sent::Queued;
                }
            }
            tokio::select! {
                () = room => deadline = Instant::now() + STALL,
                () = tokio::time::sleep_until(deadline) => {
                    self.shared.end(End::Cut);
                    return Sent::Stalled;
                }
            }
        }
    }

    /// Resolves when the body is gone (the client went away).
    pub async fn closed(&self) {
        loop {
            let room = self.shared.room.notified();
            if self.shared.lock().end == End::Gone {
                return;
            }
            room.await;
        }
    }
}

impl Drop for Sender {
    fn drop(&mut self) {
        self.shared.end(End::Finished);
    }
}

/// Takes waiting lines into `out`: small pieces joined up to [`JOIN`], larger ones as they
/// are; more lines only while they join the last piece (a burst of small events goes out
/// as one piece, a large line alone).
fn refill(out: &mut VecDeque<Bytes>, queue: &mut Queue) {
    let mut joined = BytesMut::new();
    while let Some(next) = queue.lines.front() {
        if !(out.is_empty() || joined.len() + next.len() <= JOIN) {
            break;
        }
        let Some(line) = queue.lines.pop_front() else {
            break;
        };
        for piece in line.pieces() {
            let flush = piece.len() >= JOIN || joined.len() + piece.len() > JOIN;
            if flush && !joined.is_empty() {
                out.push_back(joined.split().freeze());
            }
            if piece.len() >= JOIN {
                out.push_back(piece);
            } else {
                joined.extend_from_slice(&piece);
            }
        }
    }
    if !joined.is_empty() {
        out.push_back(joined.freeze());
    }
}

impl Stream for Body {
    type Item = Result<Bytes, std::io::Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let Body { shared, out } = &mut *self;
        let mut queue = shared.lock();
        while out.is_empty() {
            if queue.lines.is_empty() {
                if queue.end != End::Open {
                    return Poll::Ready(None);
                }
                // Registered under the lock: a line queued after it wakes this task.
                shared.ready.register(cx.waker());
                return Poll::Pending;
            }
            refill(out, &mut queue);
        }
        let Some(piece) = out.pop_front() else {
            return Poll::Pending;
        };
        queue.bytes = queue.bytes.saturating_sub(piece.len());
        drop(queue);
        shared.room.notify_one();
        Poll::Ready(Some(Ok(piece)))
    }
}

impl Drop for Body {
    fn drop(&mut self) {
        self.shared.end(End::Gone);
    }
}

#[cfg(test)]
mod tests {
    use futures::StreamExt;

    use super::*;

    fn whole(s: &str) -> Line {
        Line::Whole(Bytes::copy_from_slice(s.as_bytes()))
    }

    fn sized(len: usize, fill: u8) -> Bytes {
        Bytes::from(vec![fill; len])
    }

    /// The pieces the body gives for `lines` queued at once, as their lengths.
    async fn pieces_of(lines: Vec<Line>) -> Vec<usize> {
        let (tx, mut body) = channel();
        for line in lines {
            assert_eq!(tx.send(line).await, Sent::Queued);
        }
        drop(tx);
        let mut out = Vec::new();
        while let Some(piece) = body.next().await {
            out.push(piece.unwrap().len());
        }
        out
    }

    #[tokio::test]
    async fn refill_small_joined_large_alone_bytes_in_order() {
        let big = JOIN + 10;
        let head: &[u8] = b"{\"type\":\"ADDED\",\"object\":";
        let rv: &[u8] = b",\"resourceVersion\":\"7\"";
        let framed = Line::Parts(Box::new([
            Bytes::from_static(head),
            sized(big, b'a'),
            Bytes::from_static(rv),
            sized(big, b'b'),
            Bytes::from_static(b"}\n"),
        ]));
        let cases: Vec<(&str, Vec<Line>, Vec<usize>)> = vec![
            ("one small line", vec![whole("a\n")], vec![2]),
            (
                "small lines joined",
                vec![whole("a\n"), whole("bb\n"), whole("c\n")],
                vec![7],
            ),
            (
                "framed object: shared parts alone, frame bytes joined with neighbours",
                vec![whole("x\n"), framed.clone(), whole("y\n")],
                vec![2 + head.len(), big, rv.len(), big, 2 + 2],
            ),
            (
                "joined up to JOIN",
                vec![Line::Whole(sized(JOIN - 1, b'c')), whole("dd\n")],
                vec![JOIN - 1, 3],
            ),
            (
                "empty parts skipped",
                vec![Line::Whole(Bytes::new())],
                vec![],
            ),
        ];
        for (name, lines, want) in cases {
            let total: usize = lines.iter().map(Line::len).sum();
            let got = pieces_of(lines).await;
            assert_eq!(got, want, "{name}");
            assert_eq!(got.iter().sum::<usize>(), total, "{name}: bytes kept");
        }
    }

    #[tokio::test]
    async fn body_bytes_equal_lines_in_order() {
        let (tx, body) = channel();
        let lines = [
            whole("{\"a\":1}\n"),
            Line::Parts(Box::new([
                Bytes::from_static(b"{\"o\":"),
                sized(JOIN * 2, b'z'),
                Bytes::new(),
                Bytes::from_static(b"9"),
                Bytes::from_static(b"}\n"),
            ])),
            whole("{\"b\":2}\n"),
        ];
        let mut want = Vec::new();
        for line in lines.clone() {
            for piece in line.pieces() {
                want.extend_from_slice(&piece);
            }
        }
        let reader = tokio::spawn(async move { body.map(|p| p.unwrap().to_vec()).concat().await });
        for line in lines {
            assert_eq!(tx.send(line).await, Sent::Queued);
        }
        drop(tx);
        assert_eq!(reader.await.unwrap(), want);
    }

    #[tokio::test(start_paused = true)]
    async fn send_full_queue_waits_for_room_then_stalls_and_cuts() {
        let (tx, mut body) = channel();
        let half = BUDGET / 2;
        for fill in [b'a', b'b'] {
            assert_eq!(tx.send(Line::Whole(sized(half, fill))).await, Sent::Queued);
        }
        // Full: the next line waits until the body takes one.
        let send = tx.send(Line::Whole(sized(half, b'c')));
        tokio::pin!(send);
        assert!(
            tokio::time::timeout(STALL / 2, &mut send).await.is_err(),
            "queued past the budget"
        );
        let first = body.next().await.unwrap().unwrap();
        assert_eq!(first[0], b'a');
        assert_eq!(send.await, Sent::Queued);
        // Full again, and nothing taken for STALL: the watcher is cut.
        let started = Instant::now();
        assert_eq!(tx.send(Line::Whole(sized(half, b'd'))).await, Sent::Stalled);
        assert_eq!(started.elapsed(), STALL);
        assert_eq!(shared_bytes(&tx), 0, "the queued lines were dropped");
        assert!(body.next().await.is_none(), "the stream ends");
    }

    fn shared_bytes(tx: &Sender) -> usize {
        tx.shared.lock().bytes
    }

    #[tokio::test(start_paused = true)]
    async fn send_line_larger_than_budget_queued_alone() {
        let (tx, mut body) = channel();
        assert_eq!(tx.send(whole("a\n")).await, Sent::Queued);
        let huge = tx.send(Line::Whole(sized(BUDGET + 1, b'h')));
        tokio::pin!(huge);
        assert!(tokio::time::timeout(STALL / 2, &mut huge).await.is_err());
        assert_eq!(&body.next().await.unwrap().unwrap()[..], b"a\n");
        assert_eq!(huge.await, Sent::Queued);
        assert_eq!(body.next().await.unwrap().unwrap().len(), BUDGET + 1);
    }

    #[tokio::test(start_paused = true)]
    async fn send_count_bound_small_lines() {
        let (tx, _body) = channel();
        for _ in 0..MAX_LINES {
            assert_eq!(tx.send(whole("b\n")).await, Sent::Queued);
        }
        assert_eq!(tx.send(whole("b\n")).await, Sent::Stalled);
    }

    #[tokio::test]
    async fn body_dropped_sender_gone_and_closed() {
        let (tx, body) = channel();
        assert_eq!(tx.send(whole("a\n")).await, Sent::Queued);
        let closed = tokio::spawn(async move {
            tx.closed().await;
            tx.send(whole("b\n")).await
        });
        drop(body);
        assert_eq!(closed.await.unwrap(), Sent::Gone);
    }

    #[tokio::test]
    async fn sender_dropped_body_drains_then_ends() {
        let (tx, body) = channel();
        for l in ["1\n", "2\n"] {
            assert_eq!(tx.send(whole(l)).await, Sent::Queued);
        }
        drop(tx);
        let all: Vec<u8> = body.map(|p| p.unwrap().to_vec()).concat().await;
        assert_eq!(all, b"1\n2\n");
    }
}
