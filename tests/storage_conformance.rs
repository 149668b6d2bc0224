//! Runs the storage conformance suite against the embedded backend, plus its own
//! durability and shutdown tests.

#[path = "common/conformance.rs"]
mod conformance;

use std::sync::Arc;
use std::time::Duration;

use crd_apiserver::storage::embedded::EmbeddedStore;
use crd_apiserver::storage::{Event, RangeRequest, Store};
use futures::StreamExt;

/// A fresh embedded store in its own temporary directory (kept alive by the caller).
#[allow(clippy::unwrap_used)] // a test helper, not a test
fn fresh() -> (tempfile::TempDir, Arc<dyn Store>) {
    let dir = tempfile::tempdir().unwrap();
    let store = EmbeddedStore::open(dir.path()).unwrap();
    (dir, store)
}

macro_rules! conformance_tests {
    ($($case:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $case() {
                let (_dir, store) = fresh();
                conformance::$case(store).await;
            }
        )*

        /// The suite through the watch cache (every key under one cached prefix).
        mod cached {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $case() {
                    let (_dir, store) = super::fresh();
                    let cached = super::conformance::cached(store).await;
                    super::conformance::$case(cached).await;
                }
            )*
        }

        /// The suite through encryption at rest, alone and under the watch cache (as
        /// the server composes them).
        mod encrypted {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $case() {
                    let (_dir, store) = super::fresh();
                    let encrypted = super::conformance::encrypted(store).await;
                    super::conformance::$case(encrypted).await;
                }
            )*

            mod cached {
                $(
                    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                    async fn $case() {
                        let (_dir, store) = super::super::fresh();
                        let encrypted = super::super::conformance::encrypted(store).await;
                        let cached = super::super::conformance::cached(encrypted).await;
                        super::super::conformance::$case(cached).await;
                    }
                )*
            }
        }

        #[test]
        fn conformance_cases_all_run_here() {
            let here = [$(stringify!($case)),*];
            let listed: Vec<_> = conformance::CASES.iter().map(|(name, _)| *name).collect();
            assert_eq!(listed, here);
        }
    };
}

conformance_tests!(
    write_sequence_revisions_step_by_one,
    create_existing_key_already_exists,
    update_stale_revision_conflict_with_current,
    update_delete_absent_key_not_found,
    delete_key_returns_last_value,
    range_prefix_sorted_and_isolated,
    range_limit_start_key_paginates,
    range_older_revision_returns_snapshot,
    range_future_revision_fails,
    watch_from_zero_sees_later_events_only,
    watch_from_old_revision_replays_then_follows,
    watch_prefix_filters_events,
    watch_events_carry_prev_and_last_values,
    compact_old_revisions_compacted,
    watch_replayed_update_prev_compacted_never_a_create,
    concurrent_writes_gap_free_and_watched_once,
    watch_idle_reports_progress,
    watch_slow_consumer_receives_everything,
);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn embedded_reopen_same_dir_keeps_keys_and_revision() {
    let dir = tempfile::tempdir().unwrap();
    let store = EmbeddedStore::open(dir.path()).unwrap();
    let r1 = store.create("/k/a", b"1".to_vec()).await.unwrap();
    let r2 = store.create("/k/b", b"2".to_vec()).await.unwrap();
    store.compact(r1).await.unwrap();
    drop(store);

    let store = EmbeddedStore::open(dir.path()).unwrap();
    assert_eq!(store.current_revision().await.unwrap(), r2);
    assert_eq!(store.compacted_revision().await.unwrap(), r1);
    let all = store
        .range(RangeRequest {
            prefix: "/k/".into(),
            ..Default::default()
        })
        .await
        .unwrap();
    let got: Vec<_> = all
        .kvs
        .iter()
        .map(|kv| (&*kv.key, &kv.value[..], kv.mod_revision))
        .collect();
    assert_eq!(got, [("/k/a", &b"1"[..], r1), ("/k/b", &b"2"[..], r2)]);
    let r3 = store.create("/k/c", b"3".to_vec()).await.unwrap();
    assert_eq!(r3, r2 + 1);
    let mut w = store
        .watch("/k/", r1, Duration::from_secs(3600))
        .await
        .unwrap();
    let first = w.next().await.unwrap().unwrap();
    assert_eq!(first.revision(), r2, "history survives a restart");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn embedded_store_dropped_watch_ends() {
    let (dir, store) = fresh();
    let mut idle = store
        .watch("/d/", 0, Duration::from_millis(50))
        .await
        .unwrap();
    let mut quiet = store.watch("/d/", 0, Duration::MAX).await.unwrap();
    drop(store);
    for w in [&mut idle, &mut quiet] {
        let end = tokio::time::timeout(Duration::from_secs(5), async {
            while let Some(item) = w.next().await {
                assert!(matches!(item, Ok(Event::Progress { .. })), "{item:?}");
            }
        });
        end.await.unwrap();
    }
    // The database is closed: the directory can be opened again.
    EmbeddedStore::open(dir.path()).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn embedded_compact_at_delete_revision_keeps_delete_event() {
    let (_dir, store) = fresh();
    let r1 = store.create("/x/a", b"1".to_vec()).await.unwrap();
    let r2 = store.delete("/x/a", r1).await.unwrap().mod_revision;
    store.compact(r2).await.unwrap();
    let mut w = store
        .watch("/x/", r2 - 1, Duration::from_secs(3600))
        .await
        .unwrap();
    match w.next().await.unwrap().unwrap() {
        Event::Delete { kv } => assert_eq!(
            (kv.value, kv.mod_revision),
            (bytes::Bytes::from_static(b"1"), r2)
        ),
        other => panic!("want the delete, got {other:?}"),
    }
}
