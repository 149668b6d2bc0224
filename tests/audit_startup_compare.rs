//! Start-up refusals of issue 33's configuration (audit flags and policy files,
//! EncryptionConfiguration, TracingConfiguration) compared with the reference
//! apiextensions-apiserver 0.36.4: tests/fixtures/audit/startup.json holds, per case, the flags,
//! the file, whether the reference started, and kube's texts in its refusal (`problems`: without
//! the option's wrapper and cut where Go's own wording begins: OS errors, the YAML decoder),
//! recorded by hack/audit-oracle/startup.py. Each case runs our binary in dev mode: a case the
//! reference refused must end with a non-zero exit before listening and print every problem (the
//! case's file path for `$FILE`); a case it accepted must start.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;

/// The policy `$POLICY` stands for (startup.py's POLICY_OK).
const POLICY_OK: &str = "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n";
/// How long a start may take before it counts as started without an address line.
const START_WITHIN: Duration = Duration::from_secs(60);

fn cases(prefix: &str) -> BTreeMap<String, Value> {
    let path = common::repo_root().join("tests/fixtures/audit/startup.json");
    let all: BTreeMap<String, Value> =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let cases: BTreeMap<String, Value> = all
        .into_iter()
        .filter(|(k, _)| k.starts_with(prefix))
        .collect();
    assert!(!cases.is_empty(), "no recorded cases {prefix}*");
    cases
}

/// What our binary did with a case's flags.
enum Outcome {
    Started,
    Exited(Option<i32>, String),
}

/// Runs dev mode with `flags` until it announces its address (then kills it) or exits.
fn run(dir: &Path, flags: &[String]) -> Outcome {
    let mut child = Command::new(env!("CARGO_BIN_EXE_crd-apiserver"))
        .current_dir(common::repo_root())
        .arg("dev")
        .args(["--secure-port", "0", "--bind-address", "127.0.0.1"])
        .arg("--dev-pki-dir")
        .arg(dir.join("pki"))
        .arg("--data-dir")
        .arg(dir.join("data"))
        .args(flags)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut first = [0u8; 1];
        let _ = tx.send(stdout.read(&mut first).map(|n| n > 0).unwrap_or(false));
    });
    let announced = rx.recv_timeout(START_WITHIN).unwrap_or(false);
    if announced {
        let _ = child.kill();
        let _ = child.wait();
        return Outcome::Started;
    }
    let _ = child.kill(); // no address and no exit within the wait: killed, reported below
    let out = child.wait_with_output().unwrap();
    Outcome::Exited(
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

/// The case's flags with `$FILE`, `$POLICY`, `$WEBHOOK`, `$LOG` made real files in `dir`.
fn flags_of(case: &Value, dir: &Path) -> (Vec<String>, String) {
    let file = dir.join("case.yaml");
    if let Some(text) = case["file"].as_str() {
        std::fs::write(&file, text).unwrap();
    }
    let policy = dir.join("policy.yaml");
    std::fs::write(&policy, POLICY_OK).unwrap();
    let webhook = dir.join("webhook.kubeconfig");
    std::fs::write(&webhook, "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:1\ncontexts:\n- name: c\n  context:\n    cluster: c\n    user: u\nusers:\n- name: u\n  user:\n    token: t\ncurrent-context: c\n").unwrap();
    let log = dir.join("audit.log");
    let file = file.display().to_string();
    let flags = case["flags"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| match f.as_str().unwrap() {
            "$FILE" => file.clone(),
            "$POLICY" => policy.display().to_string(),
            "$WEBHOOK" => webhook.display().to_string(),
            "$LOG" => log.display().to_string(),
            other => other.to_string(),
        });
    (flags.collect(), file)
}

fn differences(name: &str, case: &Value) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let (flags, file) = flags_of(case, dir.path());
    let started = case["started"] == Value::Bool(true);
    match (run(dir.path(), &flags), started) {
        (Outcome::Started, true) => vec![],
        (Outcome::Started, false) => vec![format!(
            "{name}: started, the reference refused: {}",
            case["error"]
        )],
        (Outcome::Exited(code, stderr), true) => {
            vec![format!(
                "{name}: exited {code:?}, the reference started:\n{stderr}"
            )]
        }
        (Outcome::Exited(code, stderr), false) => {
            let mut diffs = Vec::new();
            if code == Some(0) || code.is_none() {
                diffs.push(format!("{name}: exit {code:?}, want a refusal"));
            }
            for problem in case["problems"].as_array().unwrap() {
                let problem = problem.as_str().unwrap().replace("$FILE", &file);
                if !stderr.contains(&problem) {
                    diffs.push(format!(
                        "{name}: missing {problem:?} in:\n{}",
                        stderr.trim_end()
                    ));
                }
            }
            diffs
        }
    }
}

fn assert_cases(prefix: &str) {
    let diffs: Vec<String> = cases(prefix)
        .iter()
        .flat_map(|(name, case)| differences(name, case))
        .collect();
    assert!(
        diffs.is_empty(),
        "{} differences:\n{}",
        diffs.len(),
        diffs.join("\n")
    );
}

#[test]
fn audit_flags_refused_and_accepted_as_the_reference() {
    assert_cases("audit_");
}

#[test]
fn audit_policy_files_refused_and_accepted_as_the_reference() {
    assert_cases("policy_");
}

#[test]
fn encryption_configurations_refused_and_accepted_as_the_reference() {
    assert_cases("encryption_");
}

#[test]
fn tracing_configurations_refused_and_accepted_as_the_reference() {
    assert_cases("tracing_");
}
