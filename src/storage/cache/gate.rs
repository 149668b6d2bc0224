//! The store's current revision for consistent reads, one round trip for a crowd: a read
//! may use a revision fetched by a request that *started after the read arrived* (so the
//! revision is at least the store's revision at the read's arrival, which is what makes
//! the read linearizable), and every read that arrived while one fetch was in flight
//! shares the next one.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::storage::{Result, Revision, Store};

/// Arrival tickets and the last fetch.
#[derive(Default)]
pub(super) struct RevisionGate {
    /// The number of tickets handed out.
    tickets: AtomicU64,
    /// The last fetch: the tickets handed out when it started, and its revision.
    last: tokio::sync::Mutex<(u64, Revision)>,
}

impl RevisionGate {
    /// A revision no older than the store's current revision at the time of this call.
    pub async fn current(&self, store: &dyn Store) -> Result<Revision> {
        let ticket = self.tickets.fetch_add(1, Ordering::SeqCst) + 1;
        let mut last = self.last.lock().await;
        if last.0 >= ticket {
            return Ok(last.1);
        }
        // Every ticket up to here was handed out before this fetch starts.
        let covers = self.tickets.load(Ordering::SeqCst);
        let revision = store.current_revision().await?;
        *last = (covers, revision);
        Ok(revision)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::storage::embedded::EmbeddedStore;

    #[tokio::test]
    async fn current_after_write_sees_write() {
        let dir = tempfile::tempdir().unwrap();
        let store = EmbeddedStore::open(dir.path()).unwrap();
        let gate = RevisionGate::default();
        let before = gate.current(store.as_ref()).await.unwrap();
        let written = store.create("/k", b"v".to_vec()).await.unwrap();
        assert!(written > before);
        assert_eq!(gate.current(store.as_ref()).await.unwrap(), written);
    }

    #[tokio::test]
    async fn current_concurrent_reads_all_see_last_write() {
        let dir = tempfile::tempdir().unwrap();
        let store = EmbeddedStore::open(dir.path()).unwrap();
        let written = store.create("/k", b"v".to_vec()).await.unwrap();
        let gate = Arc::new(RevisionGate::default());
        let reads: Vec<_> = (0..64)
            .map(|_| {
                let (gate, store) = (gate.clone(), store.clone());
                tokio::spawn(async move { gate.current(store.as_ref()).await.unwrap() })
            })
            .collect();
        for read in reads {
            assert_eq!(read.await.unwrap(), written);
        }
    }
}
