//! watch: initial events, then storage events through the selectors as a newline-delimited
//! JSON stream (or one-row Tables), bookmarks, timeouts, and a clean end on shutdown; each
//! watch takes a place in its user's watch limit and in `apiserver_longrunning_requests`
//! while it runs, and its lines wait for the connection in a bounded queue.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures::StreamExt;
use serde_json::Value;

use crate::error::ApiError;
use crate::handlers::collection::{conversion, list_options, parse_revision, read_page, selects};
use crate::handlers::context::Target;
use crate::handlers::wire::reply::Reply;
use crate::handlers::{AppState, Call, wire::served};
use crate::inflight::TOO_MANY_REQUESTS;
use crate::request::negotiate::MetaVersion;
use crate::request::negotiate::{
    ACCEPTED_STREAMS, Representation, Target as NegotiationTarget, negotiate,
};
use crate::request::options::{ListOptions, ResourceVersionMatch};
use crate::storage::{Event, KeyValue, Revision, StorageError};
use crate::table::{Conversion, TableOptions};
use crate::watch::limit::AtLimit;
use crate::watch::queue::{self, Line, Sent};
use crate::watch::{EventType, bookmark, classify, encode};
use prometheus_client::metrics::counter::Counter;

/// Initial events converted per call (a converter's page).
const INITIAL_BATCH: usize = 500;

/// kube's default watch length is a random 30–60 minutes (min-request-timeout 1800s).
const DEFAULT_TIMEOUT_SECS: u64 = 1800;

mod accounting;

use accounting::{OpenWatch, longrunning_labels, too_many};

/// How one watch renders its events.
struct Watcher {
    state: Arc<AppState>,
    ctx: Target,
    options: ListOptions,
    /// The `meta.k8s.io` form each event's object is sent in, if any.
    conversion: Option<(Conversion, MetaVersion)>,
    tx: queue::Sender,
    /// Table watches carry column definitions only in their first event, as kube's do.
    headers_sent: std::sync::atomic::AtomicBool,
    /// Events sent, and events serialized (once per event for all plain watchers).
    sent: Counter,
    encodings: Counter,
    /// Counts this watcher if it is ended for not reading (`apiserver_terminated_watchers_total`).
    terminated: Counter,
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
    // The user's place is taken before the initial list: a refused watch costs nothing.
    let slot = state
        .watches
        .admit(&call.user)
        .map_err(|at: AtLimit| too_many(state, call, at.message()))?;
    let open = OpenWatch::new(
        state
            .metrics
            .longrunning(&longrunning_labels(&call.info, ctx)),
    );
    let rv = options.resource_version.clone();
    let send_initial = options
        .send_initial_events
        .unwrap_or(rv.is_empty() || rv == "0");
    let (initial, after) = if send_initial {
        // The initial list reads the whole collection: it counts against the read-only
        // budget (the watch itself does not), so many watches at once are pushed back.
        let _slot = (state.inflight.admit_initial_list(&call.user))
            .map_err(|_| too_many(state, call, TOO_MANY_REQUESTS.into()))?;
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
    let (tx, body) = queue::channel();
    let initial_end_bookmark =
        options.send_initial_events == Some(true) && options.allow_watch_bookmarks;
    let (sent, encodings) = state.metrics.watch_counters(&ctx.resource.labels.resource);
    let terminated = state
        .metrics
        .terminated_watchers(&crate::metrics::GroupResource {
            group: ctx.resource.labels.group.clone(),
            resource: ctx.resource.labels.plural.clone(),
        });
    let watcher = Watcher {
        sent,
        encodings,
        terminated,
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
        // The watch has ended: its places are given back.
        drop((slot, open));
    });
    Ok(Reply::Stream {
        content_type: "application/json",
        stream: Box::pin(body),
        warnings: Vec::new(),
    }
    .with_warning(ctx.deprecation_warning()))
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
        self.send_line(Line::Whole(Bytes::from(encode(event_type, &object))))
            .await
    }

    /// Queues one line; false when the watch must end (the client went away, or stopped
    /// reading and is ended as kube ends a watcher that cannot keep up).
    async fn send_line(&self, line: Line) -> bool {
        self.sent.inc();
        match self.tx.send(line).await {
            Sent::Queued => true,
            Sent::Gone => false,
            Sent::Stalled => {
                self.terminated.inc();
                tracing::info!(
                    resource = %self.ctx.resource.labels.resource,
                    "watch: ending a watcher that stopped reading"
                );
                false
            }
        }
    }

    /// Sends the event of a stored object: plain watches share the event's line (made once
    /// for all of them), converted ones render their own.
    async fn send_stored(&self, event_type: EventType, kv: &KeyValue) -> bool {
        let key = match event_type {
            EventType::Added => &self.line_keys[0],
            EventType::Modified => &self.line_keys[1],
            _ => &self.line_keys[2],
        };
        // Another watcher of this version made the line: nothing to convert or encode.
        if self.conversion.is_none()
            && let Some(line) = kv.memo.get(key)
        {
            return self.send_line(Line::Whole(line)).await;
        }
        let converted;
        let kv = match self.ctx.needs_conversion() {
            false => kv,
            true => match self.ctx.to_served_version(vec![kv.clone()]).await {
                Ok(mut kvs) => match kvs.pop() {
                    Some(kv) => {
                        converted = kv;
                        &converted
                    }
                    None => return false,
                },
                Err(e) => return self.fail_with(e).await,
            },
        };
        if self.conversion.is_some() {
            return match self.ctx.decode(kv) {
                Ok(object) => self.send(event_type, &object).await,
                Err(_) => false,
            };
        }
        match served::event_line(&self.ctx, kv, event_type, key, &self.encodings) {
            Ok(line) => self.send_line(Line::Whole(line)).await,
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
            Event::Put { .. } | Event::Delete { .. } => {
                // Selectors read the objects (and the previous one) in this version.
                let event = match self.ctx.to_served_event(event).await {
                    Ok(event) => event,
                    Err(e) => return self.fail_with(e).await,
                };
                let event = event.as_ref();
                let (Event::Put { kv, .. } | Event::Delete { kv }) = event else {
                    return true;
                };
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
        // Initial events are converted in batches, one call each (as LIST pages are).
        for batch in initial.chunks(INITIAL_BATCH) {
            let batch = match self.ctx.needs_conversion() {
                false => Cow::Borrowed(batch),
                true => match self.ctx.to_served_version(batch.to_vec()).await {
                    Ok(kvs) => Cow::Owned(kvs),
                    Err(e) => {
                        self.fail_with(e).await;
                        return;
                    }
                },
            };
            for kv in batch.iter() {
                if !self.send_initial(kv).await {
                    return;
                }
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

    /// One initial ADDED event: the object's served bytes (the cache's, shared by every
    /// watcher) framed for this watcher without copying them.
    async fn send_initial(&self, kv: &KeyValue) -> bool {
        if self.conversion.is_some() {
            return self.send_stored(EventType::Added, kv).await;
        }
        match served::object_bytes(&self.ctx, kv) {
            Ok(object) => {
                self.send_line(served::framed(EventType::Added, &object))
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

    /// Ends the watch with an ERROR event carrying `err`'s Status: an object that could
    /// not be converted to the watched version (kube's cacher cannot decode it either and
    /// its watchers are ended). Always false: the watch ends.
    async fn fail_with(&self, err: ApiError) -> bool {
        tracing::warn!(
            resource = %self.ctx.resource.labels.resource,
            error = %err,
            "watch: ending a watch whose object could not be converted"
        );
        let _ = self.send(EventType::Error, &err.to_status()).await;
        false
    }
}
