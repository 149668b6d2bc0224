//! Embedded storage group commit: one writer thread takes every queued write, applies them
//! in order in one redb transaction, commits once (one fsync), publishes the events in
//! revision order and only then answers each caller with its own outcome.

use std::sync::atomic::Ordering;
use std::sync::{Arc, mpsc};
use std::thread::JoinHandle;

use tokio::sync::{broadcast, oneshot};

use super::Shared;
use super::tables::backend;
use super::write::{self, Compaction, Tables, Write};
use crate::storage::{Event, Result, Revision, StorageError};

/// At most this many writes share one transaction, so one commit stays short.
const MAX_BATCH_WRITES: usize = 1024;
/// At most this many key and value bytes share one transaction.
const MAX_BATCH_BYTES: usize = 16 << 20;

type Reply<T> = oneshot::Sender<Result<T>>;

/// What the writer thread is asked to do.
enum Job {
    Write {
        write: Write,
        reply: Reply<Arc<Event>>,
    },
    /// Runs alone, in its own transaction, between two batches; the log entries it
    /// removes are usually read beforehand, outside the writer (`planned`).
    Compact {
        revision: Revision,
        planned: Option<Compaction>,
        reply: Reply<()>,
    },
}

/// A write waiting in the batch being built, with the caller to answer.
type Pending = (Write, Reply<Arc<Event>>);

/// The handle on the writer thread; dropping it finishes the queued jobs and joins the
/// thread, so the database is closed once the store is gone.
pub(super) struct Committer {
    jobs: Option<mpsc::Sender<Job>>,
    thread: Option<JoinHandle<()>>,
}

impl Committer {
    pub(super) fn start(
        shared: Arc<Shared>,
        events: broadcast::Sender<Arc<Event>>,
    ) -> Result<Committer> {
        let (jobs, queue) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("embedded-store-writer".into())
            .spawn(move || run(&shared, &events, &queue))
            .map_err(|e| backend(format!("cannot start the store writer: {e}")))?;
        Ok(Committer {
            jobs: Some(jobs),
            thread: Some(thread),
        })
    }

    /// Queues one write and waits for the commit that made it durable. A cancelled caller
    /// does not cancel the write.
    pub(super) async fn write(&self, write: Write) -> Result<Arc<Event>> {
        let (reply, answer) = oneshot::channel();
        self.submit(Job::Write { write, reply })?;
        answer.await.map_err(|_| stopped())?
    }

    /// Compacts to `revision`, with the removals `planned` outside the writer when given.
    pub(super) async fn compact(
        &self,
        revision: Revision,
        planned: Option<Compaction>,
    ) -> Result<()> {
        let (reply, answer) = oneshot::channel();
        self.submit(Job::Compact {
            revision,
            planned,
            reply,
        })?;
        answer.await.map_err(|_| stopped())?
    }

    fn submit(&self, job: Job) -> Result<()> {
        let jobs = self.jobs.as_ref().ok_or_else(stopped)?;
        jobs.send(job).map_err(|_| stopped())
    }
}

impl Drop for Committer {
    fn drop(&mut self) {
        // Closing the queue ends the thread once it has answered what was queued.
        self.jobs.take();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn stopped() -> StorageError {
    StorageError::Unavailable("the embedded store writer has stopped".into())
}

/// The writer thread: until the queue closes, commits each run of queued writes together.
fn run(shared: &Shared, events: &broadcast::Sender<Arc<Event>>, queue: &mpsc::Receiver<Job>) {
    let mut held = None;
    while let Some(job) = held.take().or_else(|| queue.recv().ok()) {
        match job {
            Job::Compact {
                revision,
                planned,
                reply,
            } => {
                let _ = reply.send(compact(shared, revision, planned));
            }
            Job::Write { write, reply } => {
                let (batch, next) = gather(queue, (write, reply));
                held = next;
                commit(shared, events, batch);
            }
        }
    }
}

/// The batch that starts with `first`: every write queued behind it, up to the limits;
/// a compaction ends the batch and is handed back to run after it.
fn gather(queue: &mpsc::Receiver<Job>, first: Pending) -> (Vec<Pending>, Option<Job>) {
    let mut bytes = first.0.size();
    let mut batch = vec![first];
    while batch.len() < MAX_BATCH_WRITES && bytes < MAX_BATCH_BYTES {
        match queue.try_recv() {
            Ok(Job::Write { write, reply }) => {
                bytes += write.size();
                batch.push((write, reply));
            }
            Ok(other) => return (batch, Some(other)),
            Err(_) => break,
        }
    }
    (batch, None)
}

/// Commits `batch` in one transaction, publishes its events in revision order, then
/// answers every caller. A failed precondition fails only its own write; a backend
/// failure fails the whole batch, of which nothing was then written.
fn commit(shared: &Shared, events: &broadcast::Sender<Arc<Event>>, batch: Vec<Pending>) {
    let (writes, replies): (Vec<_>, Vec<_>) = batch.into_iter().unzip();
    match apply_all(shared, writes) {
        Ok(outcomes) => {
            // Before any event goes out: a revision a client can have seen is never
            // ahead of the store's current one.
            if let Some(last) = outcomes.iter().flatten().map(Event::revision).max() {
                shared.committed.store(last, Ordering::Release);
            }
            let outcomes: Vec<_> = outcomes.into_iter().map(|o| o.map(Arc::new)).collect();
            for event in outcomes.iter().flatten() {
                // No receivers is not an error: nobody is watching.
                let _ = events.send(event.clone());
                shared.published.store(event.revision(), Ordering::Release);
            }
            for (reply, outcome) in replies.into_iter().zip(outcomes) {
                let _ = reply.send(outcome);
            }
        }
        Err(err) => {
            for reply in replies {
                let _ = reply.send(Err(err.clone()));
            }
        }
    }
}

/// Applies `writes` in order in one write transaction and commits it (durably: redb's
/// default `Durability::Immediate` fsyncs before `commit` returns) unless none succeeded.
fn apply_all(shared: &Shared, writes: Vec<Write>) -> Result<Vec<Result<Event>>> {
    let txn = shared.db.begin_write().map_err(backend)?;
    let outcomes = match apply_in(&txn, writes) {
        Ok(outcomes) => outcomes,
        Err(err) => {
            txn.abort().map_err(backend)?;
            return Err(err);
        }
    };
    if outcomes.iter().any(Result::is_ok) {
        txn.commit().map_err(backend)?;
        shared.commits.fetch_add(1, Ordering::Relaxed);
    } else {
        txn.abort().map_err(backend)?;
    }
    Ok(outcomes)
}

fn apply_in(txn: &redb::WriteTransaction, writes: Vec<Write>) -> Result<Vec<Result<Event>>> {
    let mut tables = Tables::open(txn)?;
    let outcomes = writes
        .into_iter()
        .map(|w| tables.apply(w))
        .collect::<Result<Vec<_>>>()?;
    tables.finish()?;
    Ok(outcomes)
}

fn compact(shared: &Shared, revision: Revision, planned: Option<Compaction>) -> Result<()> {
    let txn = shared.db.begin_write().map_err(backend)?;
    if let Err(err) = write::compact(&txn, revision, planned) {
        txn.abort().map_err(backend)?;
        return Err(err);
    }
    txn.commit().map_err(backend)?;
    shared.commits.fetch_add(1, Ordering::Relaxed);
    Ok(())
}

/// Commits `writes` as one batch, exactly as the writer thread would, and returns each
/// write's outcome: lets tests build a batch deterministically.
#[cfg(test)]
pub(super) async fn commit_batch(
    store: &super::EmbeddedStore,
    writes: Vec<Write>,
) -> Vec<Result<Arc<Event>>> {
    let (batch, answers): (Vec<_>, Vec<_>) = writes
        .into_iter()
        .map(|w| {
            let (reply, answer) = oneshot::channel();
            ((w, reply), answer)
        })
        .unzip();
    let (shared, events) = (store.shared.clone(), store.events.clone());
    let task = tokio::task::spawn_blocking(move || commit(&shared, &events, batch));
    let mut outcomes = Vec::new();
    if task.await.is_ok() {
        for answer in answers {
            outcomes.push(answer.await.unwrap_or_else(|_| Err(stopped())));
        }
    }
    outcomes
}
