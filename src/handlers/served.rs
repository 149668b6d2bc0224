//! The byte-level read path: an object's served JSON (decoded for its version, pruned and
//! defaulted, apiVersion, kind and resourceVersion set) is made once per cached value and
//! version and kept in the value's memo; GET answers it as it is, LIST streams the items'
//! bytes between the list's head and tail, and a watch event's line is made once for all
//! its watchers.

use bytes::{Bytes, BytesMut};
use prometheus_client::metrics::counter::Counter;
use serde_json::{Value, json};

use crate::error::ApiError;
use crate::handlers::context::Target;
use crate::handlers::reply::ByteStream;
use crate::storage::KeyValue;
use crate::table::ListMeta;
use crate::watch::EventType;

/// LIST bodies go out in chunks of about this size (each copied once from the items).
const CHUNK: usize = 64 * 1024;

/// The object as this version serves it, in JSON.
pub fn object_bytes(ctx: &Target, kv: &KeyValue) -> Result<Bytes, ApiError> {
    kv.memo.get_or_try_insert(&ctx.version().name, || {
        let object = ctx.decode(kv)?;
        serde_json::to_vec(&object)
            .map(Bytes::from)
            .map_err(|e| ApiError::internal("encoding a stored object", &e))
    })
}

/// One watch line, `{"type":…,"object":…}` and a newline, for the object of `kv`: made
/// once per event, version and type, counted in `encodings` when made.
pub fn event_line(
    ctx: &Target,
    kv: &KeyValue,
    event_type: EventType,
    encodings: &Counter,
) -> Result<Bytes, ApiError> {
    // The object first: the memo is not re-entrant.
    let object = object_bytes(ctx, kv)?;
    let key = format!("{}\u{0}{}", ctx.version().name, event_type.as_str());
    kv.memo.get_or_try_insert(&key, || {
        encodings.inc();
        Ok::<_, ApiError>(frame(event_type, &object))
    })
}

/// Frames an encoded object as a watch line.
pub fn frame(event_type: EventType, object: &[u8]) -> Bytes {
    let kind = event_type.as_str();
    let mut line = BytesMut::with_capacity(object.len() + kind.len() + 22);
    line.extend_from_slice(b"{\"type\":\"");
    line.extend_from_slice(kind.as_bytes());
    line.extend_from_slice(b"\",\"object\":");
    line.extend_from_slice(object);
    line.extend_from_slice(b"}\n");
    line.freeze()
}

/// A custom resource list's body from its items' served bytes: the same JSON as the list
/// object (keys in order: apiVersion, items, kind, metadata), its exact length, and the
/// chunks made as the client reads (one chunk in memory at a time, not a second list).
pub fn list_body(
    ctx: &Target,
    items: Vec<Bytes>,
    list_meta: &ListMeta,
) -> Result<(ByteStream, usize), ApiError> {
    let head = format!("{{\"apiVersion\":{},\"items\":[", json!(ctx.api_version()));
    let tail = serde_json::to_vec(&json!({
        "kind": ctx.resource.list_kind,
        // Custom resource lists always carry `continue`, empty on the last page.
        "metadata": list_meta.unstructured(),
    }))
    .map_err(|e| ApiError::internal("encoding a list", &e))?;
    // `{"kind":…,"metadata":…}` closes the items: `],"kind":…,"metadata":…}`.
    let mut tail_piece = b"],".to_vec();
    tail_piece.extend_from_slice(tail.get(1..).unwrap_or_default());
    let commas = items.len().saturating_sub(1);
    let len = head.len() + items.iter().map(Bytes::len).sum::<usize>() + commas + tail_piece.len();
    let mut chunker = Chunker {
        head: Some(Bytes::from(head)),
        items: items.into_iter().enumerate(),
        tail: Some(Bytes::from(tail_piece)),
    };
    let stream = futures::stream::iter(std::iter::from_fn(move || chunker.next_chunk().map(Ok)));
    Ok((Box::pin(stream), len))
}

/// Cuts the list into chunks of about [`CHUNK`] bytes as they are asked for.
struct Chunker {
    head: Option<Bytes>,
    items: std::iter::Enumerate<std::vec::IntoIter<Bytes>>,
    tail: Option<Bytes>,
}

impl Chunker {
    fn next_chunk(&mut self) -> Option<Bytes> {
        let mut chunk = BytesMut::with_capacity(CHUNK);
        if let Some(head) = self.head.take() {
            chunk.extend_from_slice(&head);
        }
        while chunk.len() < CHUNK {
            match self.items.next() {
                Some((i, item)) => {
                    if i > 0 {
                        chunk.extend_from_slice(b",");
                    }
                    chunk.extend_from_slice(&item);
                }
                None => {
                    if let Some(tail) = self.tail.take() {
                        chunk.extend_from_slice(&tail);
                    }
                    break;
                }
            }
        }
        (!chunk.is_empty()).then(|| chunk.freeze())
    }
}

/// Decodes served bytes back into an object (selectors, Tables, initial watch events).
pub fn decode(bytes: &[u8]) -> Result<Value, ApiError> {
    serde_json::from_slice(bytes).map_err(|e| ApiError::internal("decoding a served object", &e))
}
