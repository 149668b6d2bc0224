//! Group commit tests: concurrent writes share commits, each caller gets its own outcome,
//! revisions stay contiguous and watchers see every event once, in order.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use futures::future::join_all;

use super::commit::commit_batch;
use super::write::Write;
use super::*;
use crate::storage::{StorageError, WatchStream};

const WAIT: Duration = Duration::from_secs(20);

pub(super) fn fresh() -> (tempfile::TempDir, Arc<EmbeddedStore>) {
    let dir = tempfile::tempdir().unwrap();
    let store = EmbeddedStore::open(dir.path()).unwrap();
    (dir, store)
}

async fn watch(store: &EmbeddedStore) -> WatchStream {
    store
        .watch("/", 0, Duration::from_secs(3600))
        .await
        .unwrap()
}

/// The next `n` event revisions of `w`.
async fn revisions(w: &mut WatchStream, n: usize) -> Vec<Revision> {
    let mut got = Vec::new();
    while got.len() < n {
        let event = tokio::time::timeout(WAIT, w.next()).await.unwrap();
        got.push(event.unwrap().unwrap().revision());
    }
    got
}

/// Proves `w` holds no duplicate or stray event: a fresh write is the very next one.
async fn next_is_fresh_write(store: &EmbeddedStore, w: &mut WatchStream) {
    let rev = store.create("/fresh", b"f".to_vec()).await.unwrap();
    assert_eq!(
        revisions(w, 1).await,
        [rev],
        "no event before the fresh write"
    );
}

fn create(key: &str) -> Write {
    let (key, value) = (key.to_string(), key.as_bytes().to_vec());
    Write::Create { key, value }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn group_commit_concurrent_creates_share_commits_each_own_revision() {
    let (_dir, store) = fresh();
    let start = store.current_revision().await.unwrap();
    let mut w = watch(&store).await;
    let n: usize = 64;
    let creates = (0..n).map(|i| {
        let store = store.clone();
        async move { store.create(&format!("/c/{i}"), vec![i as u8]).await }
    });
    let revs: Vec<Revision> = join_all(creates)
        .await
        .into_iter()
        .map(|r| r.unwrap())
        .collect();
    assert!(
        store.commit_count() < n as u64,
        "{} commits for {n} concurrent creates",
        store.commit_count()
    );
    let mut sorted = revs.clone();
    sorted.sort_unstable();
    let want: Vec<Revision> = (start + 1..=start + n as i64).collect();
    assert_eq!(sorted, want, "one contiguous revision per create");
    for (i, rev) in revs.iter().enumerate() {
        let kv = store.get(&format!("/c/{i}")).await.unwrap().unwrap();
        assert_eq!(
            (kv.value, kv.mod_revision),
            (bytes::Bytes::from(vec![i as u8]), *rev),
            "create {i}"
        );
    }
    assert_eq!(
        revisions(&mut w, n).await,
        want,
        "every event once, in order"
    );
    next_is_fresh_write(&store, &mut w).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn group_commit_failed_check_mid_batch_fails_only_that_write() {
    let (_dir, store) = fresh();
    let r0 = store.current_revision().await.unwrap();
    let mut w = watch(&store).await;
    let commits = store.commit_count();
    let batch = vec![
        create("/b/x"),
        Write::Update {
            key: "/b/x".into(),
            value: b"stale".to_vec(),
            expected: r0,
        },
        create("/b/y"),
        Write::Delete {
            key: "/b/absent".into(),
            expected: 0,
        },
        create("/b/y"),
        Write::Update {
            key: "/b/x".into(),
            value: b"fresh".to_vec(),
            expected: r0 + 1,
        },
    ];
    let outcomes: Vec<_> = commit_batch(&store, batch)
        .await
        .into_iter()
        .map(|o| o.map(|event| event.revision()))
        .collect();
    assert_eq!(
        store.commit_count(),
        commits + 1,
        "one commit for the batch"
    );
    let x = KeyValue {
        key: "/b/x".into(),
        value: b"/b/x".to_vec().into(),
        create_revision: r0 + 1,
        mod_revision: r0 + 1,
        memo: Default::default(),
        stale: false,
    };
    let want = vec![
        Ok(r0 + 1),
        Err(StorageError::Conflict {
            key: "/b/x".into(),
            current: Box::new(x),
        }),
        Ok(r0 + 2),
        Err(StorageError::NotFound {
            key: "/b/absent".into(),
        }),
        Err(StorageError::AlreadyExists { key: "/b/y".into() }),
        Ok(r0 + 3),
    ];
    assert_eq!(outcomes, want);
    let x = store.get("/b/x").await.unwrap().unwrap();
    assert_eq!(
        (x.value, x.mod_revision),
        (bytes::Bytes::from_static(b"fresh"), r0 + 3)
    );
    assert_eq!(store.current_revision().await.unwrap(), r0 + 3);
    assert_eq!(revisions(&mut w, 3).await, [r0 + 1, r0 + 2, r0 + 3]);
    next_is_fresh_write(&store, &mut w).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn group_commit_batch_of_failures_commits_nothing() {
    let (_dir, store) = fresh();
    let r1 = store.create("/f/a", b"a".to_vec()).await.unwrap();
    let commits = store.commit_count();
    let mut w = watch(&store).await;
    let outcomes = commit_batch(&store, vec![create("/f/a"), create("/f/a")]).await;
    assert_eq!(outcomes.len(), 2);
    for outcome in outcomes {
        let err = outcome.unwrap_err();
        assert_eq!(err, StorageError::AlreadyExists { key: "/f/a".into() });
    }
    assert_eq!(store.commit_count(), commits, "nothing to commit");
    assert_eq!(store.current_revision().await.unwrap(), r1);
    next_is_fresh_write(&store, &mut w).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn group_commit_concurrent_racers_one_wins_rest_fail_alone() {
    let (_dir, store) = fresh();
    let start = store.current_revision().await.unwrap();
    let mut w = watch(&store).await;
    // Half create distinct keys, half race for one key: exactly one racer wins.
    let writes = (0..32).map(|i| {
        let store = store.clone();
        let key = if i % 2 == 0 {
            format!("/r/{i}")
        } else {
            "/r/race".to_string()
        };
        async move { store.create(&key, b"v".to_vec()).await }
    });
    let outcomes = join_all(writes).await;
    let mut won: Vec<Revision> = outcomes.iter().filter_map(|o| o.clone().ok()).collect();
    let lost: Vec<_> = outcomes.into_iter().filter_map(Result::err).collect();
    assert_eq!(won.len(), 17, "16 distinct keys and one racer");
    for err in &lost {
        assert_eq!(
            err,
            &StorageError::AlreadyExists {
                key: "/r/race".into()
            }
        );
    }
    won.sort_unstable();
    let want: Vec<Revision> = (start + 1..=start + 17).collect();
    assert_eq!(won, want, "failed writes take no revision");
    assert_eq!(revisions(&mut w, 17).await, want);
    next_is_fresh_write(&store, &mut w).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn group_commit_compaction_between_batches_keeps_order() {
    let (_dir, store) = fresh();
    let r1 = store.create("/k/a", b"1".to_vec()).await.unwrap();
    let (s1, s2) = (store.clone(), store.clone());
    let (compacted, created) = tokio::join!(s1.compact(r1), s2.create("/k/b", b"2".to_vec()));
    compacted.unwrap();
    assert_eq!(created.unwrap(), r1 + 1);
    assert_eq!(store.compacted_revision().await.unwrap(), r1);
    assert_eq!(store.current_revision().await.unwrap(), r1 + 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compact_long_history_in_bounded_steps_same_result() {
    let (_dir, store) = fresh();
    let mut last = 0;
    let writes: Vec<_> = (0..2500)
        .map(|i| {
            let store = store.clone();
            async move {
                store
                    .create(&format!("/c/{i}"), b"v".to_vec())
                    .await
                    .unwrap()
            }
        })
        .collect();
    for rev in join_all(writes).await {
        last = last.max(rev);
    }
    let before = store.commit_count();
    store.compact(last).await.unwrap();
    assert!(
        store.commit_count() >= before + 3,
        "2500 revisions compact in steps of {COMPACTION_CHUNK}: {} commits",
        store.commit_count() - before
    );
    assert_eq!(store.compacted_revision().await.unwrap(), last);
    let all = store
        .range(crate::storage::RangeRequest {
            prefix: "/c/".into(),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(all.kvs.len(), 2500);
    let too_old = store
        .watch("/c/", last - 2, Duration::from_secs(3600))
        .await;
    assert!(matches!(too_old, Err(StorageError::Compacted { compacted, .. }) if compacted == last));
}

#[tokio::test]
async fn compact_with_plan_from_older_floor_same_result() {
    let (_dir, store) = fresh();
    for i in 0..30 {
        store
            .create(&format!("/p/{i}"), b"v".to_vec())
            .await
            .unwrap();
    }
    let plan_from = |floor, upto| store.plan_compaction(floor, upto);
    let floor = store.compacted_revision().await.unwrap();
    let stale = plan_from(floor, 20).await.unwrap();
    store.committer.compact(10, None).await.unwrap();
    // The plan covers revisions the first compaction removed: read again, same result.
    store.committer.compact(20, Some(stale)).await.unwrap();
    assert_eq!(store.compacted_revision().await.unwrap(), 20);
    let below = plan_from(0, 20).await.unwrap();
    assert!(below.revs.is_empty(), "log below the floor: {below:?}");
    let above = plan_from(20, 40).await.unwrap();
    assert_eq!(above.revs, (20..=31).collect::<Vec<_>>());
    let all = store
        .range(crate::storage::RangeRequest {
            prefix: "/p/".into(),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(all.kvs.len(), 30);
}

/// The store's revision counter, read in a read transaction.
async fn stored_revision(store: &EmbeddedStore) -> Revision {
    store
        .read(|txn| Ok(tables::read_counters(txn)?.revision))
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn current_revision_concurrent_writers_covers_every_acknowledged_write() {
    let (dir, store) = fresh();
    assert_eq!(
        store.current_revision().await.unwrap(),
        stored_revision(&store).await
    );
    let writers = (0..64).map(|i| {
        let store = store.clone();
        tokio::spawn(async move {
            let mut seen = Vec::new();
            for j in 0..10 {
                let written = store
                    .create(&format!("/cr/{i}/{j}"), b"v".to_vec())
                    .await
                    .unwrap();
                seen.push((written, store.current_revision().await.unwrap()));
            }
            seen
        })
    });
    for seen in join_all(writers).await {
        for (written, current) in seen.unwrap() {
            assert!(
                current >= written,
                "current {current} < acknowledged {written}"
            );
        }
    }
    let last = store.current_revision().await.unwrap();
    assert_eq!(last, stored_revision(&store).await);
    // A failed write publishes nothing.
    let failed = store.create("/cr/0/0", b"again".to_vec()).await;
    assert!(matches!(failed, Err(StorageError::AlreadyExists { .. })));
    assert_eq!(store.current_revision().await.unwrap(), last);
    drop(store);
    let reopened = EmbeddedStore::open(dir.path()).unwrap();
    assert_eq!(reopened.current_revision().await.unwrap(), last);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn current_revision_when_event_arrives_is_not_behind_it() {
    let (_dir, store) = fresh();
    let mut w = watch(&store).await;
    let writers: Vec<_> = (0..64)
        .map(|i| {
            let store = store.clone();
            tokio::spawn(async move { store.create(&format!("/ev/{i}"), b"v".to_vec()).await })
        })
        .collect();
    for _ in 0..64 {
        let event = tokio::time::timeout(WAIT, w.next()).await.unwrap();
        let revision = event.unwrap().unwrap().revision();
        let current = store.current_revision().await.unwrap();
        assert!(current >= revision, "current {current} < event {revision}");
    }
    for writer in join_all(writers).await {
        writer.unwrap().unwrap();
    }
}
