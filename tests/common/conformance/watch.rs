//! Conformance cases for watches: replay, live events, filtering, progress, slow consumers.

use std::sync::Arc;

use crd_apiserver::storage::{Event, StorageError, Store};
use futures::StreamExt;

use super::{
    NO_PROGRESS, PROGRESS, WAIT, assert_quiet, del, next_change, next_changes, put, summary,
};

pub async fn watch_from_zero_sees_later_events_only(store: Arc<dyn Store>) {
    let ra = store.create("/w/a", b"1".to_vec()).await.unwrap();
    let mut w = store.watch("/w/", 0, NO_PROGRESS).await.unwrap();
    let rb = store.create("/w/b", b"1".to_vec()).await.unwrap();
    let ra2 = store.update("/w/a", b"2".to_vec(), ra).await.unwrap();
    let got: Vec<_> = next_changes(&mut w, 2).await.iter().map(summary).collect();
    assert_eq!(got, [put("/w/b", rb), put("/w/a", ra2)]);
    assert_quiet(&mut w).await;
}

pub async fn watch_from_old_revision_replays_then_follows(store: Arc<dyn Store>) {
    let r1 = store.create("/w/a", b"1".to_vec()).await.unwrap();
    let r2 = store.update("/w/a", b"2".to_vec(), r1).await.unwrap();
    let r3 = store.delete("/w/a", r2).await.unwrap().mod_revision;
    let r4 = store.create("/w/b", b"1".to_vec()).await.unwrap();
    let mut w = store.watch("/w/", r1, NO_PROGRESS).await.unwrap();
    let r5 = store.create("/w/c", b"1".to_vec()).await.unwrap();
    let got: Vec<_> = next_changes(&mut w, 4).await.iter().map(summary).collect();
    assert_eq!(
        got,
        [
            put("/w/a", r2),
            del("/w/a", r3),
            put("/w/b", r4),
            put("/w/c", r5)
        ]
    );
    assert_quiet(&mut w).await;
    let r6 = store.update("/w/c", b"2".to_vec(), r5).await.unwrap();
    assert_eq!(summary(&next_change(&mut w).await), put("/w/c", r6));
    assert_quiet(&mut w).await;
}

pub async fn watch_prefix_filters_events(store: Arc<dyn Store>) {
    let start = store.current_revision().await.unwrap();
    store.create("/a/bc/x", b"1".to_vec()).await.unwrap();
    let r1 = store.create("/a/b/x", b"1".to_vec()).await.unwrap();
    store.create("/a/b", b"1".to_vec()).await.unwrap();
    let mut live = store.watch("/a/b/", 0, NO_PROGRESS).await.unwrap();
    let mut replay = store.watch("/a/b/", start, NO_PROGRESS).await.unwrap();
    store.create("/other/y", b"1".to_vec()).await.unwrap();
    store.create("/a/bc/y", b"1".to_vec()).await.unwrap();
    let r2 = store.create("/a/b/y", b"1".to_vec()).await.unwrap();
    assert_eq!(summary(&next_change(&mut live).await), put("/a/b/y", r2));
    let got: Vec<_> = next_changes(&mut replay, 2)
        .await
        .iter()
        .map(summary)
        .collect();
    assert_eq!(got, [put("/a/b/x", r1), put("/a/b/y", r2)]);
    assert_quiet(&mut live).await;
    assert_quiet(&mut replay).await;
}

/// Put carries the previous value (None on create); Delete carries the last value. Replayed
/// events equal live ones.
pub async fn watch_events_carry_prev_and_last_values(store: Arc<dyn Store>) {
    let start = store.current_revision().await.unwrap();
    let mut live = store.watch("/v/", 0, NO_PROGRESS).await.unwrap();
    let r1 = store.create("/v/a", b"1".to_vec()).await.unwrap();
    let r2 = store.update("/v/a", b"2".to_vec(), r1).await.unwrap();
    let r3 = store.delete("/v/a", 0).await.unwrap().mod_revision;
    let events = next_changes(&mut live, 3).await;
    let want = |value: &[u8], mod_revision| crd_apiserver::storage::KeyValue {
        key: "/v/a".into(),
        value: value.to_vec().into(),
        create_revision: r1,
        mod_revision,
        memo: Default::default(),
        stale: false,
    };
    assert_eq!(
        events[0],
        Event::Put {
            kv: want(b"1", r1),
            prev_value: None
        }
    );
    assert_eq!(
        events[1],
        Event::Put {
            kv: want(b"2", r2),
            prev_value: Some(bytes::Bytes::from_static(b"1"))
        }
    );
    assert_eq!(events[2], Event::Delete { kv: want(b"2", r3) });
    let mut replay = store.watch("/v/", start, NO_PROGRESS).await.unwrap();
    assert_eq!(next_changes(&mut replay, 3).await, events);
}

/// Many tasks writing at once get unique, gap-free revisions; compare-and-swap retries on
/// one shared key lose no increment; a watcher sees every write once, in order.
pub async fn concurrent_writes_gap_free_and_watched_once(store: Arc<dyn Store>) {
    const TASKS: usize = 6;
    const WRITES: usize = 15;
    let start = store.current_revision().await.unwrap();
    store.create("/n/counter", b"0".to_vec()).await.unwrap();
    let mut w = store.watch("/n/", start, NO_PROGRESS).await.unwrap();
    let mut tasks = Vec::new();
    for t in 0..TASKS {
        let store = store.clone();
        tasks.push(tokio::spawn(
            async move { task_writes(store, t, WRITES).await },
        ));
    }
    let mut revs = vec![start + 1];
    for task in tasks {
        revs.extend(task.await.unwrap());
    }
    revs.sort_unstable();
    let total = 1 + TASKS * WRITES * 2;
    let want: Vec<_> = (start + 1..=start + total as i64).collect();
    assert_eq!(revs, want, "revisions must be unique and gap-free");
    let counter = store.get("/n/counter").await.unwrap().unwrap();
    assert_eq!(counter.value, (TASKS * WRITES).to_string().into_bytes());
    let seen: Vec<_> = next_changes(&mut w, total)
        .await
        .iter()
        .map(Event::revision)
        .collect();
    assert_eq!(seen, want);
    assert_quiet(&mut w).await;
}

/// `n` writes on a key of its own and `n` compare-and-swap increments of the shared counter.
async fn task_writes(store: Arc<dyn Store>, task: usize, n: usize) -> Vec<i64> {
    let key = format!("/n/task{task}");
    let mut revs = Vec::new();
    let mut rev = store.create(&key, b"0".to_vec()).await.unwrap();
    revs.push(rev);
    for i in 1..n {
        rev = store
            .update(&key, i.to_string().into_bytes(), rev)
            .await
            .unwrap();
        revs.push(rev);
    }
    let mut current = store.get("/n/counter").await.unwrap().unwrap();
    for _ in 0..n {
        loop {
            let value: usize = String::from_utf8(current.value.to_vec())
                .unwrap()
                .parse()
                .unwrap();
            let next = (value + 1).to_string().into_bytes();
            match store
                .update("/n/counter", next.clone(), current.mod_revision)
                .await
            {
                Ok(r) => {
                    revs.push(r);
                    current.value = next.into();
                    current.mod_revision = r;
                    break;
                }
                Err(StorageError::Conflict {
                    current: latest, ..
                }) => current = *latest,
                Err(other) => panic!("update counter: {other}"),
            }
        }
    }
    revs
}

/// While idle a watch reports progress at or past the last event, including writes
/// under other prefixes.
pub async fn watch_idle_reports_progress(store: Arc<dyn Store>) {
    let mut w = store.watch("/g/", 0, PROGRESS).await.unwrap();
    let r1 = store.create("/g/a", b"1".to_vec()).await.unwrap();
    assert_eq!(summary(&next_change(&mut w).await), put("/g/a", r1));
    wait_progress(&mut w, r1).await;
    let r2 = store.create("/elsewhere/a", b"1".to_vec()).await.unwrap();
    wait_progress(&mut w, r2).await;
}

/// Waits for a progress event at or past `at`; no change may arrive meanwhile.
async fn wait_progress(w: &mut crd_apiserver::storage::WatchStream, at: i64) {
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let item = tokio::time::timeout_at(deadline, w.next())
            .await
            .expect("no progress event while idle")
            .expect("watch ended")
            .expect("watch failed");
        match item {
            Event::Progress { revision } if revision >= at => return,
            Event::Progress { .. } => {}
            other => panic!("unexpected change {other:?}"),
        }
    }
}

/// A watcher that does not poll during a burst of writes still gets all of them, in order.
pub async fn watch_slow_consumer_receives_everything(store: Arc<dyn Store>) {
    const WRITES: i64 = 5000;
    let start = store.current_revision().await.unwrap();
    let mut w = store.watch("/slow/", 0, PROGRESS).await.unwrap();
    for i in 0..WRITES {
        store
            .create(&format!("/slow/{i:05}"), vec![b'x'; 64])
            .await
            .unwrap();
    }
    let events = next_changes(&mut w, WRITES as usize).await;
    for (i, event) in events.iter().enumerate() {
        assert_eq!(
            summary(event),
            put(&format!("/slow/{i:05}"), start + 1 + i as i64)
        );
    }
    assert_quiet(&mut w).await;
}

/// An update replayed after compaction forgot its previous version is never passed off as
/// a create: the watch either carries the previous value (a cache that still holds it) or
/// fails with `Compacted` (kube's etcd watcher refuses such an event too).
pub async fn watch_replayed_update_prev_compacted_never_a_create(store: Arc<dyn Store>) {
    let r1 = store.create("/u/a", b"1".to_vec()).await.unwrap();
    let r2 = store.update("/u/a", b"2".to_vec(), r1).await.unwrap();
    store.compact(r2).await.unwrap();
    let mut w = store.watch("/u/", r1, NO_PROGRESS).await.unwrap();
    let got = loop {
        match tokio::time::timeout(WAIT, w.next()).await.unwrap() {
            Some(Ok(Event::Progress { .. })) => continue,
            other => break other,
        }
    };
    match got {
        Some(Err(StorageError::Compacted { .. })) => {}
        Some(Ok(Event::Put { kv, prev_value })) => {
            assert_eq!(kv.mod_revision, r2);
            assert_eq!(
                prev_value.as_deref(),
                Some(&b"1"[..]),
                "the update's previous value"
            );
        }
        other => panic!("expected the update or Compacted, got {other:?}"),
    }
}
