//! Storage stage: a revisioned key/value store with compare-and-swap on mod revision.
//!
//! The contract mirrors etcd v3 so that the embedded backend and the etcd backend are
//! interchangeable and pass one conformance suite (`tests/common/conformance.rs`):
//! - one global revision that increases by one with every successful write;
//! - values are opaque bytes (the JSON object without `metadata.resourceVersion`; the
//!   handlers set it from `mod_revision` on the way out, as kube's etcd3 store does);
//! - watches deliver every event after a revision, in revision order, exactly once;
//! - compaction forgets history before a revision: reads and watches there are `Compacted`.

pub mod cache;
pub mod embedded;
pub mod encryption;
pub mod etcd;
pub mod key;
pub mod memo;
pub mod traced;
pub mod versions;

use std::pin::Pin;
use std::sync::Arc;

use bytes::Bytes;
use futures::Stream;

pub use memo::Memo;

/// A store revision; revision 0 means "the current one" where a read takes one.
pub type Revision = i64;

/// One stored key at one revision.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyValue {
    /// Shared by the watch cache's index and its events.
    pub key: Arc<str>,
    /// Shared, so the cache hands the same bytes to every reader without copying.
    pub value: Bytes,
    /// Revision of the write that created this key (since its last deletion).
    pub create_revision: Revision,
    /// Revision of the last write to this key.
    pub mod_revision: Revision,
    /// Forms derived from this value (served bytes, watch lines), computed once when the
    /// watch cache shares the value; inert for values read straight from a backend.
    pub memo: Memo,
    /// Read with an encryption provider or key other than the one writes use (kube's
    /// `stale`): an update must write it even when its bytes are unchanged, so that a
    /// no-op update re-encrypts it. Always false without `--encryption-provider-config`.
    pub stale: bool,
}

/// A range read: keys under `prefix`, from `start_key` on, at one revision.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RangeRequest {
    /// Keys must start with this string.
    pub prefix: String,
    /// First key to return (inclusive); `None` starts at the prefix.
    pub start_key: Option<String>,
    /// Maximum number of keys; 0 means no limit.
    pub limit: usize,
    /// Revision to read at; 0 reads the current revision.
    pub revision: Revision,
    /// With `revision` 0: any state at or after this revision will do (kube's
    /// `resourceVersionMatch=NotOlderThan`, `Some(0)` for `resourceVersion=0`), so the
    /// watch cache answers without asking the backend. `None` is a consistent read.
    pub not_older_than: Option<Revision>,
}

/// The answer to a [`RangeRequest`], sorted by key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RangeResult {
    pub kvs: Vec<KeyValue>,
    /// True when keys under the prefix remain after the last one returned.
    pub more: bool,
    /// The revision the range was read at (the current revision when 0 was asked).
    pub revision: Revision,
}

/// What happened to a key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// A create or an update. `kv.create_revision == kv.mod_revision` on create.
    Put {
        kv: KeyValue,
        /// The value before this write; `None` on create.
        prev_value: Option<Bytes>,
    },
    /// A delete: `kv.value` is the last value, `kv.mod_revision` the delete's revision.
    Delete { kv: KeyValue },
    /// Every event up to this revision has been delivered (becomes a watch bookmark).
    Progress { revision: Revision },
}

impl Event {
    /// The revision the event happened at.
    pub fn revision(&self) -> Revision {
        match self {
            Event::Put { kv, .. } | Event::Delete { kv } => kv.mod_revision,
            Event::Progress { revision } => *revision,
        }
    }
}

/// A stream of events; it ends with an error when the watch cannot go on.
pub type WatchStream = Pin<Box<dyn Stream<Item = Result<Event, StorageError>> + Send>>;

/// Why a storage call failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StorageError {
    /// Create of a key that exists.
    #[error("key {key} already exists")]
    AlreadyExists { key: String },
    /// Update or delete of a key that does not exist.
    #[error("key {key} not found")]
    NotFound { key: String },
    /// Update or delete whose expected mod revision is not the key's; carries the current value.
    #[error("key {key} was modified")]
    Conflict { key: String, current: Box<KeyValue> },
    /// A read or watch at a revision older than the compacted revision.
    #[error("required revision {requested} has been compacted (compacted to {compacted})")]
    Compacted {
        requested: Revision,
        compacted: Revision,
    },
    /// A read at a revision that does not exist yet.
    #[error("revision {requested} is newer than the current revision {current}")]
    FutureRevision {
        requested: Revision,
        current: Revision,
    },
    /// The backend cannot be reached or is shutting down.
    #[error("storage unavailable: {0}")]
    Unavailable(String),
    /// The backend did not answer within the request timeout.
    #[error("storage request timed out: {0}")]
    Timeout(String),
    /// Any other backend failure (I/O, corruption).
    #[error("storage backend failed: {0}")]
    Backend(String),
    /// A value could not be transformed from or to its stored form (kube's
    /// `storage.InternalError`, answered as 500 `Internal error occurred: <text>`): no
    /// encryption provider reads it, or the writing one failed.
    #[error("{0}")]
    Internal(String),
}

/// The shortest progress interval honoured (a zero interval would spin).
const MIN_PROGRESS: std::time::Duration = std::time::Duration::from_millis(10);

/// When a watch's next progress event is due if nothing is yielded before.
pub(crate) fn progress_deadline(every: std::time::Duration) -> tokio::time::Instant {
    let now = tokio::time::Instant::now();
    let far = std::time::Duration::from_secs(10 * 365 * 24 * 3600);
    now.checked_add(every.max(MIN_PROGRESS))
        .or_else(|| now.checked_add(far))
        .unwrap_or(now)
}

/// Resolves when a watch's owner asks for progress; never without a request channel.
pub(crate) async fn progress_requested(requests: Option<&tokio::sync::Notify>) {
    match requests {
        Some(requests) => requests.notified().await,
        None => std::future::pending().await,
    }
}

pub type Result<T, E = StorageError> = std::result::Result<T, E>;

/// The storage contract. Implementations must be cheap to share (`Arc<dyn Store>`).
#[async_trait::async_trait]
pub trait Store: Send + Sync + 'static {
    /// The key at the current revision, if present.
    async fn get(&self, key: &str) -> Result<Option<KeyValue>>;

    /// The key in any state at or after revision `not_older_than` (kube's get with a
    /// resourceVersion): the watch cache answers from memory, backends read the current
    /// state, which is never older.
    async fn get_not_older_than(
        &self,
        key: &str,
        not_older_than: Revision,
    ) -> Result<Option<KeyValue>> {
        let _ = not_older_than;
        self.get(key).await
    }

    /// Keys under a prefix at one revision (see [`RangeRequest`]).
    async fn range(&self, req: RangeRequest) -> Result<RangeResult>;

    /// Writes a new key; `AlreadyExists` if present. Returns the write's revision.
    async fn create(&self, key: &str, value: Vec<u8>) -> Result<Revision>;

    /// Replaces a key whose mod revision is `expected`; `Conflict` (with the current
    /// value) if it is not, `NotFound` if the key is absent. Returns the write's revision.
    async fn update(&self, key: &str, value: Vec<u8>, expected: Revision) -> Result<Revision>;

    /// Deletes a key whose mod revision is `expected` (0 = unconditionally).
    /// Returns the deleted key-value with `mod_revision` set to the delete's revision.
    async fn delete(&self, key: &str, expected: Revision) -> Result<KeyValue>;

    /// Every event on keys under `prefix` with revision > `after`, in order, then live ones.
    /// `after = 0` starts at the current revision. `Compacted` if `after + 1` was compacted.
    /// The stream also yields `Progress` about once per `progress_every` while idle.
    async fn watch(
        &self,
        prefix: &str,
        after: Revision,
        progress_every: std::time::Duration,
    ) -> Result<WatchStream>;

    /// [`Store::watch`] that also yields a `Progress` soon after each
    /// `progress.notify_one()`: the watch cache asks when a consistent read waits for it
    /// to catch up. Backends without a cheaper way report progress on their idle timer.
    async fn watch_with_progress(
        &self,
        prefix: &str,
        after: Revision,
        progress_every: std::time::Duration,
        progress: std::sync::Arc<tokio::sync::Notify>,
    ) -> Result<WatchStream> {
        let _ = progress;
        self.watch(prefix, after, progress_every).await
    }

    /// Whether [`Store::watch_with_progress`] answers a request promptly and in order
    /// with events. Without it the watch cache cannot prove it caught up, so consistent
    /// reads go to the store (kube does the same on such etcd versions).
    fn progress_on_request(&self) -> bool {
        true
    }

    /// The latest revision.
    async fn current_revision(&self) -> Result<Revision>;

    /// Forgets history before `revision` (reads at `revision` still work).
    async fn compact(&self, revision: Revision) -> Result<()>;

    /// The oldest revision still readable (0 or 1 when nothing was compacted).
    async fn compacted_revision(&self) -> Result<Revision>;

    /// A cheap round trip to the backend, for `/readyz`.
    async fn check(&self) -> Result<()>;
}
