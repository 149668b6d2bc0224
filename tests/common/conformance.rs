//! Storage conformance suite: the `Store` contract every backend must meet, written
//! against the trait only (one fresh, empty store per case).
//!
//! A backend's test file runs each case as its own test, or all of them with [`run_all`].

// Test support code: failing loudly is the point.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use crd_apiserver::storage::{
    Event, KeyValue, RangeRequest, RangeResult, Revision, StorageError, Store, WatchStream,
};
use futures::StreamExt;
use futures::future::BoxFuture;

#[path = "conformance/range.rs"]
mod range;
#[path = "conformance/watch.rs"]
mod watch;

pub use range::*;
pub use watch::*;

/// How long a case waits for an expected event before failing.
const WAIT: Duration = Duration::from_secs(20);
/// How long a watch must stay silent to count as having delivered everything.
const QUIET: Duration = Duration::from_millis(300);
/// The progress interval asked of watches.
const PROGRESS: Duration = Duration::from_millis(100);
/// A progress interval long enough never to fire during a case.
const NO_PROGRESS: Duration = Duration::from_secs(3600);

/// One conformance case.
pub type Case = fn(Arc<dyn Store>) -> BoxFuture<'static, ()>;

/// Every case, by name.
pub const CASES: &[(&str, Case)] = &[
    ("write_sequence_revisions_step_by_one", |s| {
        Box::pin(write_sequence_revisions_step_by_one(s))
    }),
    ("create_existing_key_already_exists", |s| {
        Box::pin(create_existing_key_already_exists(s))
    }),
    ("update_stale_revision_conflict_with_current", |s| {
        Box::pin(update_stale_revision_conflict_with_current(s))
    }),
    ("update_delete_absent_key_not_found", |s| {
        Box::pin(update_delete_absent_key_not_found(s))
    }),
    ("delete_key_returns_last_value", |s| {
        Box::pin(delete_key_returns_last_value(s))
    }),
    ("range_prefix_sorted_and_isolated", |s| {
        Box::pin(range_prefix_sorted_and_isolated(s))
    }),
    ("range_limit_start_key_paginates", |s| {
        Box::pin(range_limit_start_key_paginates(s))
    }),
    ("range_older_revision_returns_snapshot", |s| {
        Box::pin(range_older_revision_returns_snapshot(s))
    }),
    ("range_future_revision_fails", |s| {
        Box::pin(range_future_revision_fails(s))
    }),
    ("watch_from_zero_sees_later_events_only", |s| {
        Box::pin(watch_from_zero_sees_later_events_only(s))
    }),
    ("watch_from_old_revision_replays_then_follows", |s| {
        Box::pin(watch_from_old_revision_replays_then_follows(s))
    }),
    ("watch_prefix_filters_events", |s| {
        Box::pin(watch_prefix_filters_events(s))
    }),
    ("watch_events_carry_prev_and_last_values", |s| {
        Box::pin(watch_events_carry_prev_and_last_values(s))
    }),
    ("compact_old_revisions_compacted", |s| {
        Box::pin(compact_old_revisions_compacted(s))
    }),
    ("watch_replayed_update_prev_compacted_never_a_create", |s| {
        Box::pin(watch_replayed_update_prev_compacted_never_a_create(s))
    }),
    ("concurrent_writes_gap_free_and_watched_once", |s| {
        Box::pin(concurrent_writes_gap_free_and_watched_once(s))
    }),
    ("watch_idle_reports_progress", |s| {
        Box::pin(watch_idle_reports_progress(s))
    }),
    ("watch_slow_consumer_receives_everything", |s| {
        Box::pin(watch_slow_consumer_receives_everything(s))
    }),
];

/// Runs every case, each on a fresh store from `make_store`.
#[allow(dead_code)] // for backends that run the suite as one test
pub async fn run_all<F, Fut>(make_store: F)
where
    F: Fn() -> Fut,
    Fut: Future<Output = Arc<dyn Store>>,
{
    for (name, case) in CASES {
        eprintln!("storage conformance: {name}");
        case(make_store().await).await;
    }
}

/// `store` behind encryption at rest (aesgcm, kube's prefixes) over the whole keyspace:
/// the contract holds with every value encrypted on its way in and out.
#[allow(dead_code)] // not every suite runs the encrypted path
pub async fn encrypted(store: Arc<dyn Store>) -> Arc<dyn Store> {
    use crd_apiserver::storage::encryption::{
        config::EncryptionConfiguration, metrics::TransformationMetrics, resources::Plan,
        store::EncryptingStore,
    };
    let config = "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n- resources: ['*.*']\n  providers:\n  - aesgcm: {keys: [{name: k1, secret: AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE=}]}\n";
    let config = EncryptionConfiguration::decode(config.as_bytes()).expect("configuration");
    let plan = Plan::new(&config).expect("plan");
    let made = plan
        .connect(TransformationMetrics::default())
        .await
        .expect("providers");
    let providers = made
        .for_resource("any", "any")
        .expect("*.* names every resource");
    Arc::new(EncryptingStore::new(store, [("/".to_string(), providers)]))
}

/// `store` behind a watch cache over the whole keyspace, once the cache has filled.
#[allow(dead_code)] // not every suite runs the cached path
pub async fn cached(store: Arc<dyn Store>) -> Arc<dyn Store> {
    use crd_apiserver::storage::cache::{CachedStore, DEFAULT_WINDOW};
    let cache = CachedStore::start(
        store,
        vec![(
            "/".to_string(),
            crd_apiserver::metrics::GroupResource {
                group: "".into(),
                resource: "all".into(),
            },
        )],
        DEFAULT_WINDOW,
        Default::default(),
    );
    assert!(
        cache.wait_ready(std::time::Duration::from_secs(20)).await,
        "the watch cache did not fill"
    );
    cache
}

// ---- helpers ----

fn range_req(
    prefix: &str,
    start_key: Option<&str>,
    limit: usize,
    revision: Revision,
) -> RangeRequest {
    RangeRequest {
        prefix: prefix.to_string(),
        start_key: start_key.map(str::to_string),
        limit,
        revision,
        not_older_than: None,
    }
}

fn keys(result: &RangeResult) -> Vec<&str> {
    result.kvs.iter().map(|kv| &*kv.key).collect()
}

/// The continue key after `key`, as kube builds it.
fn after_key(key: &str) -> String {
    format!("{key}\0")
}

/// The next event that is not a progress notification.
async fn next_change(w: &mut WatchStream) -> Event {
    loop {
        let item = tokio::time::timeout(WAIT, w.next())
            .await
            .expect("timed out waiting for a watch event")
            .expect("watch ended")
            .expect("watch failed");
        if !matches!(item, Event::Progress { .. }) {
            return item;
        }
    }
}

async fn next_changes(w: &mut WatchStream, n: usize) -> Vec<Event> {
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        out.push(next_change(w).await);
    }
    out
}

/// Asserts that no further change arrives for a while (everything was delivered once).
async fn assert_quiet(w: &mut WatchStream) {
    let deadline = tokio::time::Instant::now() + QUIET;
    loop {
        match tokio::time::timeout_at(deadline, w.next()).await {
            Err(_) => return,
            Ok(Some(Ok(Event::Progress { .. }))) => {}
            Ok(other) => panic!("unexpected watch item: {other:?}"),
        }
    }
}

/// (kind, key, revision) of a change, for compact assertions.
fn summary(event: &Event) -> (&'static str, String, Revision) {
    match event {
        Event::Put { kv, .. } => ("put", kv.key.to_string(), kv.mod_revision),
        Event::Delete { kv } => ("delete", kv.key.to_string(), kv.mod_revision),
        Event::Progress { revision } => ("progress", String::new(), *revision),
    }
}

fn put(key: &str, rev: Revision) -> (&'static str, String, Revision) {
    ("put", key.to_string(), rev)
}

fn del(key: &str, rev: Revision) -> (&'static str, String, Revision) {
    ("delete", key.to_string(), rev)
}

// ---- writes ----

/// Creates, updates and deletes each bump the revision by exactly one; failed writes do not.
pub async fn write_sequence_revisions_step_by_one(store: Arc<dyn Store>) {
    store.check().await.unwrap();
    let r0 = store.current_revision().await.unwrap();
    let r1 = store.create("/t/a", b"1".to_vec()).await.unwrap();
    assert_eq!(r1, r0 + 1);
    let kv = store.get("/t/a").await.unwrap().unwrap();
    let want = KeyValue {
        key: "/t/a".into(),
        value: b"1".to_vec().into(),
        create_revision: r1,
        mod_revision: r1,
        memo: Default::default(),
        stale: false,
    };
    assert_eq!(kv, want);
    let r2 = store.update("/t/a", b"2".to_vec(), r1).await.unwrap();
    assert_eq!(r2, r1 + 1);
    let kv = store.get("/t/a").await.unwrap().unwrap();
    assert_eq!(
        (&kv.value[..], kv.create_revision, kv.mod_revision),
        (&b"2"[..], r1, r2)
    );
    let _ = store.create("/t/a", b"x".to_vec()).await.unwrap_err();
    let _ = store.update("/t/a", b"x".to_vec(), r1).await.unwrap_err();
    let _ = store.delete("/t/missing", 0).await.unwrap_err();
    assert_eq!(
        store.current_revision().await.unwrap(),
        r2,
        "failed writes must not bump"
    );
    let r3 = store.create("/t/b", b"b".to_vec()).await.unwrap();
    assert_eq!(r3, r2 + 1);
    let deleted = store.delete("/t/a", r2).await.unwrap();
    assert_eq!(deleted.mod_revision, r3 + 1);
    assert_eq!(store.current_revision().await.unwrap(), r3 + 1);
    assert_eq!(store.get("/t/a").await.unwrap(), None);
    let r5 = store.create("/t/a", b"again".to_vec()).await.unwrap();
    let kv = store.get("/t/a").await.unwrap().unwrap();
    assert_eq!(
        (kv.create_revision, kv.mod_revision),
        (r5, r5),
        "recreate starts over"
    );
    let all = store.range(range_req("/t/", None, 0, 0)).await.unwrap();
    assert_eq!(all.revision, r5);
}

pub async fn create_existing_key_already_exists(store: Arc<dyn Store>) {
    let r1 = store.create("/t/a", b"1".to_vec()).await.unwrap();
    let err = store.create("/t/a", b"2".to_vec()).await.unwrap_err();
    assert_eq!(err, StorageError::AlreadyExists { key: "/t/a".into() });
    let kv = store.get("/t/a").await.unwrap().unwrap();
    assert_eq!(
        (kv.value, kv.mod_revision),
        (bytes::Bytes::from_static(b"1"), r1)
    );
}

pub async fn update_stale_revision_conflict_with_current(store: Arc<dyn Store>) {
    let r1 = store.create("/t/a", b"1".to_vec()).await.unwrap();
    let r2 = store.update("/t/a", b"2".to_vec(), r1).await.unwrap();
    let current = KeyValue {
        key: "/t/a".into(),
        value: b"2".to_vec().into(),
        create_revision: r1,
        mod_revision: r2,
        memo: Default::default(),
        stale: false,
    };
    let want = StorageError::Conflict {
        key: "/t/a".into(),
        current: Box::new(current.clone()),
    };
    assert_eq!(
        store.update("/t/a", b"3".to_vec(), r1).await.unwrap_err(),
        want
    );
    assert_eq!(store.delete("/t/a", r1).await.unwrap_err(), want);
    assert_eq!(store.get("/t/a").await.unwrap(), Some(current));
}

pub async fn update_delete_absent_key_not_found(store: Arc<dyn Store>) {
    let not_found = StorageError::NotFound { key: "/t/a".into() };
    assert_eq!(
        store.update("/t/a", b"1".to_vec(), 5).await.unwrap_err(),
        not_found
    );
    assert_eq!(store.delete("/t/a", 0).await.unwrap_err(), not_found);
    assert_eq!(store.delete("/t/a", 5).await.unwrap_err(), not_found);
    let r1 = store.create("/t/a", b"1".to_vec()).await.unwrap();
    store.delete("/t/a", r1).await.unwrap();
    assert_eq!(
        store.update("/t/a", b"2".to_vec(), r1).await.unwrap_err(),
        not_found
    );
    assert_eq!(store.delete("/t/a", 0).await.unwrap_err(), not_found);
}

pub async fn delete_key_returns_last_value(store: Arc<dyn Store>) {
    let r1 = store.create("/t/a", b"1".to_vec()).await.unwrap();
    let r2 = store.update("/t/a", b"2".to_vec(), r1).await.unwrap();
    let kv = store.delete("/t/a", r2).await.unwrap();
    let want = KeyValue {
        key: "/t/a".into(),
        value: b"2".to_vec().into(),
        create_revision: r1,
        mod_revision: r2 + 1,
        memo: Default::default(),
        stale: false,
    };
    assert_eq!(kv, want);
    let r4 = store.create("/t/b", b"b".to_vec()).await.unwrap();
    let kv = store.delete("/t/b", 0).await.unwrap();
    assert_eq!(
        (kv.value, kv.create_revision, kv.mod_revision),
        (bytes::Bytes::from_static(b"b"), r4, r4 + 1)
    );
}
