#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly

use super::*;
use crate::audit::backend::testing::{Recorder, event, events};

fn truncating(recorder: &Arc<Recorder>, max_event_size: u64, max_batch_size: u64) -> Truncating {
    Truncating {
        delegate: recorder.clone(),
        config: TruncateConfig {
            max_event_size,
            max_batch_size,
        },
        metrics: AuditMetrics::default(),
    }
}

#[tokio::test]
async fn process_events_oversized_request_response_loses_objects() {
    let recorder = Recorder::new(true);
    let big = Arc::new(event("big", Level::RequestResponse));
    let metadata_size = json_size(&event("big", Level::Metadata));
    // Room for the event without its objects (and the annotation), not with them.
    let backend = truncating(&recorder, metadata_size + 100, 1 << 20);
    assert!(backend.process_events(std::slice::from_ref(&big)).await);
    let batches = recorder.batches.lock().unwrap().clone();
    let sent = &batches[0][0];
    assert!(sent.request_object.is_none() && sent.response_object.is_none());
    assert_eq!(
        sent.annotations
            .get("audit.k8s.io/truncated")
            .map(String::as_str),
        Some("true")
    );
    assert_eq!(sent.audit_id, "id-big");
    assert_eq!(backend.metrics.errors(PLUGIN), 0);
}

#[tokio::test]
async fn process_events_oversized_metadata_dropped_counted() {
    let recorder = Recorder::new(true);
    let small = events("s", 1, Level::Metadata);
    let size = json_size(&small[0]);
    let backend = truncating(&recorder, size - 1, 1 << 20);
    // Nothing sent, the drop counted; the answer is the backend's (none was called).
    assert!(backend.process_events(&small).await);
    assert!(recorder.ids().is_empty());
    assert_eq!(backend.metrics.errors(PLUGIN), 1);
}

#[tokio::test]
async fn process_events_over_batch_size_split() {
    let recorder = Recorder::new(true);
    let sent = events("e", 5, Level::Metadata);
    let size = json_size(&sent[0]);
    let backend = truncating(&recorder, size, size * 5 / 2);
    assert!(backend.process_events(&sent).await);
    let sizes: Vec<usize> = recorder.ids().iter().map(Vec::len).collect();
    assert_eq!(sizes, [2, 2, 1]);
}
