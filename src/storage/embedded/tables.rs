//! Embedded storage layout: the redb tables and the read-side queries over them.
//!
//! - `meta`: the counters (`revision`, the latest write; `compacted`, the oldest readable one).
//! - `current`: every live key at the current revision, for fast reads of "now".
//! - `history`: every superseded version by (key, mod revision), so a create stores its
//!   value once; a delete is a tombstone that keeps the deleted value, so reads at older
//!   revisions and delete events see the last value. A version of a key is in `current`
//!   or in `history`; files written before this layout also hold the live version in
//!   `history`, the same version twice, which every reader accepts.
//! - `log`: revision → key, the order watches replay history in.

use std::ops::Bound;

use redb::{ReadTransaction, ReadableTable, TableDefinition};

use crate::storage::{Event, KeyValue, RangeRequest, RangeResult, Result, Revision, StorageError};

pub(super) const META: TableDefinition<&str, i64> = TableDefinition::new("meta");
/// key → (create revision, mod revision, value).
pub(super) const CURRENT: TableDefinition<&str, (i64, i64, &[u8])> =
    TableDefinition::new("current");
/// (key, mod revision) → (tombstone, create revision, value).
pub(super) const HISTORY: TableDefinition<(&str, i64), (bool, i64, &[u8])> =
    TableDefinition::new("history");
/// revision → key written at that revision.
pub(super) const LOG: TableDefinition<i64, &str> = TableDefinition::new("log");

pub(super) const REVISION: &str = "revision";
pub(super) const COMPACTED: &str = "compacted";

/// The revision of an empty store, as in etcd (so that no object ever has version 0).
pub(super) const INITIAL_REVISION: Revision = 1;

/// Maps any redb failure to [`StorageError::Backend`].
pub(super) fn backend(err: impl std::fmt::Display) -> StorageError {
    StorageError::Backend(err.to_string())
}

/// The store's counters as of one transaction.
#[derive(Clone, Copy, Debug)]
pub(super) struct Counters {
    pub revision: Revision,
    pub compacted: Revision,
}

pub(super) fn counters(meta: &impl ReadableTable<&'static str, i64>) -> Result<Counters> {
    let read = |name: &str| -> Result<Option<i64>> {
        Ok(meta.get(name).map_err(backend)?.map(|v| v.value()))
    };
    Ok(Counters {
        revision: read(REVISION)?.unwrap_or(INITIAL_REVISION),
        compacted: read(COMPACTED)?.unwrap_or(0),
    })
}

pub(super) fn read_counters(txn: &ReadTransaction) -> Result<Counters> {
    counters(&txn.open_table(META).map_err(backend)?)
}

/// One version of a key as the history table stores it.
pub(super) struct Version {
    pub tombstone: bool,
    pub kv: KeyValue,
}

fn version(
    key: &str,
    mod_revision: Revision,
    (tombstone, create, value): (bool, i64, &[u8]),
) -> Version {
    Version {
        tombstone,
        kv: KeyValue {
            key: key.into(),
            value: bytes::Bytes::copy_from_slice(value),
            create_revision: create,
            mod_revision,
            memo: Default::default(),
            stale: false,
        },
    }
}

/// The newest version of `key` with a mod revision in `[from, to]`.
pub(super) fn newest_version(
    history: &impl ReadableTable<(&'static str, i64), (bool, i64, &'static [u8])>,
    key: &str,
    from: Revision,
    to: Revision,
) -> Result<Option<Version>> {
    let mut versions = history.range((key, from)..=(key, to)).map_err(backend)?;
    match versions.next_back() {
        None => Ok(None),
        Some(entry) => {
            let (k, v) = entry.map_err(backend)?;
            Ok(Some(version(key, k.value().1, v.value())))
        }
    }
}

/// The live key at the current revision.
pub(super) fn current(
    table: &impl ReadableTable<&'static str, (i64, i64, &'static [u8])>,
    key: &str,
) -> Result<Option<KeyValue>> {
    current_if(table, key, |_| true)
}

/// The live key if its mod revision passes `wanted` (its value is copied only then).
fn current_if(
    table: &impl ReadableTable<&'static str, (i64, i64, &'static [u8])>,
    key: &str,
    wanted: impl Fn(Revision) -> bool,
) -> Result<Option<KeyValue>> {
    let Some(guard) = table.get(key).map_err(backend)? else {
        return Ok(None);
    };
    let (create_revision, mod_revision, value) = guard.value();
    Ok(wanted(mod_revision).then(|| KeyValue {
        key: key.into(),
        value: bytes::Bytes::copy_from_slice(value),
        create_revision,
        mod_revision,
        memo: Default::default(),
        stale: false,
    }))
}

pub(super) fn get(txn: &ReadTransaction, key: &str) -> Result<Option<KeyValue>> {
    current(&txn.open_table(CURRENT).map_err(backend)?, key)
}

/// Checks a read revision against the counters; 0 means the current revision.
pub(super) fn resolve(at: Revision, counters: Counters) -> Result<Revision> {
    let at = if at == 0 { counters.revision } else { at };
    if at > counters.revision {
        return Err(StorageError::FutureRevision {
            requested: at,
            current: counters.revision,
        });
    }
    if at < counters.compacted {
        return Err(StorageError::Compacted {
            requested: at,
            compacted: counters.compacted,
        });
    }
    Ok(at)
}

pub(super) fn range(txn: &ReadTransaction, req: &RangeRequest) -> Result<RangeResult> {
    let counters = read_counters(txn)?;
    let at = resolve(req.revision, counters)?;
    let start = match &req.start_key {
        Some(s) if s.as_str() > req.prefix.as_str() => s.clone(),
        _ => req.prefix.clone(),
    };
    let (kvs, more) = if at == counters.revision {
        let table = txn.open_table(CURRENT).map_err(backend)?;
        let rows = table
            .range(start.as_str()..)
            .map_err(backend)?
            .map(|entry| {
                let (k, v) = entry.map_err(backend)?;
                let (create_revision, mod_revision, value) = v.value();
                Ok(KeyValue {
                    key: k.value().into(),
                    value: bytes::Bytes::copy_from_slice(value),
                    create_revision,
                    mod_revision,
                    memo: Default::default(),
                    stale: false,
                })
            });
        page(rows, &req.prefix, req.limit)?
    } else {
        let live = txn.open_table(CURRENT).map_err(backend)?;
        let history = txn.open_table(HISTORY).map_err(backend)?;
        page(
            HistoryScan::new(&live, &history, start, at),
            &req.prefix,
            req.limit,
        )?
    };
    Ok(RangeResult {
        kvs,
        more,
        revision: at,
    })
}

/// Takes up to `limit` (0 = all) rows under `prefix` and says whether more remain.
fn page(
    rows: impl Iterator<Item = Result<KeyValue>>,
    prefix: &str,
    limit: usize,
) -> Result<(Vec<KeyValue>, bool)> {
    let mut kvs = Vec::new();
    for row in rows {
        let kv = row?;
        if !kv.key.starts_with(prefix) {
            break;
        }
        if limit > 0 && kvs.len() == limit {
            return Ok((kvs, true));
        }
        kvs.push(kv);
    }
    Ok((kvs, false))
}

/// Iterates keys from `start` in order (the keys of both tables), yielding each key's
/// live version as of `at`: the current one if it is no newer than `at`, else the newest
/// superseded one at or below `at` that is not a tombstone.
struct HistoryScan<'t, L, H> {
    live: &'t L,
    history: &'t H,
    next_after: Option<String>,
    start: String,
    at: Revision,
    done: bool,
}

impl<'t, L, H> HistoryScan<'t, L, H>
where
    L: ReadableTable<&'static str, (i64, i64, &'static [u8])>,
    H: ReadableTable<(&'static str, i64), (bool, i64, &'static [u8])>,
{
    fn new(live: &'t L, history: &'t H, start: String, at: Revision) -> Self {
        HistoryScan {
            live,
            history,
            next_after: None,
            start,
            at,
            done: false,
        }
    }

    /// The first key of either table after the previous one (or at `start`).
    fn next_key(&self) -> Result<Option<String>> {
        let (live_lower, history_lower) = match &self.next_after {
            Some(k) => (
                Bound::Excluded(k.as_str()),
                Bound::Excluded((k.as_str(), i64::MAX)),
            ),
            None => (
                Bound::Included(self.start.as_str()),
                Bound::Included((self.start.as_str(), i64::MIN)),
            ),
        };
        let mut live = self
            .live
            .range::<&str>((live_lower, Bound::Unbounded))
            .map_err(backend)?;
        let live = match live.next() {
            None => None,
            Some(entry) => Some(entry.map_err(backend)?.0.value().to_string()),
        };
        let mut history = self
            .history
            .range::<(&str, i64)>((history_lower, Bound::Unbounded))
            .map_err(backend)?;
        let history = match history.next() {
            None => None,
            Some(entry) => Some(entry.map_err(backend)?.0.value().0.to_string()),
        };
        Ok(match (live, history) {
            (Some(l), Some(h)) => Some(l.min(h)),
            (l, h) => l.or(h),
        })
    }

    fn step(&mut self) -> Result<Option<KeyValue>> {
        while let Some(key) = self.next_key()? {
            let at = self.at;
            let mut found = current_if(self.live, &key, |modified| modified <= at)?;
            if found.is_none() {
                found = newest_version(self.history, &key, i64::MIN, at)?
                    .filter(|v| !v.tombstone)
                    .map(|v| v.kv);
            }
            self.next_after = Some(key);
            if found.is_some() {
                return Ok(found);
            }
        }
        Ok(None)
    }
}

impl<L, H> Iterator for HistoryScan<'_, L, H>
where
    L: ReadableTable<&'static str, (i64, i64, &'static [u8])>,
    H: ReadableTable<(&'static str, i64), (bool, i64, &'static [u8])>,
{
    type Item = Result<KeyValue>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let item = self.step().transpose();
        self.done = !matches!(item, Some(Ok(_)));
        item
    }
}

/// Events on keys under `prefix` with revisions in `(after, min(upto, after + batch)]`,
/// in order, and the last revision that read covered.
pub(super) fn events(
    txn: &ReadTransaction,
    prefix: &str,
    after: Revision,
    upto: Revision,
    batch: i64,
) -> Result<(Vec<Event>, Revision)> {
    let counters = read_counters(txn)?;
    if after + 1 < counters.compacted {
        return Err(StorageError::Compacted {
            requested: after,
            compacted: counters.compacted,
        });
    }
    let end = upto.min(after.saturating_add(batch));
    let log = txn.open_table(LOG).map_err(backend)?;
    let live = txn.open_table(CURRENT).map_err(backend)?;
    let history = txn.open_table(HISTORY).map_err(backend)?;
    let mut out = Vec::new();
    for entry in log.range((after + 1)..=end).map_err(backend)? {
        let (rev, key) = entry.map_err(backend)?;
        let (rev, key) = (rev.value(), key.value());
        if key.starts_with(prefix) {
            out.push(event_at(&live, &history, key, rev, counters.compacted)?);
        }
    }
    Ok((out, end))
}

/// Rebuilds the event written at `rev` on `key`: the version written then is the live
/// one or a superseded one, and the version before it is always superseded.
fn event_at(
    live: &impl ReadableTable<&'static str, (i64, i64, &'static [u8])>,
    history: &impl ReadableTable<(&'static str, i64), (bool, i64, &'static [u8])>,
    key: &str,
    rev: Revision,
    compacted: Revision,
) -> Result<Event> {
    let missing = || backend(format!("history of key {key} at revision {rev} is missing"));
    let written = match current_if(live, key, |modified| modified == rev)? {
        Some(kv) => Version {
            tombstone: false,
            kv,
        },
        None => newest_version(history, key, rev, rev)?.ok_or_else(missing)?,
    };
    if written.tombstone {
        return Ok(Event::Delete { kv: written.kv });
    }
    let prev_value = if written.kv.create_revision == rev {
        None
    } else {
        // Compaction at `rev` forgets the version before it: fail rather than pass the
        // update off as a create (etcd's watch does the same, see the etcd backend).
        let prev = newest_version(history, key, i64::MIN, rev - 1)?.filter(|v| !v.tombstone);
        let prev = prev.ok_or(StorageError::Compacted {
            requested: rev - 1,
            compacted,
        })?;
        Some(prev.kv.value)
    };
    Ok(Event::Put {
        kv: written.kv,
        prev_value,
    })
}
