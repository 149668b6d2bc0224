//! The byte-level read path: an object's served JSON (decoded for its version, pruned and
//! defaulted, apiVersion, kind and resourceVersion set) is made once per cached value and
//! version and kept in the value's memo; GET answers it as it is, LIST streams the items'
//! bytes between the list's head and tail, and a watch event's line is made once for all
//! its watchers.

use std::sync::Arc;

use bytes::{Bytes, BytesMut};
use prometheus_client::metrics::counter::Counter;
use serde::Serialize;
use serde_json::{Value, json};

use crate::error::ApiError;
use crate::handlers::context::Target;
use crate::handlers::wire::reply::ByteStream;
use crate::handlers::wire::splice;
use crate::meta::object as obj;
use crate::storage::KeyValue;
use crate::table::ListMeta;
use crate::watch::EventType;
use crate::watch::queue::Line;

/// LIST bodies go out in chunks of about this size (each copied once from the items):
/// one TLS record. Larger chunks only made the LIST's transient buffers, which the
/// allocator keeps after it, bigger (measured with the h2 send buffer, see `server`).
const CHUNK: usize = 16 * 1024;

/// An object's served JSON: the stored bytes with the resourceVersion spliced in where
/// that is all serving changes, else the bytes made for the version.
#[derive(Clone, Debug)]
pub struct Served {
    bytes: Bytes,
    /// Where the resourceVersion goes ([`splice`]), 0 when `bytes` is complete.
    tag: u32,
    revision: Digits,
}

/// A revision's decimal digits, inline: a LIST holds one per item, and a heap string
/// each was 10,000 small allocations per 10,000-object LIST.
#[derive(Clone, Copy, Debug)]
struct Digits {
    bytes: [u8; 20],
    len: usize,
}

impl Digits {
    fn new(revision: i64) -> Digits {
        let mut bytes = [0; 20];
        let mut cursor = std::io::Cursor::new(&mut bytes[..]);
        // 20 bytes hold every i64 (19 digits and a sign).
        let _ = std::io::Write::write_fmt(&mut cursor, format_args!("{revision}"));
        let len = usize::try_from(cursor.position()).unwrap_or(0);
        Digits { bytes, len }
    }

    fn as_str(&self) -> &str {
        std::str::from_utf8(&self.bytes[..self.len]).unwrap_or_default()
    }
}

impl Served {
    pub fn len(&self) -> usize {
        splice::len(&self.bytes, self.tag, self.revision.as_str())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn write_to(&self, out: &mut BytesMut) {
        splice::write(out, &self.bytes, self.tag, self.revision.as_str());
    }

    pub fn to_bytes(&self) -> Bytes {
        if self.tag == 0 {
            return self.bytes.clone();
        }
        let mut out = BytesMut::with_capacity(self.len());
        self.write_to(&mut out);
        out.freeze()
    }
}

/// The object as this version serves it, made once per cached value and version. `kv`
/// holds the object in the request's version already (see
/// [`Target::to_served_version`] for resources with a converter).
pub fn object_bytes(ctx: &Target, kv: &KeyValue) -> Result<Served, ApiError> {
    let revision = Digits::new(kv.mod_revision);
    let (bytes, tag) = kv.memo.get_or_try_insert_tagged(&ctx.version().name, || {
        let mut object = ctx.decode(kv)?;
        let full = encode(&object)?;
        // Kept values share the stored bytes when serving only adds the resourceVersion.
        if kv.memo.is_shared() && kv.mod_revision > 0 {
            obj::set_meta(&mut object, "resourceVersion", None);
            if encode(&object)? == kv.value
                && let Some(tag) = splice::find(&full, &kv.value, revision.as_str())
            {
                return Ok((kv.value.clone(), tag));
            }
        }
        Ok((Bytes::from(full), 0))
    })?;
    Ok(Served {
        bytes,
        tag,
        revision,
    })
}

/// An object's JSON bytes, trimmed to their length: the serializer's buffer grows by
/// doubling, and these bytes live as long as the object does (stored, they become the
/// watch cache's value; served, they stay in its memo), up to twice the object's size
/// unless trimmed (realloc shrinks in place).
pub fn encode<T: Serialize + ?Sized>(object: &T) -> Result<Vec<u8>, ApiError> {
    // Most objects fit in one or two doublings of this.
    let mut bytes = Vec::with_capacity(1024);
    serde_json::to_writer(&mut bytes, object)
        .map_err(|e| ApiError::internal("encoding an object", &e))?;
    bytes.shrink_to_fit();
    Ok(bytes)
}

/// The memo key of a watch line of this version and type (made once per watch).
pub fn line_key(ctx: &Target, event_type: EventType) -> Arc<str> {
    format!("{}\u{0}{}", ctx.version().name, event_type.as_str()).into()
}

/// One watch line, `{"type":…,"object":…}` and a newline, for the object of `kv`: made
/// once per event, version and type (`key`, from [`line_key`]), counted in `encodings`
/// when made.
pub fn event_line(
    ctx: &Target,
    kv: &KeyValue,
    event_type: EventType,
    key: &Arc<str>,
    encodings: &Counter,
) -> Result<Bytes, ApiError> {
    if let Some(line) = kv.memo.get(key) {
        return Ok(line);
    }
    // The object before the line: the memo is not re-entrant.
    let object = object_bytes(ctx, kv)?;
    kv.memo.get_or_try_insert(key, || {
        encodings.inc();
        Ok::<_, ApiError>(frame(event_type, &object))
    })
}

/// Frames a served object as a watch line.
pub fn frame(event_type: EventType, object: &Served) -> Bytes {
    let head = frame_head(event_type);
    let mut line = BytesMut::with_capacity(head.len() + object.len() + FRAME_TAIL.len());
    line.extend_from_slice(&head);
    object.write_to(&mut line);
    line.extend_from_slice(FRAME_TAIL);
    line.freeze()
}

/// A served object framed as a watch line, copying nothing: the line's pieces are the
/// served bytes themselves (for a cached object, the cache's) between the frame's.
pub fn framed(event_type: EventType, object: &Served) -> Line {
    let [before, member, after] =
        splice::parts(&object.bytes, object.tag, object.revision.as_str());
    Line::Parts(Box::new([
        frame_head(event_type),
        before,
        member,
        after,
        Bytes::from_static(FRAME_TAIL),
    ]))
}

const FRAME_TAIL: &[u8] = b"}\n";

/// `{"type":"…","object":`.
fn frame_head(event_type: EventType) -> Bytes {
    Bytes::from_static(match event_type {
        EventType::Added => b"{\"type\":\"ADDED\",\"object\":",
        EventType::Modified => b"{\"type\":\"MODIFIED\",\"object\":",
        EventType::Deleted => b"{\"type\":\"DELETED\",\"object\":",
        EventType::Bookmark => b"{\"type\":\"BOOKMARK\",\"object\":",
        EventType::Error => b"{\"type\":\"ERROR\",\"object\":",
    })
}

/// A custom resource list's body from its items' served bytes: the same JSON as the list
/// object (keys in order: apiVersion, items, kind, metadata), its exact length, and the
/// chunks made as the client reads (one chunk in memory at a time, not a second list).
pub fn list_body(
    ctx: &Target,
    items: Vec<Served>,
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
    let len = head.len() + items.iter().map(Served::len).sum::<usize>() + commas + tail_piece.len();
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
    items: std::iter::Enumerate<std::vec::IntoIter<Served>>,
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
                    item.write_to(&mut chunk);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn framed_pieces_are_the_framed_line_sharing_the_bytes() {
        let bare = Bytes::from_static(br#"{"metadata":{"name":"x"},"spec":{}}"#);
        let full = br#"{"metadata":{"name":"x","resourceVersion":"42"},"spec":{}}"#;
        let tag = splice::find(full, &bare, "42").unwrap();
        for (tag, event_type) in [(tag, EventType::Added), (0, EventType::Deleted)] {
            let object = Served {
                bytes: bare.clone(),
                tag,
                revision: Digits::new(42),
            };
            let Line::Parts(parts) = framed(event_type, &object) else {
                panic!("a framed line is made of parts");
            };
            assert_eq!(parts.concat(), frame(event_type, &object).to_vec());
            for part in &parts[1..4] {
                let shared = part.as_ptr() >= bare.as_ptr()
                    && part.as_ptr() < bare.as_ptr().wrapping_add(bare.len());
                assert!(
                    part.is_empty() || shared || part.len() < 30,
                    "only the resourceVersion member is made for the line"
                );
            }
        }
        let names: Vec<_> = [
            EventType::Added,
            EventType::Modified,
            EventType::Deleted,
            EventType::Bookmark,
            EventType::Error,
        ]
        .map(|t| (frame_head(t), t.as_str()))
        .into_iter()
        .filter(|(head, name)| *head != format!(r#"{{"type":"{name}","object":"#).as_bytes())
        .collect();
        assert!(names.is_empty(), "frame heads: {names:?}");
    }

    #[test]
    fn digits_every_revision_as_decimal() {
        for revision in [0, 1, 42, 1_000_000, i64::MAX, -1, i64::MIN] {
            assert_eq!(Digits::new(revision).as_str(), revision.to_string());
        }
    }
}
