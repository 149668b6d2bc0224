//! The cache over an embedded store: the window and 410, slow watchers ended and counted,
//! consistent reads after writes, and reads at a revision the cache has moved past.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use prometheus_client::metrics::family::Family;

use super::*;
use crate::metrics::GroupResource;
use crate::storage::embedded::EmbeddedStore;
use crate::storage::{Event, StorageError};

const WAIT: Duration = Duration::from_secs(20);
const QUIET: Duration = Duration::from_secs(3600);

async fn cached(
    window: usize,
) -> (
    tempfile::TempDir,
    Arc<CachedStore>,
    Family<GroupResource, Counter>,
) {
    let dir = tempfile::tempdir().unwrap();
    let store = EmbeddedStore::open(dir.path()).unwrap();
    let metrics = CacheMetrics::default();
    let terminated = metrics.terminated.clone();
    let cache = CachedStore::start(store, vec![("/r/".to_string(), things())], window, metrics);
    assert!(cache.wait_ready(WAIT).await);
    (dir, cache, terminated)
}

fn things() -> GroupResource {
    GroupResource {
        group: "example.org".into(),
        resource: "things".into(),
    }
}

fn terminated_count(family: &Family<GroupResource, Counter>) -> u64 {
    family.get_or_create(&things()).get()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watch_before_window_compacted_inside_window_replays() {
    let (_dir, cache, _) = cached(5).await;
    let mut revs = Vec::new();
    for i in 0..10 {
        revs.push(
            cache
                .create(&format!("/r/{i}"), b"v".to_vec())
                .await
                .unwrap(),
        );
    }
    // The window holds the last 5 events; wait until the cache has them all.
    let target = revs[9];
    assert!(cache.cachers()["/r/"].wait_for(target, WAIT).await);
    let too_old = cache.watch("/r/", revs[1], QUIET).await;
    assert!(
        matches!(too_old, Err(StorageError::Compacted { requested, .. }) if requested == revs[1]),
        "{:?}",
        too_old.err()
    );
    let mut w = cache.watch("/r/", revs[7], QUIET).await.unwrap();
    for want in &revs[8..] {
        let event = tokio::time::timeout(WAIT, w.next())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        assert_eq!(event.revision(), *want);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watch_slow_consumer_past_window_ended_and_counted() {
    let (_dir, cache, terminated) = cached(10).await;
    let mut slow = cache.watch("/r/", 0, QUIET).await.unwrap();
    let mut fast = cache.watch("/r/", 0, QUIET).await.unwrap();
    let total = cacher::BROADCAST_CAPACITY + 100;
    let writer = {
        let cache = cache.clone();
        tokio::spawn(async move {
            let mut last = 0;
            for i in 0..total {
                last = cache
                    .create(&format!("/r/{i}"), b"v".to_vec())
                    .await
                    .unwrap();
            }
            last
        })
    };
    // The fast watcher keeps up and sees every event once, in order.
    let mut seen = Vec::new();
    while seen.len() < total {
        let event = tokio::time::timeout(WAIT, fast.next())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        if let Event::Put { kv, .. } = event {
            seen.push(kv.mod_revision);
        }
    }
    let last = writer.await.unwrap();
    assert!(seen.windows(2).all(|w| w[1] == w[0] + 1), "gap or repeat");
    assert_eq!(seen.last(), Some(&last));
    // The slow one fell out of the window: it gets what it can, in order, then ends.
    let mut got = Vec::new();
    while let Some(item) = tokio::time::timeout(WAIT, slow.next()).await.unwrap() {
        got.push(item.unwrap().revision());
    }
    assert!(got.len() < total, "a watcher past the window is ended");
    assert!(
        got.windows(2).all(|w| w[1] == w[0] + 1),
        "no gap before the end"
    );
    assert_eq!(terminated_count(&terminated), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn range_consistent_after_write_sees_it() {
    let (_dir, cache, _) = cached(100).await;
    for i in 0..50 {
        let key = format!("/r/{i}");
        let rev = cache.create(&key, b"v".to_vec()).await.unwrap();
        let got = cache.get(&key).await.unwrap().unwrap();
        assert_eq!(got.mod_revision, rev);
        assert!(got.memo.is_shared(), "served from the cache");
        let all = cache
            .range(RangeRequest {
                prefix: "/r/".into(),
                ..Default::default()
            })
            .await
            .unwrap();
        assert!(all.revision >= rev);
        assert_eq!(all.kvs.len(), i + 1);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn range_at_revision_after_change_read_from_store() {
    let (_dir, cache, _) = cached(100).await;
    let r1 = cache.create("/r/a", b"1".to_vec()).await.unwrap();
    let page = |revision| RangeRequest {
        prefix: "/r/".into(),
        revision,
        ..Default::default()
    };
    let before = cache.range(page(0)).await.unwrap();
    assert_eq!(before.revision, r1);
    // Nothing changed since: the cache answers at that revision.
    let same = cache.range(page(r1)).await.unwrap();
    assert!(same.kvs[0].memo.is_shared());
    cache.update("/r/a", b"2".to_vec(), r1).await.unwrap();
    assert!(cache.cachers()["/r/"].wait_for(r1 + 1, WAIT).await);
    // Changed since: the store answers with the old value.
    let old = cache.range(page(r1)).await.unwrap();
    assert_eq!(&old.kvs[0].value[..], b"1");
    assert!(!old.kvs[0].memo.is_shared(), "read from the store");
}

/// An event keeps a memo for its line only when a cached watch receives it live.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn window_event_memo_shared_only_with_live_watchers() {
    let (_dir, cache, _) = cached(10).await;
    let cachers = cache.cachers();
    let cacher = &cachers["/r/"];
    let memo_shared = |rev: Revision| {
        let state = cacher.read();
        let event = state.events_after(rev - 1).next().unwrap();
        match event {
            Event::Put { kv, .. } | Event::Delete { kv } => kv.memo.is_shared(),
            Event::Progress { .. } => panic!("progress in the window"),
        }
    };
    let unwatched = cache.create("/r/a", b"v".to_vec()).await.unwrap();
    assert!(cacher.wait_for(unwatched, WAIT).await);
    assert!(!memo_shared(unwatched), "no watcher: no memo kept");

    let mut w = cache.watch("/r/", unwatched, QUIET).await.unwrap();
    let watched = cache.create("/r/b", b"v".to_vec()).await.unwrap();
    let got = tokio::time::timeout(WAIT, w.next()).await.unwrap();
    assert_eq!(got.unwrap().unwrap().revision(), watched);
    assert!(
        memo_shared(watched),
        "a live watcher: the line is kept for all"
    );
    // The index keeps its own memo either way: reads are served from it.
    let read = cache.get("/r/a").await.unwrap().unwrap();
    assert!(read.memo.is_shared());
}

/// Following the catalog: a new resource gains a cache that fills (not gating
/// readiness), one no longer served loses its cache: its watches end, its stored-object
/// series go, its keys are read from the store.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn follow_added_cached_removed_stopped_watches_ended_series_removed() {
    let (_dir, cache, _) = cached(10).await;
    let stored = cache.metrics.stored_objects.clone();
    let value = br#"{"apiVersion":"example.org/v1"}"#.to_vec();
    let r = cache.create("/r/a", value.clone()).await.unwrap();
    assert!(cache.cachers()["/r/"].wait_for(r, WAIT).await);
    let series = StoredLabels {
        resource: "things.example.org".into(),
        version: "v1".into(),
    };
    assert_eq!(stored.get(&series).map(|g| g.get()), Some(1));
    let mut watch = cache.watch("/r/", r, QUIET).await.unwrap();
    let s = cache.create("/s/b", value).await.unwrap();

    let others = GroupResource {
        group: "example.org".into(),
        resource: "others".into(),
    };
    cache.follow(vec![
        ("/r/".into(), things()),
        ("/s/".into(), others.clone()),
    ]);
    assert_eq!(cache.prefixes(), ["/r/", "/s/"]);
    assert!(cache.cachers()["/s/"].wait_for(s, WAIT).await);
    assert_eq!(cache.object_count(), 2);

    cache.follow(vec![("/s/".into(), others)]);
    assert_eq!(cache.prefixes(), ["/s/"]);
    let ended = tokio::time::timeout(WAIT, async {
        while let Some(item) = watch.next().await {
            if item.is_err() {
                break;
            }
        }
    })
    .await;
    assert!(ended.is_ok(), "the stopped resource's watch did not end");
    assert_eq!(stored.get(&series).map(|g| g.get()), None);
    // Not cached any more: read from the store; the late cache does not gate readiness.
    let read = cache.get("/r/a").await.unwrap().unwrap();
    assert!(!read.memo.is_shared(), "read from the store");
    assert!(cache.ready());
}
