//! The audit backends as the server builds them (`audit::backend::from_config`) against
//! real receivers: the webhook backend POSTing EventLists over real TLS to the test sink
//! (tests/common/audit_sink.rs), retrying with kube's backoff, in each mode; the log
//! backend and the webhook joined.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

#[path = "common/audit_sink.rs"]
mod audit_sink;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use audit_sink::AuditSink;
use crd_apiserver::audit::backend::settings::{
    BatchConfig, Format, LogSettings, LogTarget, Mode, Rotation, WebhookSettings,
};
use crd_apiserver::audit::backend::{AuditMetrics, AuditSettings, Backend, from_config};
use crd_apiserver::audit::event::{ObjectReference, UserInfo};
use crd_apiserver::audit::policy::Policy;
use crd_apiserver::audit::{Event, Level, Stage};

fn event(name: &str) -> Arc<Event> {
    Arc::new(Event {
        kind: "Event".into(),
        api_version: "audit.k8s.io/v1".into(),
        level: Level::Metadata,
        audit_id: format!("id-{name}"),
        stage: Stage::ResponseComplete,
        request_uri: format!("/apis/stable.example.com/v1/namespaces/default/crontabs/{name}"),
        verb: "get".into(),
        user: UserInfo {
            username: "alice".into(),
            ..UserInfo::default()
        },
        impersonated_user: None,
        source_ips: vec!["127.0.0.1".into()],
        user_agent: "test".into(),
        object_ref: Some(ObjectReference {
            resource: "crontabs".into(),
            namespace: "default".into(),
            name: name.into(),
            ..ObjectReference::default()
        }),
        response_status: Some(serde_json::json!({"metadata": {}, "code": 200})),
        request_object: None,
        response_object: None,
        request_received_timestamp: "2026-12-07T13:47:16.120000Z".into(),
        stage_timestamp: "2026-12-07T13:47:16.125300Z".into(),
        annotations: BTreeMap::new(),
    })
}

fn events(prefix: &str, count: usize) -> Vec<Arc<Event>> {
    (0..count)
        .map(|i| event(&format!("{prefix}-{i}")))
        .collect()
}

fn ids(values: &[serde_json::Value]) -> Vec<String> {
    values
        .iter()
        .map(|e| e["auditID"].as_str().unwrap().to_string())
        .collect()
}

fn webhook(kubeconfig: PathBuf, initial_backoff: Duration, mode: Mode) -> WebhookSettings {
    WebhookSettings {
        config_file: kubeconfig,
        initial_backoff,
        mode,
        truncate: None,
    }
}

/// Settings with a policy (of one Metadata rule) and these backends.
fn with_policy(log: Option<LogSettings>, webhook: Option<WebhookSettings>) -> AuditSettings {
    AuditSettings {
        policy: Some(Arc::new(
            Policy::from_bytes(
                b"apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n",
            )
            .unwrap(),
        )),
        log,
        webhook,
    }
}

async fn backend(settings: &AuditSettings, metrics: &AuditMetrics) -> Arc<dyn Backend> {
    from_config(settings, metrics.clone())
        .await
        .expect("builds")
        .expect("a backend")
}

#[tokio::test]
async fn webhook_failing_first_retried_with_backoff_delivered() {
    let sink = AuditSink::start();
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = sink.kubeconfig(dir.path(), "/audit/events");
    let settings = with_policy(
        None,
        Some(webhook(
            kubeconfig,
            Duration::from_millis(200),
            Mode::BlockingStrict,
        )),
    );
    let metrics = AuditMetrics::default();
    let backend = backend(&settings, &metrics).await;
    sink.fail_next(2);
    let start = Instant::now();
    assert!(backend.process_events(&events("e", 3)).await);
    // Two failures waited out: 200ms, then 300ms (each with up to 20% jitter).
    assert!(
        start.elapsed() >= Duration::from_millis(500),
        "{:?}",
        start.elapsed()
    );
    let received = sink.received();
    let failed: Vec<bool> = received.iter().map(|r| r.failed).collect();
    assert_eq!(failed, [true, true, false]);
    for post in &received {
        assert_eq!(post.path, "/audit/events");
        assert_eq!(post.query.as_deref(), Some("timeout=30s"));
        assert_eq!(
            post.authorization.as_deref(),
            Some("Bearer audit-sink-token")
        );
        assert_eq!(post.content_type.as_deref(), Some("application/json"));
        assert_eq!(post.body["kind"], "EventList");
        assert_eq!(post.body["apiVersion"], "audit.k8s.io/v1");
        assert_eq!(
            ids(post.body["items"].as_array().unwrap()),
            ["id-e-0", "id-e-1", "id-e-2"]
        );
    }
    let item = &received[2].body["items"][1];
    assert_eq!(item["objectRef"]["name"], "e-1");
    // Items carry no kind or apiVersion: the list does, as kube writes it.
    assert!(
        item.get("kind").is_none() && item.get("apiVersion").is_none(),
        "{item}"
    );
    assert_eq!(metrics.errors("webhook"), 0);
    backend.shutdown().await;
}

#[tokio::test]
async fn webhook_always_failing_gives_up_after_five_counted() {
    let sink = AuditSink::start();
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = sink.kubeconfig(dir.path(), "/");
    let metrics = AuditMetrics::default();
    let strict = with_policy(
        None,
        Some(webhook(
            kubeconfig.clone(),
            Duration::from_millis(5),
            Mode::BlockingStrict,
        )),
    );
    sink.fail_next(1000);
    let backend = backend(&strict, &metrics).await;
    // blocking-strict: the failure is the caller's answer.
    assert!(!backend.process_events(&events("e", 4)).await);
    assert_eq!(sink.received().len(), 5);
    assert_eq!(metrics.errors("webhook"), 4);
    // blocking: the same failure, counted, and the caller goes on.
    let blocking = with_policy(
        None,
        Some(webhook(
            kubeconfig,
            Duration::from_millis(5),
            Mode::Blocking,
        )),
    );
    let backend = crate::backend(&blocking, &metrics).await;
    assert!(backend.process_events(&events("f", 2)).await);
    assert_eq!(sink.received().len(), 10);
    assert_eq!(metrics.errors("webhook"), 6);
}

// Multi-threaded: the batching task runs while this thread polls the sink.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhook_batch_mode_delivers_everything_in_bounded_batches() {
    let sink = AuditSink::start();
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = sink.kubeconfig(dir.path(), "/batch");
    let mut batch = BatchConfig::webhook_default();
    batch.max_batch_wait = Duration::from_millis(50);
    let settings = with_policy(
        None,
        Some(webhook(
            kubeconfig,
            Duration::from_millis(10),
            Mode::Batch(batch),
        )),
    );
    let metrics = AuditMetrics::default();
    let backend = backend(&settings, &metrics).await;
    sink.fail_next(1);
    let sent = events("e", 1000);
    for event in &sent {
        // Batch mode: the caller never waits for the webhook.
        assert!(backend.process_events(std::slice::from_ref(event)).await);
    }
    let received = sink.wait_for_events(|events| events.len() >= 1000);
    let mut got = ids(&received);
    got.sort();
    let mut want: Vec<String> = sent.iter().map(|e| e.audit_id.clone()).collect();
    want.sort();
    assert_eq!(got, want, "each event once, the failed batch retried");
    assert!(
        sink.received()
            .iter()
            .all(|r| r.body["items"].as_array().unwrap().len() <= 400)
    );
    assert_eq!(metrics.errors("buffered") + metrics.errors("webhook"), 0);
    backend.shutdown().await;
}

#[tokio::test]
async fn union_of_log_and_webhook_both_record() {
    let sink = AuditSink::start();
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = sink.kubeconfig(dir.path(), "/union");
    let log_path = dir.path().join("audit.log");
    let log = LogSettings {
        target: LogTarget::File(Rotation {
            path: log_path.clone(),
            max_size_mb: 100,
            max_age_days: 0,
            max_backups: 0,
            compress: false,
        }),
        format: Format::Json,
        mode: Mode::Blocking,
        truncate: None,
    };
    let settings = with_policy(
        Some(log),
        Some(webhook(
            kubeconfig,
            Duration::from_millis(10),
            Mode::Blocking,
        )),
    );
    let backend = backend(&settings, &AuditMetrics::default()).await;
    assert!(backend.process_events(&events("u", 2)).await);
    backend.shutdown().await;
    let lines = std::fs::read_to_string(&log_path).unwrap();
    let logged: Vec<serde_json::Value> = lines
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(ids(&logged), ["id-u-0", "id-u-1"]);
    assert_eq!(ids(&sink.events()), ["id-u-0", "id-u-1"]);
}

#[tokio::test]
async fn from_config_without_policy_or_with_bad_kubeconfig() {
    let dir = tempfile::tempdir().unwrap();
    let log_path = dir.path().join("audit.log");
    let log = LogSettings {
        target: LogTarget::File(Rotation {
            path: log_path.clone(),
            max_size_mb: 100,
            max_age_days: 0,
            max_backups: 0,
            compress: false,
        }),
        format: Format::Json,
        mode: Mode::Blocking,
        truncate: None,
    };
    let no_policy = AuditSettings {
        policy: None,
        log: Some(log),
        webhook: None,
    };
    let metrics = AuditMetrics::default();
    assert!(
        from_config(&no_policy, metrics.clone())
            .await
            .unwrap()
            .is_none()
    );
    let garbage = dir.path().join("garbage.kubeconfig");
    std::fs::write(&garbage, "clusters: [").unwrap();
    let bad = with_policy(
        None,
        Some(webhook(garbage, Duration::from_secs(1), Mode::Blocking)),
    );
    let error = from_config(&bad, metrics).await.err().unwrap();
    assert!(error.starts_with("initializing audit webhook: "), "{error}");
    assert!(!Path::new(&log_path).exists() || std::fs::read(&log_path).unwrap().is_empty());
}
