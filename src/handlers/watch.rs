//! watch: initial events, then storage events through the selectors as a newline-delimited
//! JSON stream (or one-row Tables), bookmarks, timeouts, and a clean end on shutdown.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures::StreamExt;
use serde_json::Value;
use tokio::sync::mpsc;

use crate::error::ApiError;
use crate::handlers::collection::{conversion, list_options, parse_revision, read_page, selects};
use crate::handlers::context::Target;
use crate::handlers::reply::Reply;
use crate::handlers::{AppState, Call, served};
use crate::request::negotiate::{
    ACCEPTED_STREAMS, Representation, Target as NegotiationTarget, negotiate,
};
use crate::request::options::{ListOptions, ResourceVersionMatch};
use crate::storage::{Event, KeyValue, Revision, StorageError};
use crate::table::{Conversion, MetaVersion, TableOptions};
use crate::watch::{EventType, bookmark, classify, encode};
use prometheus_client::metrics::counter::Counter;

/// kube's default watch length is a random 30–60 minutes (min-request-timeout 1800s).
const DEFAULT_TIMEOUT_SECS: u64 = 1800;

/// How one watch renders its events.
struct Watcher {
    state: Arc<AppState>,
    ctx: Target,
    options: ListOptions,
    /// The `meta.k8s.io` form each event's object is sent in, if any.
    conversion: Option<(Conversion, MetaVersion)>,
    tx: mpsc::Sender<Piece>,
    /// Table watches carry column definitions only in their first event, as kube's do.
    headers_sent: std::sync::atomic::AtomicBool,
    /// Events sent, and events serialized (once per event for all plain watchers).
    sent: Counter,
    encodings: Counter,
    /// The memo keys of this watch's ADDED, MODIFIED and DELETED lines.
    line_keys: [Arc<str>; 3],
}

pub async fn serve(state: &Arc<AppState>, call: &Call, ctx: &Target) -> Result<Reply, ApiError> {
    let representation = negotiate(call.header("accept"), NegotiationTarget::Object)?;
    let options = list_options(call, ctx)?;
    let converted = match representation {
        Representation::Meta(target) => Some((conversion(call, target)?, target.version)),
        _ => None,
    };
    // Only JSON streams here.
    if representation.encoding() != Representation::Json {
        return Err(ApiError::NotAcceptable(ACCEPTED_STREAMS.into()));
    }
    let rv = options.resource_version.clone();
    let send_initial = options
        .send_initial_events
        .unwrap_or(rv.is_empty() || rv == "0");
    let (initial, after) = if send_initial {
        // The initial list reads the whole collection: it counts against the read-only
        // budget (the watch itself does not), so many watches at once are pushed back.
        let _slot = crate::server::inflight::admit_initial_list(state, &call.info, &call.user)?;
        let page = read_page(
            state,
            ctx,
            &ListOptions {
                limit: 0,
                continue_token: String::new(),
                resource_version: String::new(),
                resource_version_match: ResourceVersionMatch::Unset,
                ..options.clone()
            },
        )
        .await?;
        (page.items, page.revision)
    } else if rv.is_empty() {
        // No initial state and no revision: start from now.
        (Vec::new(), 0)
    } else {
        (Vec::new(), parse_revision(&rv)?)
    };
    let timeout = options
        .timeout
        .unwrap_or(Duration::from_secs(DEFAULT_TIMEOUT_SECS));
    let (tx, rx) = mpsc::channel(256);
    let initial_end_bookmark =
        options.send_initial_events == Some(true) && options.allow_watch_bookmarks;
    let (sent, encodings) = state.metrics.watch_counters(&ctx.resource.labels.resource);
    let watcher = Watcher {
        sent,
        encodings,
        state: state.clone(),
        ctx: ctx.clone(),
        options,
        conversion: converted,
        tx,
        headers_sent: std::sync::atomic::AtomicBool::new(false),
        line_keys: [EventType::Added, EventType::Modified, EventType::Deleted]
            .map(|t| served::line_key(ctx, t)),
    };
    tokio::spawn(async move {
        let _ =
            tokio::time::timeout(timeout, watcher.run(initial, after, initial_end_bookmark)).await;
    });
    Ok(Reply::Stream {
        content_type: "application/json",
        stream: coalesced(rx),
        warnings: Vec::new(),
    }
    .with_warning(ctx.deprecation_warning()))
}

/// Lines waiting to be sent when the response is polled.
const COALESCED_LINES: usize = 64;

/// A piece of the watch response: lines, or the error that ends it.
type Piece = Result<Bytes, std::io::Error>;

/// The watch's lines as the response body: the lines already waiting when the client's
/// connection takes the next piece go out together, one frame and one write instead of
/// one each. Nothing waits for a batch: a lone line leaves at once, uncopied; a watcher
/// that fell behind (a busy server, 1,000 watchers on two cores) catches up in fewer,
/// larger writes.
fn coalesced(rx: mpsc::Receiver<Piece>) -> crate::handlers::reply::ByteStream {
    let lines = tokio_stream::wrappers::ReceiverStream::new(rx).ready_chunks(COALESCED_LINES);
    Box::pin(lines.flat_map(|batch| futures::stream::iter(joined(batch))))
}

/// A batch of lines as pieces: the lines before an error joined, then the error.
fn joined(batch: Vec<Piece>) -> Vec<Piece> {
    if batch.len() == 1 {
        return batch;
    }
    let mut pieces = Vec::new();
    let mut joined = bytes::BytesMut::new();
    for line in batch {
        match line {
            Ok(line) => joined.extend_from_slice(&line),
            Err(e) => {
                if !joined.is_empty() {
                    pieces.push(Ok(joined.split().freeze()));
                }
                pieces.push(Err(e));
            }
        }
    }
    if !joined.is_empty() {
        pieces.push(Ok(joined.freeze()));
    }
    pieces
}

impl Watcher {
    /// Sends one event; false when the client has gone (or the watch must end).
    async fn send(&self, event_type: EventType, object: &Value) -> bool {
        let object = match (self.conversion, event_type) {
            // Error events carry a Status, never converted.
            (Some(_), EventType::Error) | (None, _) => object.clone(),
            (Some((conversion, version)), _) => match self.convert(object, conversion, version) {
                Some(converted) => converted,
                // Upstream cannot encode the unconverted object with the meta codecs: the
                // watch ends without the event.
                None => return false,
            },
        };
        self.send_line(Bytes::from(encode(event_type, &object)))
            .await
    }

    async fn send_line(&self, line: Bytes) -> bool {
        self.sent.inc();
        self.tx.send(Ok(line)).await.is_ok()
    }

    /// Sends the event of a stored object: plain watches share the event's line (made once
    /// for all of them), converted ones render their own.
    async fn send_stored(&self, event_type: EventType, kv: &KeyValue) -> bool {
        if self.conversion.is_some() {
            return match self.ctx.decode(kv) {
                Ok(object) => self.send(event_type, &object).await,
                Err(_) => false,
            };
        }
        let key = match event_type {
            EventType::Added => &self.line_keys[0],
            EventType::Modified => &self.line_keys[1],
            _ => &self.line_keys[2],
        };
        match served::event_line(&self.ctx, kv, event_type, key, &self.encodings) {
            Ok(line) => self.send_line(line).await,
            Err(_) => false,
        }
    }

    /// One storage event through the selectors: nothing, or what this watcher is sent.
    async fn send_event(&self, event: &Event) -> bool {
        let unselected =
            self.options.label_selector.is_empty() && self.options.field_selector.is_empty();
        match event {
            Event::Progress { revision } if self.options.allow_watch_bookmarks => {
                self.send(EventType::Bookmark, &self.bookmark(*revision, false))
                    .await
            }
            Event::Progress { .. } => true,
            Event::Put { kv, prev_value } if unselected => {
                let t = match prev_value {
                    Some(_) => EventType::Modified,
                    None => EventType::Added,
                };
                self.send_stored(t, kv).await
            }
            Event::Delete { kv } if unselected => self.send_stored(EventType::Deleted, kv).await,
            Event::Put { kv, .. } | Event::Delete { kv } => {
                let matches = |o: &Value| selects(&self.options, o);
                let decode = |b: &[u8], rev: i64| self.ctx.decode_bytes(b, rev).ok();
                match classify(event, &matches, &decode) {
                    // An object leaving the selector is sent in its previous state.
                    Some((EventType::Deleted, old)) if matches!(event, Event::Put { .. }) => {
                        self.send(EventType::Deleted, &old).await
                    }
                    Some((t, _)) => self.send_stored(t, kv).await,
                    None => true,
                }
            }
        }
    }

    /// One event's object in the asked form; a Table carries headers only in the first.
    fn convert(
        &self,
        object: &Value,
        conversion: Conversion,
        version: MetaVersion,
    ) -> Option<Value> {
        let no_headers = matches!(conversion, Conversion::Table(_))
            && self
                .headers_sent
                .swap(true, std::sync::atomic::Ordering::Relaxed);
        let options = TableOptions {
            no_headers,
            ..TableOptions::default()
        };
        self.ctx
            .version()
            .table
            .convert_object(object, conversion, version, options, jiff::Timestamp::now())
            .ok()
    }

    fn bookmark(&self, revision: Revision, initial_events_end: bool) -> Value {
        bookmark(
            &self.ctx.api_version(),
            &self.ctx.resource.kind,
            revision,
            initial_events_end,
        )
    }

    async fn run(self, initial: Vec<KeyValue>, after: Revision, initial_end_bookmark: bool) {
        // Subscribe before streaming the initial state, so a slow client cannot let the
        // list's revision be compacted away before the watch starts.
        let prefix = self.ctx.collection_prefix(&self.state);
        let every = self.state.bookmark_interval;
        let mut events = match self.state.store.watch(&prefix, after, every).await {
            Ok(s) => s,
            Err(e) => return self.fail(e).await,
        };
        for kv in &initial {
            if !self.send_initial(kv).await {
                return;
            }
        }
        if initial_end_bookmark
            && !self
                .send(EventType::Bookmark, &self.bookmark(after, true))
                .await
        {
            return;
        }
        let mut shutdown = self.state.lifecycle.watch_shutdown();
        loop {
            let event = tokio::select! {
                e = events.next() => e,
                _ = shutdown.wait_for(|done| *done) => return,
                // The client went away: release the subscription now, not at timeout.
                _ = self.tx.closed() => return,
            };
            let event = match event {
                Some(Ok(e)) => e,
                Some(Err(e)) => return self.fail(e).await,
                None => return,
            };
            if !self.send_event(&event).await {
                return;
            }
        }
    }

    /// One initial ADDED event: the object's served bytes framed for this watcher (the
    /// line is not kept: initial events are not shared between watchers).
    async fn send_initial(&self, kv: &KeyValue) -> bool {
        if self.conversion.is_some() {
            return self.send_stored(EventType::Added, kv).await;
        }
        match served::object_bytes(&self.ctx, kv) {
            Ok(object) => {
                self.send_line(served::frame(EventType::Added, &object))
                    .await
            }
            Err(_) => false,
        }
    }

    /// Ends the watch with an ERROR event carrying the Status (410 Expired when compacted).
    async fn fail(&self, err: StorageError) {
        let api_error = self.ctx.storage_error("", err);
        let _ = self.send(EventType::Error, &api_error.to_status()).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(pieces: &[Piece]) -> Vec<String> {
        pieces
            .iter()
            .map(|p| match p {
                Ok(b) => String::from_utf8_lossy(b).into_owned(),
                Err(e) => format!("error: {e}"),
            })
            .collect()
    }

    #[test]
    fn joined_lines_and_errors_order_kept() {
        let line = |s: &'static str| Ok(Bytes::from_static(s.as_bytes()));
        let error = || Err(std::io::Error::other("gone"));
        let cases: Vec<(Vec<Piece>, Vec<&str>)> = vec![
            (vec![line("a\n")], vec!["a\n"]),
            (vec![line("a\n"), line("b\n")], vec!["a\nb\n"]),
            (
                vec![line("a\n"), line("b\n"), error(), line("c\n")],
                vec!["a\nb\n", "error: gone", "c\n"],
            ),
            (vec![error(), line("a\n")], vec!["error: gone", "a\n"]),
        ];
        for (batch, want) in cases {
            assert_eq!(text(&joined(batch)), want);
        }
    }

    #[tokio::test]
    async fn coalesced_waiting_lines_one_piece_lone_line_at_once() {
        let (tx, rx) = mpsc::channel(8);
        let mut body = coalesced(rx);
        for l in ["1\n", "2\n", "3\n"] {
            tx.send(Ok(Bytes::from_static(l.as_bytes()))).await.unwrap();
        }
        let first = body.next().await.unwrap().unwrap();
        assert_eq!(&first[..], b"1\n2\n3\n");
        tx.send(Ok(Bytes::from_static(b"4\n"))).await.unwrap();
        let second = body.next().await.unwrap().unwrap();
        assert_eq!(&second[..], b"4\n");
        drop(tx);
        assert!(body.next().await.is_none());
    }
}
