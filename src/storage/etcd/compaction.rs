//! etcd backend compaction: compacting history, and finding the compacted revision, which
//! etcd does not report directly.
//!
//! The compacted revision is the oldest revision a read still works at: reads below it fail
//! with "required revision has been compacted". The store keeps a lower bound (the largest
//! revision it compacted to or learned from a watch) and confirms it with one read at that
//! revision; when another client compacted further, a binary search over reads finds the
//! new bound (about log2(current - bound) reads, once).

use std::sync::atomic::Ordering;

use super::Shared;
use super::errors::{Failure, call};
use crate::storage::{Result, Revision};

impl Shared {
    /// Compacts history before `revision` (logical compaction; etcd frees space later).
    pub(super) async fn compact(&self, revision: Revision) -> Result<()> {
        let mut kv = self.kv.clone();
        let outcome = call(self.request_timeout, "compact", kv.compact(revision, None)).await;
        match outcome {
            Ok(_) => {
                self.learn_compacted(revision);
                Ok(())
            }
            Err(failure) => Err(self.revision_error(failure, revision).await),
        }
    }

    /// The oldest readable revision (1 when nothing was compacted).
    pub(super) async fn compacted_revision(&self) -> Result<Revision> {
        let known = self.compacted.load(Ordering::Acquire).max(1);
        if self.readable(known).await? {
            return Ok(known);
        }
        // `low` is not readable, `high` is: the answer is in (low, high].
        let mut low = known;
        let mut high = self.current_revision().await?;
        while high - low > 1 {
            let mid = low + (high - low) / 2;
            if self.readable(mid).await? {
                high = mid;
            } else {
                low = mid;
            }
        }
        self.learn_compacted(high);
        Ok(high)
    }

    /// Whether a read at `revision` works (it does at and above the compacted revision;
    /// a future revision counts as readable, it is not compacted).
    pub(super) async fn readable(&self, revision: Revision) -> Result<bool> {
        match self.probe(revision, "read at revision").await {
            Ok(_) | Err(Failure::FutureRevision) => Ok(true),
            Err(Failure::Compacted) => Ok(false),
            Err(Failure::Storage(err)) => Err(err),
        }
    }

    /// Raises the known lower bound of the compacted revision.
    pub(super) fn learn_compacted(&self, revision: Revision) {
        self.compacted.fetch_max(revision, Ordering::AcqRel);
    }
}
