//! The events of real requests reaching both backends at once (the log file and a real
//! HTTPS audit webhook, blocking mode): each the same event, in the same order; and
//! blocking-strict: a request whose RequestReceived event the webhook cannot take fails
//! with kube's 500 and changes nothing, counted in `apiserver_audit_requests_rejected_total`.

use serde_json::Value;

use crate::audit_sink::AuditSink;
use crate::common::Server;
use crate::{CRONTABS, admin, audit_flags, crontab, events_of, new_id, policy_at};

fn start(sink: &AuditSink, mode: &str) -> (Server, std::path::PathBuf, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let (mut flags, log) = audit_flags(dir.path(), &policy_at("RequestResponse"));
    let kubeconfig = sink.kubeconfig(dir.path(), "/events");
    flags.extend([
        "--audit-webhook-config-file".to_string(),
        kubeconfig.display().to_string(),
        "--audit-webhook-mode".to_string(),
        mode.to_string(),
        "--audit-webhook-initial-backoff".to_string(),
        "5ms".to_string(),
    ]);
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    (Server::start_with(&flags), log, dir)
}

/// An event without `kind` and `apiVersion` (an EventList's items leave them out).
fn as_item(event: &Value) -> Value {
    let mut item = event.clone();
    let fields = item.as_object_mut().unwrap();
    fields.remove("kind");
    fields.remove("apiVersion");
    item
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn audit_webhook_and_log_receive_the_same_events() {
    let sink = AuditSink::start();
    let (server, log, _dir) = start(&sink, "blocking");
    let c = admin(&server);
    let id = new_id("both");
    let resp = c
        .post(server.url(CRONTABS))
        .header("Audit-ID", &id)
        .json(&crontab("s1"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 201);
    let logged = events_of(&log, &id, 2).await;
    let received = sink.wait_for_events(|events| {
        events
            .iter()
            .filter(|e| e["auditID"] == id.as_str())
            .count()
            >= 2
    });
    let received: Vec<Value> = received
        .iter()
        .filter(|e| e["auditID"] == id.as_str())
        .map(as_item)
        .collect();
    let items: Vec<Value> = logged.iter().map(as_item).collect();
    assert_eq!(received, items);
    assert_eq!(received[1]["requestObject"], crontab("s1"));
    assert!(sink.received().iter().all(|r| r.path == "/events"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn audit_blocking_strict_failure_refuses_the_request() {
    let sink = AuditSink::start();
    let (server, _log, _dir) = start(&sink, "blocking-strict");
    let c = admin(&server);
    // The webhook backend tries five times; every try fails.
    sink.fail_next(5);
    let resp = c
        .post(server.url(CRONTABS))
        .json(&crontab("never"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 500);
    let text = resp.text().await.unwrap();
    assert_eq!(
        text,
        format!("Internal Server Error: \"{CRONTABS}\": failed to store audit event\n")
    );
    let got = c
        .get(server.url(&format!("{CRONTABS}/never")))
        .send()
        .await
        .unwrap();
    assert_eq!(got.status(), 404, "nothing was created");
    let metrics = server.metrics().await;
    assert!(
        metrics
            .lines()
            .any(|l| l == "apiserver_audit_requests_rejected_total 1"),
        "{metrics}"
    );
    let levels = metrics
        .lines()
        .find(|l| l.starts_with("apiserver_audit_level_total{level=\"RequestResponse\"}"));
    assert!(levels.is_some(), "{metrics}");
}
