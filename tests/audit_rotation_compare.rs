//! Audit log rotation (issue 33: `--audit-log-maxsize`, `--audit-log-maxbackup`,
//! `--audit-log-compress`) compared with the reference apiextensions-apiserver 0.36.4
//! (tests/fixtures/audit/rotation.json, recorded by hack/audit-oracle/rotation.py): after about
//! 6 MB of events (800 GETs of a 4 kB object at RequestResponse) with `--audit-log-maxsize 1`,
//! the log's directory must hold what the reference's held: `audit.log` and rotated files named
//! `audit-<UTC time as 2006-01-02T15-04-05.000>.log` (`.log.gz`, gzip, with `--audit-log-compress`),
//! each within 1 MiB and of whole JSON lines; as many rotated files as the reference kept with
//! `--audit-log-maxbackup 2`, about as many (±1: our events' sizes differ by a few bytes) without.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

use serde_json::{Value, json};

const CT: &str = "/apis/stable.example.com/v1/namespaces/default/crontabs";
/// rotation.py's REQUESTS.
const REQUESTS: usize = 800;
const MIB: usize = 1024 * 1024;

fn recorded() -> BTreeMap<String, Value> {
    let path = common::repo_root().join("tests/fixtures/audit/rotation.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// `audit-2026-12-07T14-23-44.977.log` (then `.gz` when `gz`).
fn is_rotated_name(name: &str, gz: bool) -> bool {
    let Some(rest) = name.strip_prefix("audit-") else {
        return false;
    };
    let Some(time) = rest.strip_suffix(if gz { ".log.gz" } else { ".log" }) else {
        return false;
    };
    let shape = "dddd-dd-ddTdd-dd-dd.ddd";
    time.len() == shape.len()
        && time.bytes().zip(shape.bytes()).all(|(c, s)| match s {
            b'd' => c.is_ascii_digit(),
            s => c == s,
        })
}

/// Each file of the log directory: (name, gzip, text).
fn files(dir: &Path) -> Vec<(String, bool, String)> {
    let mut out: Vec<(String, bool, String)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| {
            let entry = entry.unwrap();
            let raw = std::fs::read(entry.path()).unwrap();
            let gzip = raw.starts_with(&[0x1f, 0x8b]);
            let text = match gzip {
                true => {
                    let mut text = String::new();
                    flate2::read::GzDecoder::new(&raw[..])
                        .read_to_string(&mut text)
                        .unwrap();
                    text
                }
                false => String::from_utf8(raw).unwrap(),
            };
            (entry.file_name().to_string_lossy().into_owned(), gzip, text)
        })
        .collect();
    out.sort();
    out
}

async fn write_events(server: &common::Server) {
    let client = server.client();
    let object = json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
        "metadata": {"name": "big"}, "spec": {"image": "x".repeat(4000)}});
    let resp = client
        .post(server.url(CT))
        .json(&object)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 201);
    for _ in 0..REQUESTS {
        let resp = client
            .get(server.url(&format!("{CT}/big")))
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 200);
    }
}

async fn differences(case: &str, want: &Value) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("logs");
    std::fs::create_dir(&logs).unwrap();
    let policy = dir.path().join("policy.yaml");
    std::fs::write(
        &policy,
        "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: RequestResponse\n",
    )
    .unwrap();
    let mut flags = vec![
        "--crd-dir".to_string(),
        common::repo_root()
            .join("tests/fixtures/admission/crontabs.yaml")
            .display()
            .to_string(),
        "--audit-policy-file".to_string(),
        policy.display().to_string(),
        "--audit-log-path".to_string(),
        logs.join("audit.log").display().to_string(),
    ];
    let recorded_flags: Vec<String> = serde_json::from_value(want["flags"].clone()).unwrap();
    flags.extend(recorded_flags.iter().cloned());
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    let server = common::Server::start_with(&flags);
    write_events(&server).await;
    let compress = recorded_flags.iter().any(|f| f == "--audit-log-compress");
    let keeps = recorded_flags
        .windows(2)
        .any(|w| w[0] == "--audit-log-maxbackup");
    // Rotation (and compression) may finish after the last answer: wait for the count.
    let recorded_rotated = want["files"].as_array().unwrap().len() - 1;
    let settled = |found: &[(String, bool, String)]| {
        let rotated = found
            .iter()
            .filter(|(n, gz, _)| is_rotated_name(n, compress) && *gz == compress);
        rotated.count() + 1 >= recorded_rotated
    };
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(30);
    let mut found = files(&logs);
    while !settled(&found) && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        found = files(&logs);
    }
    let mut diffs = Vec::new();
    let names: Vec<&str> = found.iter().map(|(n, _, _)| n.as_str()).collect();
    for (name, gzip, text) in &found {
        let expected =
            name == "audit.log" || (is_rotated_name(name, compress) && *gzip == compress);
        if !expected {
            diffs.push(format!(
                "{case}: file {name} (gzip {gzip}), want audit.log or audit-<time>.log{}",
                if compress { ".gz" } else { "" }
            ));
        }
        if text.len() > MIB {
            diffs.push(format!(
                "{case}: {name} holds {} bytes, over 1 MiB",
                text.len()
            ));
        }
        let whole = text.ends_with('\n')
            && text
                .lines()
                .all(|l| serde_json::from_str::<Value>(l).is_ok());
        if !whole {
            diffs.push(format!("{case}: {name} holds a partial or non-JSON line"));
        }
    }
    if !names.contains(&"audit.log") {
        diffs.push(format!("{case}: no audit.log in {names:?}"));
    }
    let rotated = found.len() - usize::from(names.contains(&"audit.log"));
    let count_ok = match keeps {
        true => rotated == recorded_rotated,
        false => rotated.abs_diff(recorded_rotated) <= 1,
    };
    if !count_ok {
        diffs.push(format!(
            "{case}: {rotated} rotated files {names:?}, the reference kept {recorded_rotated}"
        ));
    }
    diffs
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn audit_log_rotated_as_the_reference_rotates_it() {
    let mut diffs = Vec::new();
    for (case, want) in recorded() {
        diffs.extend(differences(&case, &want).await);
    }
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

#[test]
fn rotated_names_are_recognised() {
    assert!(is_rotated_name("audit-2026-12-07T14-23-44.977.log", false));
    assert!(is_rotated_name(
        "audit-2026-12-07T14-23-44.977.log.gz",
        true
    ));
    assert!(!is_rotated_name(
        "audit-2026-12-07T14-23-44.977.log.gz",
        false
    ));
    assert!(!is_rotated_name("audit-2026-12-07T14:23:44.977.log", false));
    assert!(!is_rotated_name("audit.log.1", false));
}
