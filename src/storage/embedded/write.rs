//! Embedded storage writes: one write transaction per create, update, delete or compaction.

use std::collections::BTreeSet;

use redb::{ReadableTable, WriteTransaction};

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
}

/// Applies `write` at the next revision inside `txn` and returns its event.
/// On error nothing was written and the caller must abort `txn`.
pub(super) fn apply(txn: &WriteTransaction, write: Write) -> Result<Event> {
    let mut meta = txn.open_table(META).map_err(backend)?;
    let mut live = txn.open_table(CURRENT).map_err(backend)?;
    let rev = counters(&meta)?.revision + 1;
    let existing = current(&live, write.key())?;
    let event = decide(write, existing, rev)?;
    let (tombstone, kv) = match &event {
        Event::Put { kv, .. } => (false, kv),
        Event::Delete { kv } => (true, kv),
        Event::Progress { .. } => return Err(backend("a progress event is not a write")),
    };
    let key = kv.key.as_str();
    if tombstone {
        live.remove(key).map_err(backend)?;
    } else {
        let row = (kv.create_revision, rev, kv.value.as_slice());
        live.insert(key, row).map_err(backend)?;
    }
    let mut history = txn.open_table(HISTORY).map_err(backend)?;
    let record = (tombstone, kv.create_revision, kv.value.as_slice());
    history.insert((key, rev), record).map_err(backend)?;
    txn.open_table(LOG)
        .map_err(backend)?
        .insert(rev, key)
        .map_err(backend)?;
    meta.insert(REVISION, rev).map_err(backend)?;
    Ok(event)
}

/// Checks `write` against the key's current state and builds the resulting event.
fn decide(write: Write, existing: Option<KeyValue>, rev: Revision) -> Result<Event> {
    match (write, existing) {
        (Write::Create { key, .. }, Some(_)) => Err(StorageError::AlreadyExists { key }),
        (Write::Create { key, value }, None) => Ok(Event::Put {
            kv: KeyValue {
                key,
                value,
                create_revision: rev,
                mod_revision: rev,
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
                key,
                value,
                create_revision: cur.create_revision,
                mod_revision: rev,
            },
            prev_value: Some(cur.value),
        }),
        (Write::Delete { .. }, Some(cur)) => Ok(Event::Delete {
            kv: KeyValue {
                mod_revision: rev,
                ..cur
            },
        }),
    }
}

/// Forgets every version not needed to read at revisions `>= rev` and every log entry
/// below `rev`, then records `rev` as the compacted revision.
pub(super) fn compact(txn: &WriteTransaction, rev: Revision) -> Result<()> {
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
    let mut touched = BTreeSet::new();
    let mut revs = Vec::new();
    for entry in log.range(..rev).map_err(backend)? {
        let (r, key) = entry.map_err(backend)?;
        revs.push(r.value());
        touched.insert(key.value().to_string());
    }
    let mut history = txn.open_table(HISTORY).map_err(backend)?;
    for key in &touched {
        prune_key(&mut history, key, rev)?;
    }
    for r in revs {
        log.remove(r).map_err(backend)?;
    }
    meta.insert(COMPACTED, rev).map_err(backend)?;
    Ok(())
}

/// Keeps only the newest version of `key` at or below `rev`, and drops even that one when
/// it is a tombstone older than `rev` (a tombstone at `rev` is still a watchable event).
fn prune_key(
    history: &mut redb::Table<'_, (&'static str, i64), (bool, i64, &'static [u8])>,
    key: &str,
    rev: Revision,
) -> Result<()> {
    let Some(newest) = newest_version(history, key, i64::MIN, rev)? else {
        return Ok(());
    };
    let keep_from = if newest.tombstone && newest.kv.mod_revision < rev {
        newest.kv.mod_revision + 1
    } else {
        newest.kv.mod_revision
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
        let (key, value) = ("k".to_string(), value.to_vec());
        KeyValue {
            key,
            value,
            create_revision,
            mod_revision,
        }
    }

    fn put(value: &[u8], prev: Option<&[u8]>, create: Revision) -> Result<Event> {
        let prev_value = prev.map(<[u8]>::to_vec);
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
