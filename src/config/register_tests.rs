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
    let cases: [(&str, &[&str], &[&str]); 6] = [
        ("register without a CA", &["--register-apiservices"], &[
            "--register-apiservices must be set with --apiservice-ca-file or --serving-ca-secret (the CA bundle of the APIServices)",
        ]),
        ("secret with a serving pair and a CA file", &[
            "--serving-ca-secret", "ns/ca", "--tls-cert-file", "/", "--tls-private-key-file", "/",
            "--apiservice-ca-file", "/no-such-ca",
        ], &[
            "--tls-cert-file: / is not a readable file",
            "--tls-private-key-file: / is not a readable file",
            "--serving-ca-secret can not be set with --tls-cert-file",
            "--apiservice-ca-file can not be set with --serving-ca-secret (the APIServices' caBundle is the Secret's ca.crt)",
            "--apiservice-ca-file: /no-such-ca is not a readable file",
        ]),
        ("malformed secret", &["--serving-ca-secret", "ca"], &[
            "--serving-ca-secret: \"ca\" invalid, must be of format: <namespace>/<name>",
        ]),
        ("offload without registration, bad selector", &["--offload-selector", "a in (b"], &[
            "--offload-selector must be set with --register-apiservices",
            "--offload-selector: unable to parse requirement: found '', expected: ',' or ')'",
        ]),
        ("service flags", &["--service-name", "Bad_Name", "--service-namespace", "NS", "--service-port", "0"], &[
            "--service-name: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
            "--service-namespace: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
            "--service-port: must be between 1 and 65535, inclusive",
        ]),
        ("zero validities", &["--serving-ca-secret", "ns/ca", "--serving-cert-validity", "0", "--serving-ca-validity", "0"], &[
            "--serving-cert-validity: must be greater than 0",
            "--serving-ca-validity: must be greater than 0",
        ]),
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
    let ca = env!("CARGO_MANIFEST_DIR").to_string() + "/Cargo.toml";
    let config = validate(&[
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
fn service_namespace_flag_first_else_default() {
    assert_eq!(service_namespace(Some("ns")), "ns");
    // Outside a pod the service account file is absent.
    if !std::path::Path::new("/var/run/secrets/kubernetes.io/serviceaccount/namespace").exists() {
        assert_eq!(service_namespace(None), "default");
    }
}
