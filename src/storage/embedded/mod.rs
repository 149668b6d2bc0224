//! Embedded storage backend: an etcd-like MVCC store in one redb file, with watches.
//!
//! Writes go through one writer thread (the `commit` module) that commits every queued
//! write together in one durable redb transaction (group commit: one fsync per batch),
//! so revisions are gap-free; after the commit it sends the events to a broadcast
//! channel in revision order, then answers the callers. Watches replay history from the
//! durable log (see the `tables` module) and then follow the channel. Reads run on the
//! blocking pool; the current revision is the last one the writer committed.

mod commit;
#[cfg(test)]
mod layout_tests;
mod tables;
#[cfg(test)]
mod tests;
mod watch;
mod write;

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::time::Duration;

use redb::{Database, ReadTransaction, ReadableDatabase};
use tokio::sync::broadcast;

use self::commit::Committer;
use self::tables::{INITIAL_REVISION, backend};
use self::write::Write;
use super::{Event, KeyValue, RangeRequest, RangeResult, Result, Revision, Store, WatchStream};

/// The database file inside the store's directory.
const FILE_NAME: &str = "store.redb";

/// Live events buffered per watcher before it counts as lagging (it then replays the gap).
const CHANNEL_CAPACITY: usize = 1024;
/// redb's page cache: since a create writes its value once, not twice, raw creates at
/// concurrency 64 ran the same with 1, 2 and 4 MiB (alternated runs), and each MiB is
/// 0.1 KiB per object of a 10,000-object store.
const PAGE_CACHE: usize = 1024 * 1024;
/// Revisions one compaction transaction forgets at most.
const COMPACTION_CHUNK: Revision = 1000;

/// What watch streams share with the store; they hold it weakly so dropping the store
/// closes the database.
struct Shared {
    db: Database,
    /// The latest revision sent to the broadcast channel.
    published: AtomicI64,
    /// The latest revision committed: set after the commit, before its events are sent.
    committed: AtomicI64,
    /// Write transactions committed since the store was opened (one per batch).
    commits: AtomicU64,
}

/// The embedded [`Store`]: a redb database in a directory of its own.
pub struct EmbeddedStore {
    shared: Arc<Shared>,
    events: broadcast::Sender<Arc<Event>>,
    committer: Committer,
}

impl EmbeddedStore {
    /// Opens (or creates) the store in `dir`, creating the directory if needed.
    /// Reopening a directory keeps every key and the revision counter.
    pub fn open(dir: &Path) -> Result<Arc<EmbeddedStore>> {
        std::fs::create_dir_all(dir)
            .map_err(|e| backend(format!("cannot create {}: {e}", dir.display())))?;
        // Reads are served by the watch cache: redb's page cache only needs the pages
        // writes walk, not a copy of the data (its default is 1 GiB).
        let db = Database::builder()
            .set_cache_size(PAGE_CACHE)
            .create(dir.join(FILE_NAME))
            .map_err(backend)?;
        let revision = initialize(&db)?;
        let (events, _) = broadcast::channel(CHANNEL_CAPACITY);
        let shared = Arc::new(Shared {
            db,
            published: AtomicI64::new(revision),
            committed: AtomicI64::new(revision),
            commits: AtomicU64::new(0),
        });
        let committer = Committer::start(shared.clone(), events.clone())?;
        Ok(Arc::new(EmbeddedStore {
            shared,
            events,
            committer,
        }))
    }

    /// Write transactions committed since the store was opened (write batches and
    /// compaction steps): with group commit, fewer than the writes when writers run
    /// concurrently.
    pub fn commit_count(&self) -> u64 {
        self.shared.commits.load(Ordering::Relaxed)
    }

    /// The compaction of `[floor, upto)`, read in a read transaction.
    async fn plan_compaction(&self, floor: Revision, upto: Revision) -> Result<write::Compaction> {
        self.read(move |txn| {
            let log = txn.open_table(tables::LOG).map_err(backend)?;
            write::plan_compaction(&log, floor, upto)
        })
        .await
    }

    /// Runs a read transaction on the blocking pool.
    async fn read<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&ReadTransaction) -> Result<T> + Send + 'static,
    {
        read_with(self.shared.clone(), f).await
    }
}

/// Creates the tables and counters of a new database; returns the current revision.
fn initialize(db: &Database) -> Result<Revision> {
    let txn = db.begin_write().map_err(backend)?;
    let revision = {
        let mut meta = txn.open_table(tables::META).map_err(backend)?;
        let counters = tables::counters(&meta)?;
        if counters.revision == INITIAL_REVISION {
            meta.insert(tables::REVISION, INITIAL_REVISION)
                .map_err(backend)?;
        }
        txn.open_table(tables::CURRENT).map_err(backend)?;
        txn.open_table(tables::HISTORY).map_err(backend)?;
        txn.open_table(tables::LOG).map_err(backend)?;
        counters.revision
    };
    txn.commit().map_err(backend)?;
    Ok(revision)
}

async fn blocking<T, F>(f: F) -> Result<T>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T> + Send + 'static,
{
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| backend(format!("storage task failed: {e}")))?
}

async fn read_with<T, F>(shared: Arc<Shared>, f: F) -> Result<T>
where
    T: Send + 'static,
    F: FnOnce(&ReadTransaction) -> Result<T> + Send + 'static,
{
    blocking(move || f(&shared.db.begin_read().map_err(backend)?)).await
}

#[async_trait::async_trait]
impl Store for EmbeddedStore {
    async fn get(&self, key: &str) -> Result<Option<KeyValue>> {
        let key = key.to_string();
        self.read(move |txn| tables::get(txn, &key)).await
    }

    async fn range(&self, req: RangeRequest) -> Result<RangeResult> {
        self.read(move |txn| tables::range(txn, &req)).await
    }

    async fn create(&self, key: &str, value: Vec<u8>) -> Result<Revision> {
        let key = key.to_string();
        let event = self.committer.write(Write::Create { key, value }).await?;
        Ok(event.revision())
    }

    async fn update(&self, key: &str, value: Vec<u8>, expected: Revision) -> Result<Revision> {
        let key = key.to_string();
        let update = Write::Update {
            key,
            value,
            expected,
        };
        Ok(self.committer.write(update).await?.revision())
    }

    async fn delete(&self, key: &str, expected: Revision) -> Result<KeyValue> {
        let key = key.to_string();
        let event = self
            .committer
            .write(Write::Delete { key, expected })
            .await?;
        // The key-value is copied only when a watcher still holds the event.
        match Arc::unwrap_or_clone(event) {
            Event::Delete { kv } => Ok(kv),
            other => Err(backend(format!("delete produced {other:?}"))),
        }
    }

    async fn watch(
        &self,
        prefix: &str,
        after: Revision,
        progress_every: Duration,
    ) -> Result<WatchStream> {
        watch::open(self, prefix, after, progress_every, None).await
    }

    async fn watch_with_progress(
        &self,
        prefix: &str,
        after: Revision,
        progress_every: Duration,
        progress: Arc<tokio::sync::Notify>,
    ) -> Result<WatchStream> {
        watch::open(self, prefix, after, progress_every, Some(progress)).await
    }

    async fn current_revision(&self) -> Result<Revision> {
        // Only this process writes the file (redb locks it), and the writer records a
        // batch's last revision after the commit, before it sends any of its events or
        // answers any of its writes: the same revision a read transaction would see,
        // without one on the blocking pool per call.
        Ok(self.shared.committed.load(Ordering::Acquire))
    }

    async fn compact(&self, revision: Revision) -> Result<()> {
        // In bounded steps, each its own transaction, so writes queued meanwhile commit
        // between them instead of waiting for the whole history to be pruned.
        // The log entries each step removes are read in a read transaction first, so the
        // writer thread only deletes them.
        let counters = self.read(tables::read_counters).await?;
        let mut floor = counters.compacted;
        while revision <= counters.revision && floor < revision {
            let upto = revision.min(floor + COMPACTION_CHUNK);
            let plan = self.plan_compaction(floor, upto).await?;
            self.committer.compact(upto, Some(plan)).await?;
            floor = upto;
        }
        // What was refused (a future or compacted revision) is answered by the writer.
        if revision > counters.revision || revision <= counters.compacted {
            return self.committer.compact(revision, None).await;
        }
        Ok(())
    }

    async fn compacted_revision(&self) -> Result<Revision> {
        self.read(|txn| Ok(tables::read_counters(txn)?.compacted))
            .await
    }

    async fn check(&self) -> Result<()> {
        self.read(|txn| tables::read_counters(txn).map(|_| ()))
            .await
    }
}

impl std::fmt::Debug for EmbeddedStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmbeddedStore").finish_non_exhaustive()
    }
}
