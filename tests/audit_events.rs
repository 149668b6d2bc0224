//! Audit events end to end (issue 33, point 2): the real server with a real
//! `--audit-policy-file` and log file (`--audit-log-path`), and a real HTTPS audit webhook
//! (tests/common/audit_sink.rs). Every request sends its own `Audit-ID`, so its events are
//! picked out of the log by it; the tests assert on every field kube fills.
//! - `crud`: per level, the events of create, get, list, update, patch, apply, status,
//!   scale and delete (request and response objects, object reference, status);
//! - `refusals`: 404, 409, 422, 401, 403 by SubjectAccessReview, impersonation;
//! - `stages`: a watch's ResponseStarted and ResponseComplete, `omitStages`,
//!   `omitManagedFields`, `Audit-ID` honoured and returned, `X-Forwarded-For`;
//! - `sink`: the same events in the log and at a real HTTPS audit webhook; blocking-strict
//!   refusing a request whose event cannot be taken;
//! - `admission`: webhook annotations (patches at Request level only) and a validating
//!   policy's audit annotations.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

#[path = "common/audit_sink.rs"]
mod audit_sink;
mod common;
#[path = "common/fake_kube.rs"]
mod fake_kube;
#[path = "common/webhook.rs"]
mod webhook;
#[path = "common/webhook_host.rs"]
mod webhook_host;

#[path = "audit_events/admission.rs"]
mod admission;
#[path = "audit_events/crud.rs"]
mod crud;
#[path = "audit_events/refusals.rs"]
mod refusals;
#[path = "audit_events/sink.rs"]
mod sink;
#[path = "audit_events/stages.rs"]
mod stages;

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};

pub const CRONTABS: &str = "/apis/stable.example.com/v1/namespaces/default/crontabs";
pub const AGENT: &str = "audit-test/1.0";

/// Every request at `level`.
pub fn policy_at(level: &str) -> String {
    format!("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: {level}\n")
}

/// The flags auditing with `policy` into a JSON log file in `dir`; the log's path.
pub fn audit_flags(dir: &Path, policy: &str) -> (Vec<String>, PathBuf) {
    let policy_file = dir.join("audit-policy.yaml");
    std::fs::write(&policy_file, policy).unwrap();
    let log = dir.join("audit.log");
    let flags = vec![
        "--audit-policy-file".to_string(),
        policy_file.display().to_string(),
        "--audit-log-path".to_string(),
        log.display().to_string(),
    ];
    (flags, log)
}

/// The events of the log file so far.
pub fn logged(log: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

/// The events of the request with `audit_id`, once there are `n` of them (in order).
pub async fn events_of(log: &Path, audit_id: &str, n: usize) -> Vec<Value> {
    let what = format!("{n} events of {audit_id}");
    common::eventually(Duration::from_secs(10), &what, || {
        let events: Vec<Value> = logged(log)
            .into_iter()
            .filter(|e| e["auditID"] == audit_id)
            .collect();
        std::future::ready((events.len() >= n).then_some(events))
    })
    .await
}

/// A fresh audit ID.
pub fn new_id(what: &str) -> String {
    format!("{what}-{}", uuid::Uuid::new_v4())
}

/// A CronTab named `name`.
pub fn crontab(name: &str) -> Value {
    json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"cronSpec": "* * * * */5", "image": "img", "replicas": 1}})
}

/// The dev admin as an event's `user`.
pub fn dev_admin() -> Value {
    json!({"username": "dev-admin", "groups": ["system:masters", "system:authenticated"]})
}

/// `metav1.MicroTime` as kube writes it.
pub fn is_micro_time(v: &Value) -> bool {
    let s = v.as_str().unwrap_or_default();
    s.len() == 27
        && s.ends_with('Z')
        && s.parse::<jiff::Timestamp>().is_ok()
        && s.as_bytes()[19] == b'.'
}

/// What every event of a request shares, checked on each: kind, apiVersion, level,
/// auditID, requestURI, verb, user, sourceIPs, userAgent, the timestamps.
pub fn check_common(events: &[Value], level: &str, id: &str, uri: &str, verb: &str, user: &Value) {
    let received = &events[0]["requestReceivedTimestamp"];
    for e in events {
        assert_eq!(e["kind"], "Event", "{e}");
        assert_eq!(e["apiVersion"], "audit.k8s.io/v1", "{e}");
        assert_eq!(e["level"], level, "{e}");
        assert_eq!(e["auditID"], id, "{e}");
        assert_eq!(e["requestURI"], uri, "{e}");
        assert_eq!(e["verb"], verb, "{e}");
        assert_eq!(&without_credential_id(&e["user"]), user, "{e}");
        assert_eq!(e["sourceIPs"], json!(["127.0.0.1"]), "{e}");
        assert_eq!(e["userAgent"], AGENT, "{e}");
        assert!(is_micro_time(&e["requestReceivedTimestamp"]), "{e}");
        assert!(is_micro_time(&e["stageTimestamp"]), "{e}");
        assert_eq!(&e["requestReceivedTimestamp"], received, "{e}");
        assert!(
            e["stageTimestamp"].as_str() >= received.as_str(),
            "stage before received: {e}"
        );
    }
}

/// An event's user without the credential ID kube adds for a client certificate, which is
/// checked for its form (`X509SHA256=<hex>`) and dropped.
pub fn without_credential_id(user: &Value) -> Value {
    const KEY: &str = "authentication.kubernetes.io/credential-id";
    let mut user = user.clone();
    if let Some(extra) = user.get_mut("extra").and_then(Value::as_object_mut)
        && let Some(id) = extra.remove(KEY)
    {
        let id = id[0].as_str().unwrap_or_default();
        assert!(id.starts_with("X509SHA256=") && id.len() == 11 + 64, "{id}");
        if extra.is_empty() {
            user.as_object_mut().unwrap().remove("extra");
        }
    }
    user
}

/// The annotations kube's authorization filter leaves on an allowed request.
pub fn allowed() -> Value {
    json!({"authorization.k8s.io/decision": "allow", "authorization.k8s.io/reason": ""})
}

/// `value` parsed from a JSON text field of an event, or the field as it is.
pub fn object_of(e: &Value, field: &str) -> Value {
    e[field].clone()
}

/// A client sending the test's user agent, as the dev admin.
pub fn admin(server: &common::Server) -> reqwest::Client {
    let tls = common::tls_config(&server.pki, Some(("admin.crt", "admin.key")));
    reqwest::Client::builder()
        .use_preconfigured_tls(tls)
        .user_agent(AGENT)
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap()
}
