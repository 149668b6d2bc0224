#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly

use clap::Parser;

use super::*;
use crate::audit::backend::settings::DEFAULT_INITIAL_BACKOFF;
use crate::audit::backend::settings::{
    AuditSettings, BatchConfig, Format, LogTarget, Mode, Rotation, TruncateConfig,
};
use crate::config::Cli;
use crate::config::validate::Problems;

const POLICY: &str = "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n";

fn flags(args: &[&str]) -> AuditFlags {
    let mut argv = vec!["crd-apiserver"];
    argv.extend_from_slice(args);
    Cli::try_parse_from(argv).expect("flags parse").serve.audit
}

fn settings(args: &[&str]) -> Result<AuditSettings, Vec<String>> {
    let mut problems = Problems::default();
    let settings = problems.audit(&flags(args));
    match settings {
        Some(settings) if problems.count() == 0 => Ok(settings),
        _ => Err(problems.into_lines()),
    }
}

#[test]
fn audit_defaults_as_kube() {
    let dir = tempfile::tempdir().unwrap();
    let policy = dir.path().join("policy.yaml");
    std::fs::write(&policy, POLICY).unwrap();
    let policy = policy.display().to_string();
    let got = settings(&[
        "--audit-policy-file",
        &policy,
        "--audit-log-path",
        "/var/log/audit.log",
    ])
    .unwrap();
    assert!(got.policy.is_some());
    let log = got.log.unwrap();
    assert_eq!(
        log.target,
        LogTarget::File(Rotation {
            path: "/var/log/audit.log".into(),
            max_size_mb: 100,
            max_age_days: 366,
            max_backups: 100,
            compress: false,
        })
    );
    assert_eq!(
        (log.format, log.mode, log.truncate),
        (Format::Json, Mode::Blocking, None)
    );
    assert!(got.webhook.is_none());
    let none = settings(&[]).unwrap();
    assert!(none.policy.is_none() && none.log.is_none() && none.webhook.is_none());
}

#[test]
fn audit_webhook_batch_defaults_as_kube() {
    let kubeconfig = env!("CARGO_MANIFEST_DIR").to_string() + "/Cargo.toml";
    let got = settings(&["--audit-webhook-config-file", &kubeconfig]).unwrap();
    let webhook = got.webhook.unwrap();
    assert_eq!(webhook.initial_backoff, DEFAULT_INITIAL_BACKOFF);
    assert_eq!(webhook.mode, Mode::Batch(BatchConfig::webhook_default()));
    assert_eq!(webhook.truncate, None);
    let got = settings(&[
        "--audit-log-path=-",
        "--audit-log-mode=batch",
        "--audit-log-format=legacy",
        "--audit-log-truncate-enabled",
        "--audit-webhook-config-file",
        &kubeconfig,
        "--audit-webhook-batch-initial-backoff=1s",
        "--audit-webhook-mode=blocking-strict",
    ])
    .unwrap();
    let log = got.log.unwrap();
    assert_eq!(log.target, LogTarget::Stdout);
    assert_eq!(log.format, Format::Legacy);
    assert_eq!(log.mode, Mode::Batch(BatchConfig::log_default()));
    assert_eq!(log.truncate, Some(TruncateConfig::DEFAULT));
    let webhook = got.webhook.unwrap();
    assert_eq!(webhook.initial_backoff, Duration::from_secs(1));
    assert_eq!(webhook.mode, Mode::BlockingStrict);
}

#[test]
fn audit_numbers_not_numbers_refused_with_pflag_texts() {
    let cases = [
        (
            ["--audit-log-maxage", "ten"],
            "invalid argument \"ten\" for \"--audit-log-maxage\" flag: strconv.ParseInt: parsing \"ten\": invalid syntax",
        ),
        (
            ["--audit-webhook-batch-max-size", "99999999999999999999"],
            "invalid argument \"99999999999999999999\" for \"--audit-webhook-batch-max-size\" flag: strconv.ParseInt: parsing \"99999999999999999999\": value out of range",
        ),
        (
            ["--audit-log-batch-throttle-qps", "fast"],
            "invalid argument \"fast\" for \"--audit-log-batch-throttle-qps\" flag: strconv.ParseFloat: parsing \"fast\": invalid syntax",
        ),
    ];
    for (args, want) in cases {
        let argv = ["crd-apiserver", args[0], args[1]];
        let error = Cli::try_parse_from(argv).expect_err(args[0]).to_string();
        assert!(error.contains(want), "{error}");
    }
}

#[test]
fn audit_bad_flags_reported_with_kube_texts() {
    #[rustfmt::skip]
    let cases: [(&str, &[&str], &[&str]); 6] = [
        ("unknown mode and format", &["--audit-log-path=/a.log", "--audit-log-mode=async", "--audit-log-format=yaml"], &[
            "--audit-log-mode: invalid audit log mode async, allowed modes are \"batch,blocking,blocking-strict\"",
            "--audit-log-format: invalid audit log format yaml, allowed formats are \"legacy,json\"",
        ]),
        ("negative rotation", &["--audit-log-path=/a.log", "--audit-log-maxage=-1", "--audit-log-maxbackup", "-2", "--audit-log-maxsize=-3"], &[
            "--audit-log-maxage: --audit-log-maxage -1 can't be a negative number",
            "--audit-log-maxbackup: --audit-log-maxbackup -2 can't be a negative number",
            "--audit-log-maxsize: --audit-log-maxsize -3 can't be a negative number",
        ]),
        ("batch sizes in batch mode", &["--audit-log-path=/a.log", "--audit-log-mode=batch", "--audit-log-batch-buffer-size=0", "--audit-log-batch-max-size=-1", "--audit-log-batch-throttle-enable"], &[
            "--audit-log-batch-buffer-size: invalid audit batch log buffer size 0, must be a positive number",
            "--audit-log-batch-max-size: invalid audit batch log max batch size -1, must be a positive number",
            "--audit-log-batch-throttle-qps: invalid audit batch log throttle QPS 0, must be a positive number",
            "--audit-log-batch-throttle-burst: invalid audit batch log throttle burst 0, must be a positive number",
        ]),
        ("truncate sizes and versions", &["--audit-log-path=/a.log", "--audit-log-truncate-max-event-size=100", "--audit-log-truncate-max-batch-size=99", "--audit-log-version=audit.k8s.io/v1beta1", "--audit-webhook-config-file=/nonexistent", "--audit-webhook-truncate-max-event-size=0", "--audit-webhook-version=a/b/c"], &[
            "--audit-log-truncate-max-batch-size: invalid audit truncate log max batch size 99, must be greater than max event size (100)",
            "--audit-log-version: invalid group version, allowed versions are [\"audit.k8s.io/v1\"]",
            "--audit-webhook-config-file: initializing audit webhook: stat /nonexistent: no such file or directory",
            "--audit-webhook-truncate-max-event-size: invalid audit truncate webhook max event size 0, must be a positive number",
            "--audit-webhook-version: unexpected GroupVersion string: a/b/c",
        ]),
        ("batch options ignored outside batch mode", &["--audit-log-path=/a.log", "--audit-log-batch-buffer-size=0", "--audit-policy-file=/no-policy"], &[
            "--audit-policy-file: loading audit policy file: failed to read file path \"/no-policy\": open /no-policy: no such file or directory",
        ]),
        ("a disabled backend is not checked", &["--audit-log-mode=async", "--audit-webhook-mode=nope"], &[]),
    ];
    for (name, args, want) in cases {
        let got = settings(args).err().unwrap_or_default();
        assert_eq!(got, want, "{name}");
    }
}
