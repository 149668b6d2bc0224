//! Embedded storage writes: creates, updates and deletes applied to the tables of one write
//! transaction (shared by a batch, see the `commit` module), and compaction.

use std::collections::BTreeSet;

use redb::{ReadableTable, Table, WriteTransaction};

use super::tables::{
    COMPACTED, CURRENT, HISTORY, LOG, META, REVISION, backend, counters, current, newest_version,
};
use crate::storage::{Event, KeyValue, Result, Revision, StorageError};

/// A single-key write.
#[derive(Debug)]
pub(super) enum Write {
    Create {
        key: String,
        value: Vec<u8>,
    },
    Update {
        key: String,
        value: Vec<u8>,
        expected: Revision,
    },
    /// `expected = 0` deletes unconditionally.
    Delete {
        key: String,
        expected: Revision,
    },
}

impl Write {
    fn key(&self) -> &str {
        match self {
            Write::Create { key, .. } | Write::Update { key, .. } | Write::Delete { key, .. } => {
                key
            }
        }
    }

    /// The bytes this write adds to a batch (key and value).
    pub(super) fn size(&self) -> usize {
        match self {
            Write::Create { key, value } | Write::Update { key, value, .. } => {
                key.len() + value.len()
            }
            Write::Delete { key, .. } => key.len(),
        }
    }
}

type Live<'txn> = Table<'txn, &'static str, (i64, i64, &'static [u8])>;
type History<'txn> = Table<'txn, (&'static str, i64), (bool, i64, &'static [u8])>;

/// The tables a batch of writes changes, open once for the whole batch.
pub(super) struct Tables<'txn> {
    meta: Table<'txn, &'static str, i64>,
    live: Live<'txn>,
    history: History<'txn>,
    log: Table<'txn, i64, &'static str>,
    /// The revision of the last write applied (or of the store when none was).
    revision: Revision,
}

impl<'txn> Tables<'txn> {
    pub(super) fn open(txn: &'txn WriteTransaction) -> Result<Tables<'txn>> {
        let meta = txn.open_table(META).map_err(backend)?;
        let revision = counters(&meta)?.revision;
        Ok(Tables {
            meta,
            live: txn.open_table(CURRENT).map_err(backend)?,
            history: txn.open_table(HISTORY).map_err(backend)?,
            log: txn.open_table(LOG).map_err(backend)?,
            revision,
        })
    }

    /// Applies `write` at the next revision and returns its event. The inner error is the
    /// write's own failed precondition (nothing written, the batch goes on); the outer
    /// one is a backend failure after which the transaction must be aborted.
    pub(super) fn apply(&mut self, write: Write) -> Result<Result<Event>> {
        let rev = self.revision + 1;
        let existing = current(&self.live, write.key())?;
        let superseded = existing.as_ref().map(|cur| cur.mod_revision);
        let event = match decide(write, existing, rev) {
            Ok(event) => event,
            Err(failed) => return Ok(Err(failed)),
        };
        let (kv, old_value) = match &event {
            Event::Put { kv, prev_value } => (kv, prev_value.as_ref()),
            Event::Delete { kv } => (kv, Some(&kv.value)),
            Event::Progress { .. } => return Err(backend("a progress event is not a write")),
        };
        let key = &*kv.key;
        // The live version joins the history only when a write supersedes it, so a
        // create stores its value once.
        if let (Some(old_revision), Some(old_value)) = (superseded, old_value) {
            let record = (false, kv.create_revision, &old_value[..]);
            self.history
                .insert((key, old_revision), record)
                .map_err(backend)?;
        }
        if let Event::Delete { .. } = event {
            self.live.remove(key).map_err(backend)?;
            let tombstone = (true, kv.create_revision, &kv.value[..]);
            self.history
                .insert((key, rev), tombstone)
                .map_err(backend)?;
        } else {
            let row = (kv.create_revision, rev, &kv.value[..]);
            self.live.insert(key, row).map_err(backend)?;
        }
        self.log.insert(rev, key).map_err(backend)?;
        self.revision = rev;
        Ok(Ok(event))
    }

    /// Records the revision of the last write applied.
    pub(super) fn finish(mut self) -> Result<()> {
        self.meta.insert(REVISION, self.revision).map_err(backend)?;
        Ok(())
    }
}

/// Checks `write` against the key's current state and builds the resulting event.
fn decide(write: Write, existing: Option<KeyValue>, rev: Revision) -> Result<Event> {
    match (write, existing) {
        (Write::Create { key, .. }, Some(_)) => Err(StorageError::AlreadyExists { key }),
        (Write::Create { key, value }, None) => Ok(Event::Put {
            kv: KeyValue {
                key: key.into(),
                value: value.into(),
                create_revision: rev,
                mod_revision: rev,
                memo: Default::default(),
                stale: false,
            },
            prev_value: None,
        }),
        (Write::Update { key, .. } | Write::Delete { key, .. }, None) => {
            Err(StorageError::NotFound { key })
        }
        (Write::Update { key, expected, .. }, Some(cur)) if cur.mod_revision != expected => {
            Err(StorageError::Conflict {
                key,
                current: Box::new(cur),
            })
        }
        (Write::Delete { key, expected }, Some(cur))
            if expected != 0 && cur.mod_revision != expected =>
        {
            Err(StorageError::Conflict {
                key,
                current: Box::new(cur),
            })
        }
        (Write::Update { key, value, .. }, Some(cur)) => Ok(Event::Put {
            kv: KeyValue {
                key: key.into(),
                value: value.into(),
                create_revision: cur.create_revision,
                mod_revision: rev,
                memo: Default::default(),
                stale: false,
            },
            prev_value: Some(cur.value),
        }),
        (Write::Delete { .. }, Some(cur)) => Ok(Event::Delete {
            kv: KeyValue {
                mod_revision: rev,
                memo: Default::default(),
                stale: false,
                ..cur
            },
        }),
    }
}

/// Forgets every version not needed to read at revisions `>= rev` and every log entry
/// below `rev`, then records `rev` as the compacted revision.
pub(super) fn compact(
    txn: &WriteTransaction,
    rev: Revision,
    planned: Option<Compaction>,
) -> Result<()> {
    let mut meta = txn.open_table(META).map_err(backend)?;
    let counters = counters(&meta)?;
    if rev > counters.revision {
        return Err(StorageError::FutureRevision {
            requested: rev,
            current: counters.revision,
        });
    }
    if rev <= counters.compacted {
        return Err(StorageError::Compacted {
            requested: rev,
            compacted: counters.compacted,
        });
    }
    let mut log = txn.open_table(LOG).map_err(backend)?;
    // A plan read before another compaction moved the floor is read again here.
    let plan = match planned {
        Some(plan) if plan.floor == counters.compacted && plan.upto == rev => plan,
        _ => plan_compaction(&log, counters.compacted, rev)?,
    };
    let live = txn.open_table(CURRENT).map_err(backend)?;
    let mut history = txn.open_table(HISTORY).map_err(backend)?;
    for key in &plan.keys {
        let live_since = current_revision_of(&live, key)?;
        prune_key(&mut history, key, rev, live_since)?;
    }
    for r in plan.revs {
        log.remove(r).map_err(backend)?;
    }
    meta.insert(COMPACTED, rev).map_err(backend)?;
    Ok(())
}

/// What compacting the history below `upto` removes, read from the log: the log is
/// append-only above the compacted floor, so a plan read in a read transaction (outside
/// the writer thread) stays exact as long as the floor has not moved.
#[derive(Debug)]
pub(super) struct Compaction {
    floor: Revision,
    upto: Revision,
    pub(super) revs: Vec<Revision>,
    keys: BTreeSet<String>,
}

/// The compaction of the log entries in `[floor, upto)`.
pub(super) fn plan_compaction(
    log: &impl ReadableTable<i64, &'static str>,
    floor: Revision,
    upto: Revision,
) -> Result<Compaction> {
    let mut plan = Compaction {
        floor,
        upto,
        revs: Vec::new(),
        keys: BTreeSet::new(),
    };
    for entry in log.range(floor..upto).map_err(backend)? {
        let (r, key) = entry.map_err(backend)?;
        plan.revs.push(r.value());
        plan.keys.insert(key.value().to_string());
    }
    Ok(plan)
}

/// The mod revision of `key`'s live version, if it is live.
fn current_revision_of(live: &Live<'_>, key: &str) -> Result<Option<Revision>> {
    Ok(live.get(key).map_err(backend)?.map(|row| row.value().1))
}

/// Keeps only the versions of `key` that reads at `rev` or later can see: none of the
/// history when the live version (modified at `live_since`) is already at or below `rev`,
/// else the newest version at or below `rev`, dropping even that one when it is a
/// tombstone older than `rev` (a tombstone at `rev` is still a watchable event).
fn prune_key(
    history: &mut History<'_>,
    key: &str,
    rev: Revision,
    live_since: Option<Revision>,
) -> Result<()> {
    let keep_from = match live_since {
        Some(live) if live <= rev => i64::MAX,
        _ => match newest_version(history, key, i64::MIN, rev)? {
            None => return Ok(()),
            Some(newest) if newest.tombstone && newest.kv.mod_revision < rev => {
                newest.kv.mod_revision + 1
            }
            Some(newest) => newest.kv.mod_revision,
        },
    };
    let mut stale = Vec::new();
    for entry in history
        .range((key, i64::MIN)..(key, keep_from))
        .map_err(backend)?
    {
        stale.push(entry.map_err(backend)?.0.value().1);
    }
    for r in stale {
        history.remove((key, r)).map_err(backend)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kv(value: &[u8], create_revision: Revision, mod_revision: Revision) -> KeyValue {
        let (key, value) = ("k".into(), value.to_vec());
        KeyValue {
            key,
            value: value.into(),
            create_revision,
            mod_revision,
            memo: Default::default(),
            stale: false,
        }
    }

    fn put(value: &[u8], prev: Option<&[u8]>, create: Revision) -> Result<Event> {
        let prev_value = prev.map(bytes::Bytes::copy_from_slice);
        Ok(Event::Put {
            kv: kv(value, create, 9),
            prev_value,
        })
    }

    fn create() -> Write {
        Write::Create {
            key: "k".into(),
            value: b"v".to_vec(),
        }
    }

    fn update(expected: Revision) -> Write {
        Write::Update {
            key: "k".into(),
            value: b"v".to_vec(),
            expected,
        }
    }

    fn delete(expected: Revision) -> Write {
        Write::Delete {
            key: "k".into(),
            expected,
        }
    }

    #[test]
    fn decide_write_against_existing_event_or_error() {
        let old = Some(kv(b"old", 3, 5));
        let conflict = || {
            Err(StorageError::Conflict {
                key: "k".into(),
                current: Box::new(kv(b"old", 3, 5)),
            })
        };
        let not_found = || Err(StorageError::NotFound { key: "k".into() });
        let deleted = || {
            Ok(Event::Delete {
                kv: kv(b"old", 3, 9),
            })
        };
        let cases: Vec<(&str, Write, Option<KeyValue>, Result<Event>)> = vec![
            ("create absent", create(), None, put(b"v", None, 9)),
            (
                "create present",
                create(),
                old.clone(),
                Err(StorageError::AlreadyExists { key: "k".into() }),
            ),
            (
                "update matching",
                update(5),
                old.clone(),
                put(b"v", Some(b"old"), 3),
            ),
            ("update stale", update(4), old.clone(), conflict()),
            ("update absent", update(5), None, not_found()),
            ("delete matching", delete(5), old.clone(), deleted()),
            ("delete unconditional", delete(0), old.clone(), deleted()),
            ("delete stale", delete(4), old, conflict()),
            ("delete absent", delete(0), None, not_found()),
        ];
        for (name, write, existing, want) in cases {
            assert_eq!(decide(write, existing, 9), want, "{name}");
        }
    }
}
