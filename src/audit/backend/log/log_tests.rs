#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly

use std::collections::BTreeSet;
use std::os::unix::fs::PermissionsExt;

use super::*;
use crate::audit::Level;
use crate::audit::backend::settings::Rotation;
use crate::audit::backend::testing::{events, ticking};

fn file_target(path: &Path, max_size_mb: u64) -> LogTarget {
    LogTarget::File(Rotation {
        path: path.to_path_buf(),
        max_size_mb,
        max_age_days: 0,
        max_backups: 0,
        compress: false,
    })
}

/// Every line of every file in `dir`.
fn all_lines(dir: &Path) -> Vec<String> {
    let mut lines = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let text = fs::read_to_string(entry.unwrap().path()).unwrap();
        lines.extend(text.lines().map(str::to_string));
    }
    lines
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn process_events_concurrent_load_rotating_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("audit.log");
    let metrics = AuditMetrics::default();
    // 10,000 events of ~800 bytes through 1 MiB files: several rotations under load.
    let backend = Arc::new(
        LogBackend::start(
            &file_target(&path, 1),
            Format::Json,
            metrics.clone(),
            ticking(),
        )
        .unwrap(),
    );
    let mut tasks = Vec::new();
    for task in 0..20 {
        let backend = backend.clone();
        tasks.push(tokio::spawn(async move {
            for event in events(&format!("t{task}"), 500, Level::RequestResponse) {
                assert!(backend.process_events(&[event]).await);
            }
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    // Written before each call returned: counted before shutdown.
    let lines = all_lines(dir.path());
    backend.shutdown().await;
    assert_eq!(lines.len(), 10_000);
    let ids: BTreeSet<String> = lines
        .iter()
        .map(|line| {
            let event: serde_json::Value = serde_json::from_str(line).unwrap();
            event["auditID"].as_str().unwrap().to_string()
        })
        .collect();
    assert_eq!(ids.len(), 10_000);
    assert!(fs::read_dir(dir.path()).unwrap().count() > 3, "rotated");
    assert_eq!(metrics.errors(PLUGIN), 0);
}

#[tokio::test]
async fn start_missing_directory_created_private() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested/audit/audit.log");
    let backend = LogBackend::start(
        &file_target(&path, 100),
        Format::Json,
        AuditMetrics::default(),
        ticking(),
    )
    .unwrap();
    // Created at start, before any event, as kube's ensureLogFile does.
    let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&path), 0o600);
    assert_eq!(mode(path.parent().unwrap()), 0o700);
    backend.shutdown().await;
}

#[tokio::test]
async fn process_events_legacy_format_writes_event_strings() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("audit.log");
    // maxsize 0: one file appended to, never rotated.
    let backend = LogBackend::start(
        &file_target(&path, 0),
        Format::Legacy,
        AuditMetrics::default(),
        ticking(),
    )
    .unwrap();
    let sent = events("l", 2, Level::Metadata);
    assert!(backend.process_events(&sent).await);
    backend.shutdown().await;
    let text = fs::read_to_string(&path).unwrap();
    let want: String = sent.iter().map(|e| legacy_line(e) + "\n").collect();
    assert_eq!(text, want);
    assert!(
        text.starts_with("2026-12-07T13:47:16.12Z AUDIT: id=\"id-l-0\""),
        "{text}"
    );
}

#[tokio::test]
async fn process_events_after_shutdown_fails_counted() {
    let dir = tempfile::tempdir().unwrap();
    let metrics = AuditMetrics::default();
    let backend = LogBackend::start(
        &file_target(&dir.path().join("audit.log"), 100),
        Format::Json,
        metrics.clone(),
        ticking(),
    )
    .unwrap();
    backend.shutdown().await;
    assert!(
        !backend
            .process_events(&events("late", 3, Level::Metadata))
            .await
    );
    assert_eq!(metrics.errors(PLUGIN), 3);
}
