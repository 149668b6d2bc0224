//! Webhook conversion (issue 32) compared request for request with the reference
//! apiextensions-apiserver 0.36.4 calling a conversion webhook. The scenarios and the reference's
//! answers are data: tests/fixtures/conversion/scenarios.json (each scenario's definition of
//! `widgets.conversion.example.com`, v1 and v2, with `$CONVERTER`, `$CLOSED` and `$CA_BUNDLE`
//! standing for the test converter) and tests/fixtures/conversion/compare.jsonl (each request,
//! the reference's code, Warning headers and body, watch events, and the objects its converter
//! was asked to convert), recorded by hack/conversion-oracle/record.py from
//! hack/conversion-oracle/scenario.py. Each scenario replays on a fresh dev server serving the
//! scenario's definition and calling the Rust port of the reference's converter
//! (tests/common/stub_converter.rs); code, Warning headers, body (Status, object, list, Table)
//! and watch events must match but for uids, timestamps, resourceVersions, Table ages and the
//! converter's address (common/conversion_replay.rs); every object our converter converted the
//! reference's converted too; and the conversion metrics' names, labels and failure series
//! recorded afterwards exist in ours (metrics.json). A definition step (`CRD`) restarts our
//! server on the changed definition (the reference took a PUT of the CRD). Invalid definitions
//! (kube's 422 on POST) must stop our start-up with exit 64 and kube's texts.
//! hack/conversion-oracle/FINDINGS.md says what the recordings show.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;
#[allow(dead_code)] // the admission reviews' masking is not used here
#[path = "common/compare_masking.rs"]
mod masking;
#[path = "common/conversion_replay.rs"]
mod replay;
#[path = "common/stub_converter.rs"]
mod stub_converter;
#[path = "common/webhook.rs"]
mod webhook;

use std::collections::BTreeMap;
use std::path::PathBuf;

use common::Server;
use replay::Converted;
use serde_json::{Value, json};
use stub_converter::StubConverter;

fn fixture(name: &str) -> PathBuf {
    common::repo_root()
        .join("tests/fixtures/conversion")
        .join(name)
}

fn steps(scenario: &str) -> Vec<Value> {
    replay::read_steps(&fixture("compare.jsonl"), Some(scenario))
}

fn scenarios() -> BTreeMap<String, Value> {
    let text = std::fs::read_to_string(fixture("scenarios.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// Our server on one scenario's definition, and the converter it calls.
struct Host {
    converter: StubConverter,
    server: Option<Server>,
    template: Value,
    file: PathBuf,
    _dir: tempfile::TempDir,
}

impl Host {
    fn start(template: &Value) -> Host {
        let converter = StubConverter::start();
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("widgets.yaml");
        let definition = replay::instantiate(template, &converter);
        std::fs::write(&file, definition.to_string()).unwrap();
        let server = Server::start_with(&["--crd-dir", file.to_str().unwrap()]);
        Host {
            converter,
            server: Some(server),
            template: template.clone(),
            file,
            _dir: dir,
        }
    }

    fn server(&self) -> &Server {
        self.server.as_ref().unwrap()
    }

    /// A `CRD` step: the definition with its storage version changed, served after a restart.
    fn redefine(&mut self, change: &Value) {
        let mut definition = replay::instantiate(&self.template, &self.converter);
        let storage = change["storage"].as_str().unwrap();
        for version in definition["spec"]["versions"].as_array_mut().unwrap() {
            version["storage"] = json!(version["name"] == json!(storage));
        }
        std::fs::write(&self.file, definition.to_string()).unwrap();
        self.server = Some(self.server.take().unwrap().restart());
    }
}

/// Replays one HTTP step; the differences found. `theirs`: what the reference had converted.
async fn http_step(host: &Host, step: &Value, theirs: &Converted) -> Vec<String> {
    host.converter.take_reviews();
    let mut diffs = match replay::send(host.server(), step).await {
        Ok(answer) => replay::differences(step, &answer, &host.converter),
        Err(e) => vec![e],
    };
    let reviews = host.converter.take_reviews();
    diffs.extend(replay::conversion_differences(step, theirs, &reviews));
    diffs
}

/// For each step, every object the reference converted up to it and the next step.
fn converted_by_then(steps: &[Value]) -> Vec<Converted> {
    let mut so_far = Converted::new();
    let mut out = Vec::new();
    for (i, step) in steps.iter().enumerate() {
        so_far.extend(replay::converted_recorded(step));
        let mut then = so_far.clone();
        if let Some(next) = steps.get(i + 1) {
            then.extend(replay::converted_recorded(next));
        }
        out.push(then);
    }
    out
}

fn label(scenario: &str, step: &Value) -> String {
    format!(
        "[{scenario} step {}] {} {}",
        step["index"],
        step["method"].as_str().unwrap(),
        step["path"].as_str().unwrap_or_default()
    )
}

/// Replays `scenario`; returns the differences found.
async fn replay_scenario(scenario: &str) -> Vec<String> {
    let mut host = Host::start(&scenarios()[scenario]);
    let mut diffs = Vec::new();
    let steps = steps(scenario);
    let converted = converted_by_then(&steps);
    for (step, theirs) in steps.iter().zip(&converted) {
        let (step, label) = (step.clone(), label(scenario, step));
        let found = match step["method"].as_str().unwrap() {
            // The stored versions are cmig's status endpoint, not part of this replay.
            "STORED" => Vec::new(),
            "CRD" => {
                host.redefine(&step["crd"]);
                Vec::new()
            }
            "WATCH" => watch_step(&host, &step, &label, theirs).await,
            _ => http_step(&host, &step, theirs).await,
        };
        diffs.extend(found.into_iter().map(|d| format!("{label}: {d}")));
    }
    let ours = host.server().metrics().await;
    let recorded: Vec<String> =
        serde_json::from_value(recorded_metrics()[scenario].clone()).unwrap();
    diffs.extend(replay::metric_differences(&ours, &recorded));
    diffs
}

/// A watch: its events, and the steps sent while it was open.
async fn watch_step(host: &Host, step: &Value, label: &str, theirs: &Converted) -> Vec<String> {
    let mut during_diffs = Vec::new();
    let between = async || {
        for inner in step["during"].as_array().unwrap() {
            let inner = merged(step, inner);
            let found = http_step(host, &inner, theirs).await;
            let at = format!("during {} {}", inner["method"], inner["path"]);
            during_diffs.extend(found.into_iter().map(|d| format!("{at}: {d}")));
        }
    };
    let mut diffs = match replay::watch(host.server(), step, between).await {
        Ok(events) => replay::event_differences(step, &events, &host.converter),
        Err(e) => vec![format!("{label}: {e}")],
    };
    diffs.append(&mut during_diffs);
    diffs
}

/// A `during` step carries the watch's converter addresses (the recorder kept them once).
fn merged(watch: &Value, inner: &Value) -> Value {
    let mut inner = inner.clone();
    inner["converter"] = watch["converter"].clone();
    inner["closed"] = watch["closed"].clone();
    inner
}

fn recorded_metrics() -> Value {
    let text = std::fs::read_to_string(fixture("metrics.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

async fn assert_scenario(scenario: &str) {
    let diffs = replay_scenario(scenario).await;
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
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
            let tested = [$(stringify!($scenario)),*, "invalid_definitions"];
            let recorded: Vec<String> = scenarios().into_keys().collect();
            let untested: Vec<_> = recorded.iter().filter(|c| !tested.contains(&c.as_str())).collect();
            assert!(untested.is_empty(), "recorded scenarios without a test: {untested:?}");
            for scenario in tested {
                assert!(!steps(scenario).is_empty(), "{scenario} has no recorded steps");
            }
        }
    };
}

scenario_tests! {
    storage_v1_every_verb
    storage_v2_every_verb
    review_v1beta1
    review_versions_order
    watch_across_versions
    apply_across_versions
    storage_version_migration
    converter_slow
    converter_closed
    converter_fail
    converter_garbage
    converter_wrong_count
    converter_rename
    converter_wrong_uid
    converter_wrong_kind
    converter_wrong_apiversion
    converter_review_kind
    converter_labels
    converter_bad_label
    converter_annotation_number
    converter_fail_storage_v2
}

/// Every definition the reference refused (422) stops our start-up with exit 64 and each of
/// kube's `field: message` causes; the one it accepted (an invalid caBundle) is served.
#[test]
fn invalid_definitions_refused_at_start_up_with_kube_texts() {
    let mut failures = Vec::new();
    for step in steps("invalid_definitions") {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("widgets.yaml");
        std::fs::write(&file, step["definition"].to_string()).unwrap();
        let label = format!("[definition {}] {}", step["index"], step["crd"]);
        if step["code"] == json!(201) {
            let server = Server::start_with(&["--crd-dir", file.to_str().unwrap()]);
            drop(server);
            continue;
        }
        let Some((code, stderr)) = refused(&file, dir.path()) else {
            failures.push(format!("{label}: served, want refused with exit 64"));
            continue;
        };
        if code != Some(64) {
            failures.push(format!("{label}: exit {code:?}, want 64"));
            continue;
        }
        for cause in step["response"]["details"]["causes"].as_array().unwrap() {
            let field = cause["field"].as_str().unwrap();
            let text = format!("{field}: {}", cause["message"].as_str().unwrap());
            if !stderr.contains(&text) {
                failures.push(format!("{label}: no {text:?} in {stderr}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Runs the server (not dev mode) on the definition at `file`: its exit code and stderr if
/// it stopped within [`REFUSED_WITHIN`], `None` (after killing it) if it went on serving.
fn refused(file: &std::path::Path, dir: &std::path::Path) -> Option<(Option<i32>, String)> {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_crd-apiserver"))
        .arg("--crd-dir")
        .arg(file)
        .args(["--secure-port", "0", "--bind-address", "127.0.0.1"])
        .arg("--data-dir")
        .arg(dir.join("data"))
        .arg("--cert-dir")
        .arg(dir.join("certs"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + REFUSED_WITHIN;
    while std::time::Instant::now() < deadline {
        if child.try_wait().unwrap().is_some() {
            let out = child.wait_with_output().unwrap();
            return Some((
                out.status.code(),
                String::from_utf8_lossy(&out.stderr).into_owned(),
            ));
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}

/// A refused definition stops start-up within this (it is checked before anything opens).
const REFUSED_WITHIN: std::time::Duration = std::time::Duration::from_secs(20);
