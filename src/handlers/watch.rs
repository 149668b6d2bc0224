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
use crate::handlers::{AppState, Call};
use crate::request::negotiate::{
    ACCEPTED_STREAMS, Representation, Target as NegotiationTarget, negotiate,
};
use crate::request::options::{ListOptions, ResourceVersionMatch};
use crate::storage::{Event, Revision, StorageError};
use crate::table::{Conversion, MetaVersion, TableOptions};
use crate::watch::{EventType, bookmark, classify, encode};

/// kube's default watch length is a random 30–60 minutes (min-request-timeout 1800s).
const DEFAULT_TIMEOUT_SECS: u64 = 1800;

/// How one watch renders its events.
struct Watcher {
    state: Arc<AppState>,
    ctx: Target,
    options: ListOptions,
    /// The `meta.k8s.io` form each event's object is sent in, if any.
    conversion: Option<(Conversion, MetaVersion)>,
    tx: mpsc::Sender<Result<Bytes, std::io::Error>>,
    /// Table watches carry column definitions only in their first event, as kube's do.
    headers_sent: std::sync::atomic::AtomicBool,
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
    let watcher = Watcher {
        state: state.clone(),
        ctx: ctx.clone(),
        options,
        conversion: converted,
        tx,
        headers_sent: std::sync::atomic::AtomicBool::new(false),
    };
    tokio::spawn(async move {
        let _ =
            tokio::time::timeout(timeout, watcher.run(initial, after, initial_end_bookmark)).await;
    });
    Ok(Reply::Stream {
        content_type: "application/json",
        stream: Box::pin(tokio_stream::wrappers::ReceiverStream::new(rx)),
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
        self.tx
            .send(Ok(Bytes::from(encode(event_type, &object))))
            .await
            .is_ok()
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

    async fn run(self, initial: Vec<Value>, after: Revision, initial_end_bookmark: bool) {
        // Subscribe before streaming the initial state, so a slow client cannot let the
        // list's revision be compacted away before the watch starts.
        let prefix = self.ctx.collection_prefix(&self.state);
        let every = self.state.bookmark_interval;
        let mut events = match self.state.store.watch(&prefix, after, every).await {
            Ok(s) => s,
            Err(e) => return self.fail(e).await,
        };
        for object in &initial {
            if !self.send(EventType::Added, object).await {
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
        let matches = |o: &Value| selects(&self.options, o);
        let decode = |b: &[u8], rev: i64| self.ctx.decode_bytes(b, rev).ok();
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
            let sent = match &event {
                Event::Progress { revision } if self.options.allow_watch_bookmarks => {
                    self.send(EventType::Bookmark, &self.bookmark(*revision, false))
                        .await
                }
                other => match classify(other, &matches, &decode) {
                    Some((t, object)) => self.send(t, &object).await,
                    None => true,
                },
            };
            if !sent {
                return;
            }
        }
    }

    /// Ends the watch with an ERROR event carrying the Status (410 Expired when compacted).
    async fn fail(&self, err: StorageError) {
        let api_error = self.ctx.storage_error("", err);
        let _ = self.send(EventType::Error, &api_error.to_status()).await;
    }
}
