//! Start-up configuration: every flag problem is reported at once, with exit code 64,
//! before anything is opened or listens.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;

use std::process::Command;

#[test]
fn bad_flags_all_reported_before_listening() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let out = Command::new(env!("CARGO_BIN_EXE_crd-apiserver"))
        .current_dir(common::repo_root())
        .args(["--crd-dir", "manifests/examples", "--secure-port", "0"])
        .args([
            "--bind-address",
            "127.0.0.1",
            "--tls-cert-file",
            "/nonexistent.crt",
        ])
        .args([
            "--client-ca-file",
            "/nonexistent-ca.crt",
            "--request-timeout",
            "0",
        ])
        .args(["--etcd-servers", "127.0.0.1:2379"])
        .arg("--data-dir")
        .arg(&data)
        .output()
        .expect("run crd-apiserver");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(64), "{stderr}");
    for problem in [
        "invalid configuration:",
        "--tls-private-key-file: required with --tls-cert-file",
        "--etcd-servers: \"127.0.0.1:2379\" is not an http:// or https:// URL",
        "--tls-cert-file: /nonexistent.crt is not a readable file",
        "--client-ca-file: /nonexistent-ca.crt is not a readable file",
        "--request-timeout: must be greater than 0",
    ] {
        assert!(
            stderr.contains(problem),
            "missing {problem:?} in:\n{stderr}"
        );
    }
    assert!(out.stdout.is_empty(), "nothing listens: {:?}", out.stdout);
    assert!(!data.exists(), "no store was opened");
}
