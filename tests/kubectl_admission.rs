//! The real kubectl (/usr/bin/kubectl) against a dev server whose cluster runs admission
//! webhooks (issue 30): what kubectl prints for a webhook's denial and warnings must be what
//! it printed against the reference (tests/fixtures/admission/kubectl.json, recorded by
//! hack/admission-oracle/kubectl.py with the reference's stub webhook, whose Rust port
//! tests/common/stub_webhook.rs answers here): same exit code, stdout and
//! stderr, line for line, and the stored objects as the answers say.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;
#[path = "common/fake_kube.rs"]
mod fake_kube;
#[path = "common/stub_webhook.rs"]
mod stub_webhook;
#[path = "common/webhook.rs"]
mod webhook;

use common::Server;
use fake_kube::FakeKube;
use serde_json::{Value, json};
use stub_webhook::StubWebhook;

fn recording() -> Value {
    let path = common::repo_root().join("tests/fixtures/admission/kubectl.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// scenario.py's `crontab(name, labels)`, the manifest kubectl.py wrote.
fn manifest(name: &str, labels: &Value) -> Value {
    let mut metadata = json!({"name": name});
    if labels.is_object() {
        metadata["labels"] = labels.clone();
    }
    json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab", "metadata": metadata,
        "spec": {"cronSpec": "* * * * */5", "image": "my-cron-image", "replicas": 1}})
}

/// The stored CronTab `name` of the default namespace, `None` when there is none.
async fn stored(server: &Server, name: &str) -> Option<Value> {
    let path = format!("/apis/stable.example.com/v1/namespaces/default/crontabs/{name}");
    let resp = server.client().get(server.url(&path)).send().await.unwrap();
    match resp.status().as_u16() {
        200 => Some(resp.json().await.unwrap()),
        404 => None,
        other => panic!("GET {name}: {other}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_webhook_denial_and_warnings_printed_as_against_reference() {
    let recorded = recording();
    let webhook = StubWebhook::start();
    let fake = FakeKube::start();
    for template in recorded["configurations"].as_array().unwrap() {
        fake.put_webhook_configuration(webhook.instantiate(template));
    }
    let kubeconfig = fake.kubeconfig().display().to_string();
    let crds = common::repo_root()
        .join("tests/fixtures/admission/crontabs.yaml")
        .display()
        .to_string();
    let server = Server::start_with(&["--kubeconfig", &kubeconfig, "--crd-dir", &crds]);
    let dir = tempfile::tempdir().unwrap();
    let runs = recorded["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 5, "the recording's runs");
    for (i, run) in runs.iter().enumerate() {
        let args: Vec<&str> = run["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap())
            .collect();
        let file = *args.last().unwrap();
        let name = file.trim_end_matches(".json");
        let body = manifest(name, &run["labels"]);
        std::fs::write(dir.path().join(file), body.to_string()).unwrap();
        let out = std::process::Command::new(common::KUBECTL)
            .current_dir(dir.path())
            .arg("--kubeconfig")
            .arg(server.kubeconfig())
            .args(&args)
            .output()
            .unwrap();
        let got = json!({"exit": out.status.code(),
            "stdout": String::from_utf8_lossy(&out.stdout),
            "stderr": String::from_utf8_lossy(&out.stderr)});
        let want = json!({"exit": run["exit"], "stdout": run["stdout"], "stderr": run["stderr"]});
        assert_eq!(got, want, "run {i}: kubectl {args:?}");
        // What the answers said is what is stored: the denied kd1 and kd3 are not, kd2 is,
        // mutated by the CREATE-only /mutate, and its denied update (run 4) left it as it was.
        // The reviews of this run: /mutate (CREATE only) then /validate for creates, one
        // /validate per write for updates (a server-side apply over a client-side one is
        // several writes: kubectl moves the last-applied fields to its manager).
        let reviews: Vec<String> = webhook
            .take_reviews()
            .iter()
            .map(|r| {
                let path = r["path"].as_str().unwrap().split('?').next().unwrap();
                format!("{path} {}", r["request"]["operation"].as_str().unwrap())
            })
            .collect();
        match i {
            0..=2 => assert_eq!(reviews, ["/mutate CREATE", "/validate CREATE"], "run {i}"),
            3 => assert!(
                !reviews.is_empty() && reviews.iter().all(|r| r == "/validate UPDATE"),
                "run 3: {reviews:?}"
            ),
            _ => assert_eq!(reviews, ["/validate UPDATE"], "run {i}"),
        }
        let kept = stored(&server, name).await;
        match (i, kept) {
            (0 | 2, None) => {}
            (1 | 3 | 4, Some(kd2)) => {
                assert_eq!(kd2["metadata"]["labels"], json!({"mutated-by": "webhook"}));
                assert_eq!(kd2["spec"]["owner"], "webhook@example.com");
            }
            (i, kept) => panic!("run {i}: stored {kept:?}"),
        }
    }
}
