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

/// Runs the binary with `args` (and a store under `dir`) and returns its exit code and stderr.
fn refused(dir: &std::path::Path, args: &[&str]) -> (Option<i32>, String) {
    let data = dir.join("data");
    let out = Command::new(env!("CARGO_BIN_EXE_crd-apiserver"))
        .current_dir(common::repo_root())
        .args(["--crd-dir", "manifests/examples", "--secure-port", "0"])
        .args(["--bind-address", "127.0.0.1"])
        .arg("--data-dir")
        .arg(&data)
        .args(args)
        .output()
        .expect("run crd-apiserver");
    assert!(out.stdout.is_empty(), "nothing listens: {:?}", out.stdout);
    assert!(!data.exists(), "no store was opened");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

#[test]
fn admission_config_file_bad_refused_before_listening() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).expect("write");
        path.display().to_string()
    };
    let missing = dir.path().join("missing.yaml").display().to_string();
    let wrong_kind = file(
        "wrong-kind.yaml",
        "apiVersion: apiserver.config.k8s.io/v1\nkind: WebhookAdmissionConfiguration\n",
    );
    let relative = file(
        "relative.yaml",
        "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: ValidatingAdmissionWebhook\n  configuration:\n    apiVersion: apiserver.config.k8s.io/v1\n    kind: WebhookAdmissionConfiguration\n    kubeConfigFile: webhooks.kubeconfig\n",
    );
    let not_yaml = file("not-yaml.yaml", "plugins: [unclosed\n");
    let cases = [
        (
            missing.clone(),
            format!(
                "--admission-control-config-file: unable to read admission control configuration from \"{missing}\" ["
            ),
        ),
        (
            wrong_kind.clone(),
            format!(
                "--admission-control-config-file: admission control configuration {wrong_kind}: expected kind AdmissionConfiguration"
            ),
        ),
        (
            relative.clone(),
            "--admission-control-config-file: admission plugin ValidatingAdmissionWebhook: kubeConfigFile: Invalid value: \"webhooks.kubeconfig\": must be an absolute file path".into(),
        ),
        (
            not_yaml.clone(),
            format!("--admission-control-config-file: admission control configuration {not_yaml}: "),
        ),
    ];
    for (path, want) in cases {
        let (code, stderr) = refused(
            dir.path(),
            &[
                "--admission-control-config-file",
                &path,
                "--admission-webhook-service-address",
                "webhooks/hook=127.0.0.1",
            ],
        );
        assert_eq!(code, Some(64), "{path}: {stderr}");
        assert!(stderr.contains("invalid configuration:"), "{stderr}");
        assert!(
            stderr.contains(&want),
            "{path}: missing {want:?} in:\n{stderr}"
        );
        // Every problem at once: the service address without a port too.
        assert!(
            stderr.contains("--admission-webhook-service-address: \"127.0.0.1\": "),
            "{stderr}"
        );
    }
}

#[test]
fn admission_webhook_service_address_syntax_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (code, stderr) = refused(
        dir.path(),
        &["--admission-webhook-service-address", "hook=127.0.0.1:8443"],
    );
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("\"hook=127.0.0.1:8443\": expected <namespace>/<name>=<host:port>"),
        "{stderr}"
    );
}
