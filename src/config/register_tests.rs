#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use clap::Parser;

use super::*;
use crate::config::Cli;
use crate::config::validate::Serving;

fn validate(args: &[&str]) -> Result<crate::config::validate::Config, Vec<String>> {
    let crds = env!("CARGO_MANIFEST_DIR").to_string() + "/manifests/examples";
    let mut argv = vec!["crd-apiserver", "--crd-dir", &crds];
    argv.extend_from_slice(args);
    let flags = Cli::try_parse_from(argv).expect("flags parse").serve;
    flags.validate().map_err(|e| e.problems)
}

#[test]
fn parse_namespaced_texts() {
    assert_eq!(
        parse_namespaced("kube-system/serving-ca"),
        Ok(("kube-system".into(), "serving-ca".into()))
    );
    let cases = [
        (
            "no-slash",
            "\"no-slash\" invalid, must be of format: <namespace>/<name>",
        ),
        (
            "/name",
            "\"/name\" invalid: namespace \"\": a lowercase RFC 1123 label",
        ),
        (
            "Ns/name",
            "\"Ns/name\" invalid: namespace \"Ns\": a lowercase RFC 1123 label",
        ),
        (
            "ns/a/b",
            "\"ns/a/b\" invalid: name \"a/b\": a lowercase RFC 1123 subdomain",
        ),
    ];
    for (text, want) in cases {
        let got = parse_namespaced(text).expect_err(text);
        assert!(got.starts_with(want), "{text}: {got}");
    }
}

#[test]
fn validate_register_flags_problems() {
    #[rustfmt::skip]
    let dir = tempfile::tempdir().unwrap();
    let not_pem = dir.path().join("not-pem");
    std::fs::write(&not_pem, "no certificate here\n").unwrap();
    let not_pem = not_pem.display().to_string();
    let not_pem_problem =
        format!("--apiservice-ca-file: {not_pem}: holds no PEM CERTIFICATE block");
    let cases: [(&str, &[&str], &[&str]); 9] = [
        (
            "register without a CA",
            &["--register-apiservices"],
            &[
                "--register-apiservices must be set with --apiservice-ca-file or --serving-ca-secret (the CA bundle of the APIServices)",
            ],
        ),
        (
            "secret with a serving pair and a CA file",
            &[
                "--serving-ca-secret",
                "ns/ca",
                "--tls-cert-file",
                "/",
                "--tls-private-key-file",
                "/",
                "--apiservice-ca-file",
                "/no-such-ca",
            ],
            &[
                "--tls-cert-file: / is not a readable file",
                "--tls-private-key-file: / is not a readable file",
                "--serving-ca-secret can not be set with --tls-cert-file",
                "--apiservice-ca-file can not be set with --serving-ca-secret (the APIServices' caBundle is the Secret's ca.crt)",
                "--apiservice-ca-file: /no-such-ca is not a readable file",
            ],
        ),
        (
            "malformed secret",
            &["--serving-ca-secret", "ca"],
            &["--serving-ca-secret: \"ca\" invalid, must be of format: <namespace>/<name>"],
        ),
        (
            "offload without registration, bad selector",
            &["--offload-selector", "a in (b"],
            &[
                "--offload-selector must be set with --register-apiservices",
                "--offload-selector: unable to parse requirement: found '', expected: ',' or ')'",
            ],
        ),
        (
            "service flags",
            &[
                "--service-name",
                "Bad_Name",
                "--service-namespace",
                "NS",
                "--service-port",
                "0",
            ],
            &[
                "--service-name: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
                "--service-namespace: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
                "--service-port: must be between 1 and 65535, inclusive",
            ],
        ),
        (
            "priorities out of kube-aggregator's ranges",
            &[
                "--group-priority-minimum",
                "0",
                "--version-priority",
                "1001",
            ],
            &[
                "--group-priority-minimum: Invalid value: 0: must be positive and less than 20000",
                "--version-priority: Invalid value: 1001: must be positive and less than 1000",
            ],
        ),
        (
            "priorities one past each end",
            &[
                "--group-priority-minimum",
                "20001",
                "--version-priority",
                "0",
            ],
            &[
                "--group-priority-minimum: Invalid value: 20001: must be positive and less than 20000",
                "--version-priority: Invalid value: 0: must be positive and less than 1000",
            ],
        ),
        (
            "a CA file without a certificate",
            &["--register-apiservices", "--apiservice-ca-file", &not_pem],
            &[&not_pem_problem],
        ),
        (
            "zero validities",
            &[
                "--serving-ca-secret",
                "ns/ca",
                "--serving-cert-validity",
                "0",
                "--serving-ca-validity",
                "0",
            ],
            &[
                "--serving-cert-validity: must be greater than 0",
                "--serving-ca-validity: must be greater than 0",
            ],
        ),
    ];
    for (name, args, want) in cases {
        let got = validate(args).map(|_| ()).expect_err(name);
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn validate_serving_ca_secret_serving_choice() {
    let config = validate(&[
        "--register-apiservices",
        "--serving-ca-secret",
        "ns/ca",
        "--cert-dir",
        "/c",
    ])
    .expect("valid");
    assert_eq!(
        config.serving,
        Serving::CaSecret {
            namespace: "ns".into(),
            name: "ca".into(),
            cert_dir: "/c".into(),
        }
    );
    let dir = tempfile::tempdir().unwrap();
    let ca = dir.path().join("ca.crt");
    let authority = crate::register::pki::new_authority("ca").unwrap();
    std::fs::write(&ca, &authority.pem.cert).unwrap();
    let ca = ca.display().to_string();
    let config = validate(&[
        "--group-priority-minimum",
        "20000",
        "--version-priority",
        "1",
        "--register-apiservices",
        "--apiservice-ca-file",
        &ca,
        "--offload-selector",
        "crd-apiserver.io/offload=true",
    ])
    .expect("valid");
    assert!(matches!(config.serving, Serving::SelfSigned { .. }));
}

#[test]
fn service_namespace_flag_first_then_pod_file_else_default() {
    let dir = tempfile::tempdir().unwrap();
    let file = |name: &str, content: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, content).unwrap();
        path
    };
    let pod = file("pod", "team-a\n");
    let blank = file("blank", " \n");
    let absent = dir.path().join("absent");
    let cases = [
        ("flag over the pod's", Some("ns"), &pod, "ns"),
        ("flag, no pod", Some("ns"), &absent, "ns"),
        ("the pod's namespace, trimmed", None, &pod, "team-a"),
        ("blank file", None, &blank, "default"),
        ("outside a pod", None, &absent, "default"),
    ];
    for (name, flag, path, want) in cases {
        assert_eq!(service_namespace_in(flag, path), want, "{name}");
    }
}

#[test]
fn ca_bundle_problem_texts() {
    let ca = crate::register::pki::new_authority("ca").unwrap();
    let key_only = ca.pem.key.clone();
    let two = format!("{}{}", ca.pem.cert, ca.pem.cert);
    let cases: [(&str, &str, Option<&str>); 6] = [
        ("a certificate", &ca.pem.cert, None),
        ("two", &two, None),
        (
            "a key and a certificate",
            &format!("{key_only}{}", ca.pem.cert),
            None,
        ),
        ("empty", "", Some("holds no PEM CERTIFICATE block")),
        (
            "only a key",
            &key_only,
            Some("holds no PEM CERTIFICATE block"),
        ),
        (
            "not a certificate",
            "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n",
            Some("certificate 1: "),
        ),
    ];
    for (name, pem, want) in cases {
        let got = ca_bundle_problem(pem.as_bytes());
        match want {
            None => assert_eq!(got, None, "{name}"),
            Some(want) => assert!(
                got.as_deref().is_some_and(|g| g.starts_with(want)),
                "{name}: {got:?}"
            ),
        }
    }
}
