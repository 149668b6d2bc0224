//! etcd backend reads and writes: get and range, and create, update and delete as
//! compare-and-swap transactions (kube's etcd3 store, `pkg/storage/etcd3/store.go`).
//!
//! A failed compare returns the key's current value from the same transaction, so a
//! `Conflict` carries exactly what made the write fail.

use etcd_client::{
    Compare, CompareOp, DeleteOptions, GetOptions, GetResponse, KvClient, ResponseHeader, Txn,
    TxnOp, TxnOpResponse, TxnResponse,
};

use super::Shared;
use super::errors::{Failure, backend, call, call_plain};
use crate::storage::{KeyValue, RangeRequest, RangeResult, Result, Revision, StorageError};

/// The key read when only the response header matters (revision, reachability).
pub(super) const PROBE_KEY: &str = "health";

impl Shared {
    fn kv(&self) -> KvClient {
        self.kv.clone()
    }

    /// Reads `key` at the current revision.
    pub(super) async fn get(&self, key: &str) -> Result<Option<KeyValue>> {
        let mut kv = self.kv();
        let resp = call_plain(self.request_timeout, "get", kv.get(key, None)).await?;
        resp.kvs().first().map(key_value).transpose()
    }

    /// Reads the keys under a prefix from the start key on, at one revision.
    pub(super) async fn range(&self, req: RangeRequest) -> Result<RangeResult> {
        let (prefix_key, end) = prefix_range(&req.prefix);
        let start = match &req.start_key {
            Some(start) if start.as_bytes() > prefix_key.as_slice() => start.as_bytes().to_vec(),
            _ => prefix_key,
        };
        let limit = i64::try_from(req.limit).unwrap_or(i64::MAX);
        let options = GetOptions::new()
            .with_range(end)
            .with_limit(limit)
            .with_revision(req.revision);
        let mut kv = self.kv();
        let resp = match call(self.request_timeout, "range", kv.get(start, Some(options))).await {
            Ok(resp) => resp,
            Err(failure) => return Err(self.revision_error(failure, req.revision).await),
        };
        let revision = match req.revision {
            0 => header_revision(resp.header())?,
            asked => asked,
        };
        let kvs = resp.kvs().iter().map(key_value).collect::<Result<_>>()?;
        Ok(RangeResult {
            kvs,
            more: resp.more(),
            revision,
        })
    }

    /// Completes a revision failure of a read or compaction at `requested`.
    pub(super) async fn revision_error(
        &self,
        failure: Failure,
        requested: Revision,
    ) -> StorageError {
        let outcome = match failure {
            Failure::Storage(err) => return err,
            Failure::Compacted => {
                self.compacted_revision()
                    .await
                    .map(|compacted| StorageError::Compacted {
                        requested,
                        compacted,
                    })
            }
            Failure::FutureRevision => self
                .current_revision()
                .await
                .map(|current| StorageError::FutureRevision { requested, current }),
        };
        outcome.unwrap_or_else(|err| err)
    }

    /// The current revision, from the header of a one-key count.
    pub(super) async fn current_revision(&self) -> Result<Revision> {
        let resp = self
            .probe(0, "current revision")
            .await
            .map_err(|f| f.into_storage("current revision"))?;
        header_revision(resp.header())
    }

    /// A one-key count at `revision` (0 = current): the cheapest linearizable read.
    pub(super) async fn probe(
        &self,
        revision: Revision,
        what: &str,
    ) -> Result<GetResponse, Failure> {
        let options = GetOptions::new().with_count_only().with_revision(revision);
        let mut kv = self.kv();
        call(self.request_timeout, what, kv.get(PROBE_KEY, Some(options))).await
    }

    /// Writes a new key: the transaction puts only if the key was never created (or deleted).
    pub(super) async fn create(&self, key: &str, value: Vec<u8>) -> Result<Revision> {
        let txn = Txn::new()
            .when([Compare::create_revision(key, CompareOp::Equal, 0)])
            .and_then([TxnOp::put(key, value, None)]);
        let resp = self.txn("create", txn).await?;
        if !resp.succeeded() {
            return Err(StorageError::AlreadyExists { key: key.into() });
        }
        header_revision(resp.header())
    }

    /// Replaces a key whose mod revision is `expected`.
    pub(super) async fn update(
        &self,
        key: &str,
        value: Vec<u8>,
        expected: Revision,
    ) -> Result<Revision> {
        let txn = Txn::new()
            .when(guard(key, expected))
            .and_then([TxnOp::put(key, value, None)])
            .or_else([TxnOp::get(key, None)]);
        let resp = self.txn("update", txn).await?;
        if !resp.succeeded() {
            return Err(failed_compare(key, &resp)?);
        }
        header_revision(resp.header())
    }

    /// Deletes a key whose mod revision is `expected` (0 = any); returns the deleted value
    /// with the delete's revision.
    pub(super) async fn delete(&self, key: &str, expected: Revision) -> Result<KeyValue> {
        let guards = if expected == 0 {
            vec![Compare::create_revision(key, CompareOp::Greater, 0)]
        } else {
            guard(key, expected)
        };
        let txn = Txn::new()
            .when(guards)
            .and_then([TxnOp::delete(
                key,
                Some(DeleteOptions::new().with_prev_key()),
            )])
            .or_else([TxnOp::get(key, None)]);
        let resp = self.txn("delete", txn).await?;
        if !resp.succeeded() {
            return Err(failed_compare(key, &resp)?);
        }
        let revision = header_revision(resp.header())?;
        let deleted = resp.op_responses().into_iter().find_map(|op| match op {
            TxnOpResponse::Delete(del) => del.prev_kvs().first().map(key_value),
            _ => None,
        });
        let mut kv = deleted.ok_or_else(|| backend("etcd delete returned no previous value"))??;
        kv.mod_revision = revision;
        Ok(kv)
    }

    async fn txn(&self, what: &str, txn: Txn) -> Result<TxnResponse> {
        let mut kv = self.kv();
        call_plain(self.request_timeout, what, kv.txn(txn)).await
    }
}

/// The key exists and was last modified at `expected`.
fn guard(key: &str, expected: Revision) -> Vec<Compare> {
    vec![
        Compare::create_revision(key, CompareOp::Greater, 0),
        Compare::mod_revision(key, CompareOp::Equal, expected),
    ]
}

/// The error for a transaction whose compare failed: its else branch read the key.
fn failed_compare(key: &str, resp: &TxnResponse) -> Result<StorageError> {
    let current = resp.op_responses().into_iter().find_map(|op| match op {
        TxnOpResponse::Get(get) => Some(get.kvs().first().map(key_value)),
        _ => None,
    });
    match current {
        Some(Some(kv)) => Ok(StorageError::Conflict {
            key: key.into(),
            current: Box::new(kv?),
        }),
        Some(None) => Ok(StorageError::NotFound { key: key.into() }),
        None => Err(backend("etcd transaction failed without reading the key")),
    }
}

pub(super) fn header_revision(header: Option<&ResponseHeader>) -> Result<Revision> {
    header
        .map(ResponseHeader::revision)
        .ok_or_else(|| backend("etcd response without a header"))
}

pub(super) fn key_value(kv: &etcd_client::KeyValue) -> Result<KeyValue> {
    let key = std::str::from_utf8(kv.key())
        .map_err(|err| backend(format!("etcd key is not UTF-8: {err}")))?;
    Ok(KeyValue {
        key: key.into(),
        value: bytes::Bytes::copy_from_slice(kv.value()),
        create_revision: kv.create_revision(),
        mod_revision: kv.mod_revision(),
        memo: Default::default(),
        stale: false,
    })
}

/// The etcd key range `[key, end)` of every key starting with `prefix`. An empty prefix
/// (or one of only 0xff bytes) reaches to the end of the keyspace (`end = "\0"`).
pub(super) fn prefix_range(prefix: &str) -> (Vec<u8>, Vec<u8>) {
    let mut end = prefix.as_bytes().to_vec();
    while let Some(last) = end.pop() {
        if last < 0xff {
            end.push(last + 1);
            let key = prefix.as_bytes().to_vec();
            return (key, end);
        }
    }
    let key = if prefix.is_empty() {
        vec![0]
    } else {
        prefix.as_bytes().to_vec()
    };
    (key, vec![0])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_range_bounds_cover_prefix_only() {
        let cases: [(&str, &[u8], &[u8]); 4] = [
            ("/registry/", b"/registry/", b"/registry0"),
            ("/a/b", b"/a/b", b"/a/c"),
            ("", b"\0", b"\0"),
            ("\u{7f}", b"\x7f", b"\x80"),
        ];
        for (prefix, key, end) in cases {
            assert_eq!(
                prefix_range(prefix),
                (key.to_vec(), end.to_vec()),
                "{prefix:?}"
            );
        }
    }
}
