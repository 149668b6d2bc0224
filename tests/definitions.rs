//! Start-up with bad CustomResourceDefinitions: every problem in one message, exit code 64.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;

const BAD: &str = r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: wrong.example.com
spec:
  group: example.com
  scope: Everywhere
  names: {plural: things, singular: thing, kind: Thing}
  versions:
  - {name: v1, served: true, storage: false}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: others.example.com
spec:
  group: example.com
  scope: Cluster
  names: {plural: others, singular: thing, kind: Other}
  versions:
  - {name: v1, served: true, storage: true}
"#;

#[test]
fn bad_definitions_stop_startup_with_every_problem_and_exit_64() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.yaml");
    std::fs::write(&file, BAD).unwrap();
    let out = common::start_with_definitions(&file, dir.path());
    assert_eq!(out.status.code(), Some(64), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    for expected in [
        "bad.yaml (document 1) wrong.example.com: metadata.name: Invalid value: \"wrong.example.com\": must be spec.names.plural+\".\"+spec.group",
        "spec.scope: Unsupported value: \"Everywhere\"",
        "must have exactly one version marked as storage version",
        "bad.yaml (document 2) others.example.com: spec.names.singular",
    ] {
        assert!(
            stderr.contains(expected),
            "missing {expected:?} in:\n{stderr}"
        );
    }
    assert!(
        !dir.path().join("data").exists(),
        "nothing is opened before the definitions are good"
    );
}

const BAD_WEBHOOK: &str = r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: things.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: things, singular: thing, kind: Thing}
  versions:
  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}
  conversion:
    strategy: Webhook
    webhook:
      clientConfig: {url: "http://conv.example.com/convert?x=1"}
      conversionReviewVersions: [v3]
"#;

#[test]
fn bad_conversion_webhook_stops_startup_with_kube_texts_and_exit_64() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.yaml");
    std::fs::write(&file, BAD_WEBHOOK).unwrap();
    let out = common::start_with_definitions(&file, dir.path());
    assert_eq!(out.status.code(), Some(64), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let at = "bad.yaml (document 1) things.example.com: spec.conversion";
    for expected in [
        format!(
            "{at}.webhookClientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; desired format: https://host[/path]"
        ),
        format!(
            "{at}.webhookClientConfig.url: Invalid value: \"x=1\": query parameters are not permitted in the URL"
        ),
        format!(
            "{at}.conversionReviewVersions: Invalid value: []string{{\"v3\"}}: must include at least one of v1, v1beta1"
        ),
    ] {
        assert!(
            stderr.contains(&expected),
            "missing {expected:?} in:\n{stderr}"
        );
    }
    assert!(!dir.path().join("data").exists());
}
