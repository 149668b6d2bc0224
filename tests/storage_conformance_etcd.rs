//! Runs the storage conformance suite against a real etcd, plain and over TLS with client
//! certificates (one etcd per case), plus the etcd backend's own tests: refused client
//! certificates, fail-fast calls while etcd is down or frozen, and watches that resume
//! after an etcd restart without losing or repeating an event.

// Test helpers as well as tests: failing loudly is the point.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "common/conformance.rs"]
mod conformance;
#[path = "common/etcd.rs"]
mod etcd;

use std::sync::Arc;
use std::time::{Duration, Instant};

use crd_apiserver::storage::etcd::{EtcdConfig, EtcdStore};
use crd_apiserver::storage::{Event, RangeRequest, StorageError, Store, WatchStream};
use futures::StreamExt;

use etcd::Etcd;

macro_rules! conformance_tests {
    ($($case:ident),* $(,)?) => {
        /// The suite on a plain-text etcd.
        mod plain {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $case() {
                    let etcd = super::Etcd::start();
                    super::conformance::$case(etcd.store().await).await;
                }
            )*
        }

        /// The suite on an etcd that requires client certificates.
        mod tls {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $case() {
                    let etcd = super::Etcd::start_tls();
                    super::conformance::$case(etcd.store().await).await;
                }
            )*
        }

        /// The suite through the watch cache on a plain-text etcd.
        mod cached {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $case() {
                    let etcd = super::Etcd::start();
                    let cached = super::conformance::cached(etcd.store().await).await;
                    super::conformance::$case(cached).await;
                }
            )*
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

/// How long a test waits for an expected watch event.
const WAIT: Duration = Duration::from_secs(20);

fn with_timeouts(mut config: EtcdConfig, request: Duration) -> EtcdConfig {
    config.request_timeout = request;
    config.dial_timeout = request;
    config
}

async fn connect(config: EtcdConfig) -> Arc<dyn Store> {
    EtcdStore::connect(config).await.unwrap()
}

/// The next change on a watch, skipping progress events.
async fn next_change(w: &mut WatchStream) -> Event {
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let item = tokio::time::timeout_at(deadline, w.next())
            .await
            .expect("timed out waiting for a watch event")
            .expect("watch ended")
            .expect("watch failed");
        if !matches!(item, Event::Progress { .. }) {
            return item;
        }
    }
}

/// Asserts that nothing but progress arrives for a while.
async fn assert_no_more_changes(w: &mut WatchStream) {
    let deadline = tokio::time::Instant::now() + Duration::from_millis(500);
    loop {
        match tokio::time::timeout_at(deadline, w.next()).await {
            Err(_) => return,
            Ok(Some(Ok(Event::Progress { .. }))) => {}
            Ok(other) => panic!("unexpected watch item: {other:?}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tls_untrusted_client_refused_with_clear_error() {
    let etcd = Etcd::start_tls();
    let files = etcd.tls.clone().unwrap();
    let trusted = etcd.config();
    let mut no_cert = trusted.clone();
    no_cert.cert_file = None;
    no_cert.key_file = None;
    let mut foreign = trusted.clone();
    foreign.cert_file = Some(files.foreign_cert.clone());
    foreign.key_file = Some(files.foreign_key.clone());
    let mut wrong_ca = trusted.clone();
    wrong_ca.ca_file = Some(files.foreign_cert.clone());
    let cases = [
        ("no client certificate", no_cert),
        ("certificate from another CA", foreign),
        ("server not signed by the trusted CA", wrong_ca),
    ];
    for (name, config) in cases {
        let started = Instant::now();
        let err = EtcdStore::connect(with_timeouts(config, Duration::from_secs(5)))
            .await
            .expect_err(name);
        let text = err.to_string();
        assert!(
            matches!(err, StorageError::Unavailable(_)),
            "{name}: {err:?}"
        );
        assert!(
            text.contains("cannot reach etcd at https://127.0.0.1:"),
            "{name}: {text}"
        );
        assert!(
            text.contains("check that etcd trusts the client certificate"),
            "{name}: {text}"
        );
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{name}: refused slowly"
        );
        eprintln!("{name}: {text}");
    }
    connect(trusted).await.check().await.unwrap();
}

/// Every call fails with `Unavailable` or `Timeout` within `within` while etcd is down or
/// frozen.
async fn assert_all_calls_fail(etcd: &Etcd, store: &Arc<dyn Store>, within: Duration) {
    let range = RangeRequest {
        prefix: "/f/".into(),
        ..Default::default()
    };
    let calls: Vec<(
        &str,
        futures::future::BoxFuture<'_, Result<(), StorageError>>,
    )> = vec![
        ("get", Box::pin(async { store.get("/f/a").await.map(drop) })),
        (
            "range",
            Box::pin(async { store.range(range).await.map(drop) }),
        ),
        (
            "create",
            Box::pin(async { store.create("/f/b", b"1".to_vec()).await.map(drop) }),
        ),
        (
            "update",
            Box::pin(async { store.update("/f/a", b"2".to_vec(), 2).await.map(drop) }),
        ),
        (
            "delete",
            Box::pin(async { store.delete("/f/a", 0).await.map(drop) }),
        ),
        (
            "current",
            Box::pin(async { store.current_revision().await.map(drop) }),
        ),
        (
            "compacted",
            Box::pin(async { store.compacted_revision().await.map(drop) }),
        ),
        (
            "compact",
            Box::pin(async { store.compact(1).await.map(drop) }),
        ),
        ("check", Box::pin(store.check())),
        (
            "watch",
            Box::pin(async { store.watch("/f/", 0, WAIT).await.map(drop) }),
        ),
    ];
    for (name, call) in calls {
        let started = Instant::now();
        let err = match call.await {
            Err(err) => err,
            Ok(()) => panic!(
                "{name} succeeded; etcd's thread states: {:?}",
                etcd.is_running().then(|| etcd.thread_states())
            ),
        };
        let took = started.elapsed();
        assert!(
            matches!(err, StorageError::Unavailable(_) | StorageError::Timeout(_)),
            "{name}: {err:?}"
        );
        assert!(took < within, "{name} took {took:?}: {err}");
        eprintln!("{name} after {took:?}: {err}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn etcd_down_or_frozen_calls_fail_within_timeout() {
    let mut etcd = Etcd::start();
    let timeout = Duration::from_secs(1);
    let store = connect(with_timeouts(etcd.config(), timeout)).await;
    store.create("/f/a", b"1".to_vec()).await.unwrap();

    etcd.stop();
    assert_all_calls_fail(&etcd, &store, Duration::from_millis(500)).await;
    let err = EtcdStore::connect(etcd.config()).await.unwrap_err();
    assert!(matches!(err, StorageError::Unavailable(_)), "{err:?}");

    etcd.restart();
    store.check().await.unwrap();
    // The store talks to this etcd again, on its kept data (not to another test's etcd
    // that took the port while this one was down).
    let kept = store.get("/f/a").await.unwrap().expect("/f/a kept");
    assert_eq!(&kept.value[..], b"1");
    etcd.pause();
    // Frozen: connections stay open, nothing answers; each call gives up at its timeout.
    assert_all_calls_fail(&etcd, &store, timeout * 3 + Duration::from_millis(500)).await;
    etcd.resume();
    // Writes that timed out may still have been applied: only check that calls work again.
    store.check().await.unwrap();
    store.range(RangeRequest::default()).await.unwrap();
}

/// Writes `keys` and returns their revisions, retrying while etcd comes back.
async fn write(store: &Arc<dyn Store>, keys: &[String]) -> Vec<i64> {
    let mut revs = Vec::new();
    for key in keys {
        let deadline = Instant::now() + WAIT;
        loop {
            match store.create(key, key.as_bytes().to_vec()).await {
                Ok(rev) => break revs.push(rev),
                Err(StorageError::Unavailable(_) | StorageError::Timeout(_))
                    if Instant::now() < deadline =>
                {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                Err(err) => panic!("create {key}: {err}"),
            }
        }
    }
    revs
}

fn keys(range: std::ops::Range<usize>) -> Vec<String> {
    range.map(|i| format!("/r/k{i:02}")).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn etcd_restart_watch_resumes_without_loss_or_duplicate() {
    let mut etcd = Etcd::start();
    let store = connect(with_timeouts(etcd.config(), Duration::from_secs(5))).await;
    let start = store.current_revision().await.unwrap();
    let mut live = store
        .watch("/r/", 0, Duration::from_millis(100))
        .await
        .unwrap();
    let mut revs = write(&store, &keys(0..10)).await;
    let mut seen = Vec::new();
    for _ in 0..5 {
        seen.push(next_change(&mut live).await);
    }

    etcd.stop();
    let err = store.create("/r/down", b"x".to_vec()).await.unwrap_err();
    assert!(matches!(err, StorageError::Unavailable(_)), "{err:?}");
    // While etcd is down the watch delivers what it had received and retries: no error.
    let deadline = tokio::time::Instant::now() + Duration::from_millis(500);
    loop {
        match tokio::time::timeout_at(deadline, live.next()).await {
            Err(_) => break,
            Ok(Some(Ok(Event::Progress { .. }))) => {}
            Ok(Some(Ok(event))) => seen.push(event),
            Ok(other) => panic!("watch item while etcd is down: {other:?}"),
        }
    }
    etcd.restart();
    revs.extend(write(&store, &keys(10..20)).await);

    let mut replay = store.watch("/r/", start, Duration::MAX).await.unwrap();
    while seen.len() < 20 {
        seen.push(next_change(&mut live).await);
    }
    let got: Vec<_> = seen.iter().map(Event::revision).collect();
    assert_eq!(got, revs, "every write once, in order");
    assert_no_more_changes(&mut live).await;
    let mut replayed = Vec::new();
    for _ in 0..20 {
        replayed.push(next_change(&mut replay).await);
    }
    assert_eq!(
        replayed, seen,
        "a watch opened later replays the same events"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn etcd_restart_watch_behind_compaction_ends_compacted() {
    let mut etcd = Etcd::start();
    let store = connect(with_timeouts(etcd.config(), Duration::from_secs(5))).await;
    let after = store.current_revision().await.unwrap();
    let mut w = store.watch("/z/", 0, Duration::MAX).await.unwrap();
    etcd.stop();
    etcd.restart();
    let revs = write(&store, &["/z/a".to_string(), "/z/b".to_string()]).await;
    store.compact(revs[1]).await.unwrap();
    // The broken stream is noticed only now: resuming after `after` is no longer possible.
    let item = tokio::time::timeout(WAIT, w.next()).await.unwrap();
    let want = StorageError::Compacted {
        requested: after,
        compacted: revs[1],
    };
    assert_eq!(item, Some(Err(want)));
    assert!(
        tokio::time::timeout(WAIT, w.next())
            .await
            .unwrap()
            .is_none()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn etcd_store_dropped_watch_ends() {
    let etcd = Etcd::start();
    let store = etcd.store().await;
    let mut w = store
        .watch("/d/", 0, Duration::from_millis(50))
        .await
        .unwrap();
    drop(store);
    let end = tokio::time::timeout(Duration::from_secs(5), async {
        while let Some(item) = w.next().await {
            assert!(matches!(item, Ok(Event::Progress { .. })), "{item:?}");
        }
    });
    end.await.unwrap();
}
