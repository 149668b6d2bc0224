//! The audit log (issue 33) compared request for request with the reference
//! apiextensions-apiserver 0.36.4. The scenarios and the reference's events are data:
//! tests/fixtures/audit/scenarios.json (each scenario's audit policy, extra flags and host
//! objects: webhook configurations and ValidatingAdmissionPolicies in the admission oracles'
//! template form) and tests/fixtures/audit/compare.jsonl (each request as sent, the reference's
//! code and `Audit-Id` header, and the lines its log backend wrote for that request's events),
//! recorded by hack/audit-oracle/record.py from hack/audit-oracle/scenario.py; webhook.json
//! holds what its audit webhook backend POSTed. Each scenario replays on a fresh dev server with
//! the same policy and flags, whose cluster is the fake core API (tokens `bob-token` and
//! `mallory-token` as the stub's TokenReview answers them, SubjectAccessReviews denied for the
//! stub's deny list with its reasons) calling a port of the stub webhook. Every event field must
//! match, in Go's order, but for what events/masks (audit IDs the server chose, timestamps,
//! uids, resourceVersions, the certificate user's name and digest). FINDINGS.md beside the
//! recorder says what the recordings show.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;
#[path = "audit_compare/events.rs"]
mod events;
#[path = "common/fake_kube.rs"]
mod fake_kube;
#[allow(dead_code)] // the admission replays use the rest
#[path = "common/compare_masking.rs"]
mod masking;
#[path = "audit_compare/receiver.rs"]
mod receiver;
#[allow(dead_code)]
#[path = "common/stub_webhook.rs"]
mod stub_webhook;
#[path = "common/webhook.rs"]
mod webhook;
#[path = "common/webhook_host.rs"]
mod webhook_host;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use fake_kube::{Decision, FakeKube, front_proxy_data};
use receiver::AuditReceiver;
use serde_json::{Value, json};
use stub_webhook::StubWebhook;
use webhook_host::start_server;

/// Every recorded answer came within this.
const ANSWER_WITHIN: Duration = Duration::from_secs(20);
/// How long a request's events may take to reach the log after its answer.
const EVENTS_WITHIN: Duration = Duration::from_secs(10);

fn fixture(name: &str) -> std::path::PathBuf {
    common::repo_root().join("tests/fixtures/audit").join(name)
}

fn steps(scenario: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(fixture("compare.jsonl")).unwrap();
    let steps: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|s: &Value| s["scenario"] == json!(scenario))
        .collect();
    assert!(!steps.is_empty(), "no recorded steps for {scenario}");
    steps
}

fn scenarios() -> BTreeMap<String, Value> {
    let text = std::fs::read_to_string(fixture("scenarios.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The fake core API as the reference's stub served the scenario.
fn host(scenario: &Value, webhook: &StubWebhook) -> FakeKube {
    let fake = FakeKube::start();
    let proxy_ca = crd_apiserver::server::pki::new_authority("front-proxy-ca").unwrap();
    fake.set_configmap(Some(front_proxy_data(
        &proxy_ca.pem.cert,
        &["front-proxy-client"],
    )));
    for object in scenario["objects"].as_array().unwrap() {
        fake.put_object(webhook.instantiate(object));
    }
    // The stub's TokenReview: `<name>-token` is user <name> in groups tokenusers and
    // system:authenticated (only the tokens the scenarios send).
    for name in ["bob", "mallory", "carol"] {
        let user = json!({"username": name, "groups": ["tokenusers", "system:authenticated"]});
        fake.add_token(&format!("{name}-token"), user);
    }
    let denied: Vec<String> = serde_json::from_value(scenario["deny_users"].clone()).unwrap();
    fake.set_policy(move |spec| {
        let user = spec["user"].as_str().unwrap_or_default();
        match denied.iter().any(|d| d == user) {
            // The stub answers allowed: false without denied: no opinion.
            true => Decision::no_opinion("sar-stub deny"),
            false => Decision::allow("sar-stub allow"),
        }
    });
    fake
}

/// Our answer to a step: code, `Audit-Id` header, body.
struct Answer {
    code: u16,
    audit_id: Option<String>,
    body: Value,
}

async fn send(server: &common::Server, step: &Value) -> Result<Answer, String> {
    let method = http::Method::from_bytes(step["method"].as_str().unwrap().as_bytes()).unwrap();
    let path = step["path"].as_str().unwrap();
    let client = match step["as"].as_str().unwrap_or("admin") {
        "admin" => server.client(),
        _ => server.anonymous(), // a bearer token, in the recorded headers
    };
    let mut req = client.request(method, server.url(path));
    for (k, v) in step["headers"].as_object().unwrap() {
        req = req.header(k.as_str(), v.as_str().unwrap());
    }
    if let Some(text) = step["body_text"].as_str() {
        let body = match step["fill_rv"] == json!(true) {
            true => with_current_rv(server, path, text).await,
            false => text.to_string(),
        };
        req = req.body(body);
    }
    let answer = async {
        let resp = req.send().await.map_err(|e| e.to_string())?;
        let code = resp.status().as_u16();
        let audit_id = resp.headers().get("audit-id");
        let audit_id = audit_id.map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
        let text = resp.text().await.map_err(|e| e.to_string())?;
        let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
        Ok(Answer {
            code,
            audit_id,
            body,
        })
    };
    match tokio::time::timeout(ANSWER_WITHIN, answer).await {
        Ok(answer) => answer,
        Err(_) => Err(format!("no answer within {ANSWER_WITHIN:?}")),
    }
}

/// A PUT body carrying the object's current resourceVersion, as the recorder's did.
async fn with_current_rv(server: &common::Server, path: &str, text: &str) -> String {
    let object = path.split('?').next().unwrap();
    let object = object.strip_suffix("/status").unwrap_or(object);
    let object = object.strip_suffix("/scale").unwrap_or(object);
    let mut body: Value = serde_json::from_str(text).unwrap();
    let current = server
        .client()
        .get(server.url(object))
        .send()
        .await
        .unwrap();
    if current.status() == 200 {
        let current: Value = current.json().await.unwrap();
        body["metadata"]["resourceVersion"] = current["metadata"]["resourceVersion"].clone();
    }
    body.to_string()
}

/// Our audit log: its lines grouped by audit ID (`auditID`, or a legacy line's `id="…"`).
fn log_lines(path: &Path) -> BTreeMap<String, Vec<String>> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in text.lines() {
        let id = match serde_json::from_str::<Value>(line) {
            Ok(event) => event["auditID"].as_str().unwrap_or_default().to_string(),
            Err(_) => legacy_id(line),
        };
        out.entry(id).or_default().push(line.to_string());
    }
    out
}

fn legacy_id(line: &str) -> String {
    let start = line.find(" id=\"").map(|i| i + 5);
    let id = start.and_then(|s| line[s..].find('"').map(|e| &line[s..s + e]));
    id.unwrap_or_default().to_string()
}

/// Our lines for `id`, once there are as many as the reference wrote (or the wait is over).
async fn lines_of(log: &Path, id: &str, want: usize) -> Vec<String> {
    let deadline = tokio::time::Instant::now() + EVENTS_WITHIN;
    loop {
        let lines = log_lines(log).remove(id).unwrap_or_default();
        if lines.len() >= want || tokio::time::Instant::now() > deadline {
            return lines;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn recorded_lines(step: &Value) -> Vec<String> {
    serde_json::from_value(step["events"].clone()).unwrap()
}

/// Compares one step's answer and events with the recording.
async fn step_differences(
    step: &Value,
    ours: &Answer,
    log: Option<&Path>,
    legacy: bool,
) -> Vec<String> {
    let mut diffs = Vec::new();
    let recorded_code = step["code"].as_u64().unwrap() as u16;
    if ours.code != recorded_code {
        let body = masking::cut(&ours.body);
        diffs.push(format!("code {}, want {recorded_code}: {body}", ours.code));
    }
    let chosen = step["headers"]["Audit-ID"].as_str();
    let Some(id) = ours.audit_id.as_deref().filter(|id| !id.is_empty()) else {
        diffs.push("no Audit-Id response header, the reference answers one".into());
        return diffs;
    };
    if let Some(chosen) = chosen.filter(|c| *c != id) {
        diffs.push(format!("Audit-Id {id:?}, want the client's {chosen:?}"));
    }
    let Some(log) = log else {
        return diffs;
    };
    let recorded = recorded_lines(step);
    let lines = lines_of(log, id, recorded.len()).await;
    match legacy {
        true => diffs.extend(events::legacy_differences(
            &lines,
            &recorded,
            chosen.is_some(),
        )),
        false => diffs.extend(events::differences(
            &lines,
            &recorded,
            chosen.is_some(),
            true,
        )),
    }
    diffs
}

/// The audit flags of `scenario` for our server, its policy written into `dir`.
fn audit_flags(scenario: &Value, dir: &Path, receiver: Option<&AuditReceiver>) -> Vec<String> {
    let mut flags = Vec::new();
    if !scenario["policy"].is_null() {
        let policy = dir.join("policy.yaml");
        std::fs::write(
            &policy,
            serde_json::to_string_pretty(&scenario["policy"]).unwrap(),
        )
        .unwrap();
        flags.extend([
            "--audit-policy-file".to_string(),
            policy.display().to_string(),
        ]);
        flags.extend([
            "--audit-log-path".to_string(),
            dir.join("audit.log").display().to_string(),
        ]);
    }
    for flag in scenario["flags"].as_array().unwrap() {
        let flag = flag.as_str().unwrap();
        match (flag, receiver) {
            ("$AUDIT_WEBHOOK" | "$AUDIT_WEBHOOK_CLOSING", Some(r)) => {
                flags.push(r.kubeconfig(dir).display().to_string())
            }
            _ => flags.push(flag.to_string()),
        }
    }
    flags
}

/// Replays `scenario`; returns the differences found.
async fn replay(name: &str) -> Vec<String> {
    let scenarios = scenarios();
    let scenario = &scenarios[name];
    let webhook = StubWebhook::start();
    let fake = host(scenario, &webhook);
    let flags = scenario["flags"].as_array().unwrap();
    let closing = flags.iter().any(|f| f == "$AUDIT_WEBHOOK_CLOSING");
    let uses_webhook = closing || flags.iter().any(|f| f == "$AUDIT_WEBHOOK");
    let receiver = uses_webhook.then(|| AuditReceiver::start(closing));
    let dir = tempfile::tempdir().unwrap();
    let flags = audit_flags(scenario, dir.path(), receiver.as_ref());
    let kubeconfig = fake.kubeconfig().display().to_string();
    let mut args = vec![
        "--authentication-kubeconfig",
        &kubeconfig,
        "--authorization-kubeconfig",
        &kubeconfig,
    ];
    args.extend(flags.iter().map(String::as_str));
    let server = start_server(&fake, &args);
    let log = dir.path().join("audit.log");
    let log = (!scenario["policy"].is_null()).then_some(log.as_path());
    let legacy = flags
        .windows(2)
        .any(|w| w[0] == "--audit-log-format" && w[1] == "legacy");
    let mut diffs = Vec::new();
    let mut ids = Vec::new();
    for step in steps(name) {
        let label = format!(
            "[{name} step {}] {} {}",
            step["index"],
            step["method"].as_str().unwrap(),
            step["path"].as_str().unwrap()
        );
        let found = match send(&server, &step).await {
            Ok(answer) => {
                ids.push((step.clone(), answer.audit_id.clone()));
                step_differences(&step, &answer, log, legacy).await
            }
            Err(e) => vec![e],
        };
        diffs.extend(found.into_iter().map(|d| format!("{label}: {d}")));
    }
    if let Some(log) = log {
        diffs.extend(late_lines(log, &ids));
    }
    if let Some(receiver) = &receiver {
        diffs.extend(receiver::differences(receiver, name, &ids).await);
    }
    drop(server);
    drop(fake);
    diffs
}

/// Lines written for a step after it was compared (more events than the reference's).
fn late_lines(log: &Path, ids: &[(Value, Option<String>)]) -> Vec<String> {
    let mut lines = log_lines(log);
    let mut diffs = Vec::new();
    for (step, id) in ids {
        let ours = id
            .as_ref()
            .and_then(|id| lines.remove(id))
            .unwrap_or_default();
        let want = recorded_lines(step).len();
        if ours.len() > want {
            diffs.push(format!(
                "[step {}] {} events, want {want}: {:?}",
                step["index"],
                ours.len(),
                ours
            ));
        }
    }
    diffs
}

async fn assert_scenario(scenario: &str) {
    let diffs = replay(scenario).await;
    assert!(
        diffs.is_empty(),
        "{} differences:\n{}",
        diffs.len(),
        diffs.join("\n")
    );
}

macro_rules! scenario_tests {
    ($($scenario:ident)*) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $scenario() {
                assert_scenario(stringify!($scenario)).await;
            }
        )*

        #[test]
        fn recording_every_scenario_has_a_test() {
            let tested = [$(stringify!($scenario)),*];
            let recorded: Vec<String> = scenarios().into_keys().collect();
            let untested: Vec<_> = recorded.iter().filter(|c| !tested.contains(&c.as_str())).collect();
            assert!(untested.is_empty(), "recorded scenarios without a test: {untested:?}");
            for scenario in tested {
                assert!(!steps(scenario).is_empty(), "{scenario} has no recorded steps");
                // Our log's lines are told apart by audit ID: a client's must not repeat.
                let mut chosen: Vec<&str> = Vec::new();
                let steps = steps(scenario);
                for step in &steps {
                    if let Some(id) = step["headers"]["Audit-ID"].as_str() {
                        assert!(!chosen.contains(&id), "{scenario}: Audit-ID {id} sent twice");
                        chosen.push(id);
                    }
                }
            }
        }
    };
}

scenario_tests! {
    every_verb
    errors
    request_headers
    by_rule
    legacy_format
    no_policy
    webhook_admission
    webhook_admission_metadata
    validating_policy
    validating_policy_metadata
    webhook_batch
    webhook_blocking
    webhook_blocking_strict
    webhook_closing_blocking
    webhook_truncate
}
