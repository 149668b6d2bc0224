//! Table layout tests: a version is stored once (live in `current`, superseded in
//! `history`), and files of the earlier layout, which also kept the live version in
//! `history`, read, replay and compact the same.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use std::time::Duration;

use futures::StreamExt;
use redb::{ReadableTable, ReadableTableMetadata};

use super::tables::{CURRENT, HISTORY};
use super::tests::fresh;
use super::*;
use crate::storage::RangeRequest;

/// `history` as (key, mod revision, tombstone, value) rows, in key order.
fn history_rows(store: &EmbeddedStore) -> Vec<(String, Revision, bool, Vec<u8>)> {
    let txn = store.shared.db.begin_read().unwrap();
    let table = txn.open_table(HISTORY).unwrap();
    table
        .iter()
        .unwrap()
        .map(|row| {
            let (k, v) = row.unwrap();
            let ((key, rev), (tombstone, _, value)) = (k.value(), v.value());
            (key.to_string(), rev, tombstone, value.to_vec())
        })
        .collect()
}

/// Rewrites the file as the earlier layout left it: every live version in `history` too.
fn copy_live_into_history(store: &EmbeddedStore) {
    let txn = store.shared.db.begin_write().unwrap();
    {
        let live = txn.open_table(CURRENT).unwrap();
        let mut history = txn.open_table(HISTORY).unwrap();
        for row in live.iter().unwrap() {
            let (k, v) = row.unwrap();
            let (create, modified, value) = v.value();
            history
                .insert((k.value(), modified), (false, create, value))
                .unwrap();
        }
    }
    txn.commit().unwrap();
}

fn range_at(prefix: &str, revision: Revision) -> RangeRequest {
    RangeRequest {
        prefix: prefix.into(),
        revision,
        ..Default::default()
    }
}

/// Every key's state at every revision in `from..=to`, and the events replayed from
/// `from - 1`.
async fn snapshots(store: &EmbeddedStore, from: Revision, to: Revision) -> Vec<String> {
    let mut seen = Vec::new();
    for rev in from..=to {
        let got = store.range(range_at("/l/", rev)).await.unwrap();
        seen.push(format!("{rev}: {:?}", got.kvs));
    }
    let mut watch = store
        .watch("/l/", from - 1, Duration::from_secs(3600))
        .await
        .unwrap();
    for _ in from..=to {
        let event = tokio::time::timeout(Duration::from_secs(20), watch.next()).await;
        seen.push(format!("{:?}", event.unwrap().unwrap().unwrap()));
    }
    seen
}

/// Creates a, b, c; updates a twice; deletes b; recreates b.
async fn write_sample(store: &EmbeddedStore) -> (Revision, Revision) {
    let first = store.create("/l/a", b"a1".to_vec()).await.unwrap();
    let rb = store.create("/l/b", b"b1".to_vec()).await.unwrap();
    store.create("/l/c", b"c1".to_vec()).await.unwrap();
    let ra = store.update("/l/a", b"a2".to_vec(), first).await.unwrap();
    store.update("/l/a", b"a3".to_vec(), ra).await.unwrap();
    store.delete("/l/b", rb).await.unwrap();
    let last = store.create("/l/b", b"b2".to_vec()).await.unwrap();
    (first, last)
}

#[tokio::test]
async fn history_create_only_live_nothing_superseded() {
    let (_dir, store) = fresh();
    store.create("/l/a", b"a1".to_vec()).await.unwrap();
    assert!(
        history_rows(&store).is_empty(),
        "a create writes its value once"
    );
}

#[tokio::test]
async fn history_update_and_delete_keep_superseded_versions_once() {
    let (_dir, store) = fresh();
    let r1 = store.create("/l/a", b"a1".to_vec()).await.unwrap();
    let r2 = store.update("/l/a", b"a2".to_vec(), r1).await.unwrap();
    let rows = history_rows(&store);
    assert_eq!(rows, [("/l/a".into(), r1, false, b"a1".to_vec())]);
    let r3 = store.delete("/l/a", r2).await.unwrap().mod_revision;
    assert_eq!(
        history_rows(&store),
        [
            ("/l/a".into(), r1, false, b"a1".to_vec()),
            ("/l/a".into(), r2, false, b"a2".to_vec()),
            ("/l/a".into(), r3, true, b"a2".to_vec()),
        ]
    );
    let txn = store.shared.db.begin_read().unwrap();
    assert!(txn.open_table(CURRENT).unwrap().is_empty().unwrap());
}

#[tokio::test]
async fn earlier_layout_live_version_twice_reads_and_replays_same() {
    let (_dir, store) = fresh();
    let (first, last) = write_sample(&store).await;
    let want = snapshots(&store, first, last).await;
    copy_live_into_history(&store);
    assert_eq!(snapshots(&store, first, last).await, want);
    // Writes on top of the earlier layout keep reading the same.
    let rc = first + 2;
    let next = store.update("/l/c", b"c2".to_vec(), rc).await.unwrap();
    let mut want = snapshots(&store, first, next).await;
    let (_dir2, fresh_store) = fresh();
    write_sample(&fresh_store).await;
    fresh_store
        .update("/l/c", b"c2".to_vec(), rc)
        .await
        .unwrap();
    assert_eq!(snapshots(&fresh_store, first, next).await, want);
    // Compaction leaves what reads at or after its revision need, in either layout.
    let upto = next - 1;
    store.compact(upto).await.unwrap();
    fresh_store.compact(upto).await.unwrap();
    want = snapshots(&fresh_store, upto, next).await;
    assert_eq!(snapshots(&store, upto, next).await, want);
    assert_eq!(history_rows(&store), history_rows(&fresh_store));
}

#[tokio::test]
async fn compact_live_version_at_or_below_revision_drops_its_history() {
    let (_dir, store) = fresh();
    let r1 = store.create("/l/a", b"a1".to_vec()).await.unwrap();
    let r2 = store.update("/l/a", b"a2".to_vec(), r1).await.unwrap();
    let r3 = store.create("/l/b", b"b1".to_vec()).await.unwrap();
    let r4 = store.update("/l/b", b"b2".to_vec(), r3).await.unwrap();
    store.compact(r4).await.unwrap();
    // a's live version (r2) serves every read from r4 on; b's r3 serves none either.
    assert!(
        history_rows(&store).is_empty(),
        "{:?}",
        history_rows(&store)
    );
    let now = store.range(range_at("/l/", r4)).await.unwrap();
    let got: Vec<_> = now
        .kvs
        .iter()
        .map(|kv| (&*kv.key, kv.mod_revision))
        .collect();
    assert_eq!(got, [("/l/a", r2), ("/l/b", r4)]);
}
