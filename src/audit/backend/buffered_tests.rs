#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly

use std::sync::atomic::Ordering;
use std::time::Duration;

use super::*;
use crate::audit::Level;
use crate::audit::backend::testing::{Recorder, events};

fn config(buffer_size: usize, max_batch_size: usize, max_batch_wait: Duration) -> BatchConfig {
    BatchConfig {
        buffer_size,
        max_batch_size,
        max_batch_wait,
        throttle: None,
        async_delegate: false,
    }
}

fn ids(prefix: &str, range: std::ops::Range<usize>) -> Vec<String> {
    range.map(|i| format!("id-{prefix}-{i}")).collect()
}

#[tokio::test]
async fn process_events_full_buffer_drops_and_counts() {
    let recorder = Recorder::new(true);
    let metrics = AuditMetrics::default();
    let buffered = Buffered::start(
        recorder.clone(),
        &config(5, 1, Duration::ZERO),
        metrics.clone(),
    );
    // One call on this single-threaded runtime: the batching task cannot take any out
    // before the buffer is full.
    assert!(
        buffered
            .process_events(&events("e", 12, Level::Metadata))
            .await
    );
    assert_eq!(metrics.errors(PLUGIN), 7);
    buffered.shutdown().await;
    let received: Vec<String> = recorder.ids().concat();
    assert_eq!(received, ids("e", 0..5));
    assert!(recorder.shut_down.load(Ordering::SeqCst));
}

#[tokio::test]
async fn shutdown_sends_buffered_then_refuses() {
    let recorder = Recorder::new(true);
    let metrics = AuditMetrics::default();
    let buffered = Buffered::start(
        recorder.clone(),
        &config(100, 4, Duration::from_secs(3600)),
        metrics.clone(),
    );
    assert!(
        buffered
            .process_events(&events("e", 10, Level::Metadata))
            .await
    );
    buffered.shutdown().await;
    // Two full batches, then the rest at shutdown (the hour's wait is not waited).
    assert_eq!(
        recorder.ids(),
        [ids("e", 0..4), ids("e", 4..8), ids("e", 8..10)]
    );
    assert!(
        !buffered
            .process_events(&events("late", 2, Level::Metadata))
            .await
    );
    assert_eq!(metrics.errors(PLUGIN), 2);
}

#[tokio::test(start_paused = true)]
async fn collect_max_wait_sends_partial_batch() {
    let recorder = Recorder::new(true);
    let buffered = Buffered::start(
        recorder.clone(),
        &config(100, 400, Duration::from_secs(30)),
        AuditMetrics::default(),
    );
    let settle = || async {
        for _ in 0..20 {
            tokio::task::yield_now().await;
        }
    };
    // The batching task waits from its start: the batch is sent 30s after it.
    settle().await;
    assert!(
        buffered
            .process_events(&events("e", 3, Level::Metadata))
            .await
    );
    tokio::time::advance(Duration::from_secs(29)).await;
    settle().await;
    assert!(recorder.ids().is_empty(), "sent before the wait ran out");
    tokio::time::advance(Duration::from_secs(2)).await;
    settle().await;
    assert_eq!(recorder.ids(), [ids("e", 0..3)]);
    buffered.shutdown().await;
}

#[tokio::test]
async fn process_events_async_delegate_all_delivered() {
    let recorder = Recorder::new(false);
    let mut batch = config(1000, 7, Duration::from_millis(5));
    batch.async_delegate = true;
    let buffered = Buffered::start(recorder.clone(), &batch, AuditMetrics::default());
    for chunk in events("e", 100, Level::Metadata).chunks(9) {
        // Batch mode answers true whatever the backend behind does.
        assert!(buffered.process_events(chunk).await);
    }
    buffered.shutdown().await;
    let mut received = recorder.ids().concat();
    received.sort();
    let mut want = ids("e", 0..100);
    want.sort();
    assert_eq!(received, want);
    assert!(recorder.ids().iter().all(|b| b.len() <= 7));
}
