//! The webhook configuration source against the fake kube-apiserver serving
//! `admissionregistration.k8s.io/v1` Mutating/ValidatingWebhookConfigurations in kube's
//! wire format: nothing is served before both first lists, then every put, change and
//! delete is followed without a restart (also across a dropped watch, resumed without a
//! new list), and an unchanged relist or resume keeps the compiled snapshot. Also the
//! namespace cache's labels, which webhooks' `namespaceSelector`s read.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;
#[path = "common/fake_kube.rs"]
mod fake_kube;

use std::sync::Arc;
use std::time::Duration;

use common::eventually;
use crd_apiserver::admission::namespace::NamespaceLifecycle;
use crd_apiserver::admission::webhook::hook::{FailurePolicy, Hook, Hooks, MatchPolicy};
use crd_apiserver::admission::webhook::source::Source;
use crd_apiserver::webhook::Endpoint;
use fake_kube::FakeKube;
use serde_json::{Value, json};

const WITHIN: Duration = Duration::from_secs(10);

/// A webhook as kube-apiserver serves it (every defaulted field present).
fn webhook(name: &str, url: &str, failure_policy: &str) -> Value {
    json!({"name": name, "clientConfig": {"url": url},
        "rules": [{"operations": ["CREATE", "UPDATE"], "apiGroups": ["stable.example.com"],
            "apiVersions": ["v1"], "resources": ["crontabs"], "scope": "*"}],
        "failurePolicy": failure_policy, "matchPolicy": "Equivalent",
        "namespaceSelector": {}, "objectSelector": {}, "sideEffects": "None",
        "timeoutSeconds": 10, "admissionReviewVersions": ["v1"]})
}

fn configuration(kind: &str, name: &str, webhooks: Value) -> Value {
    json!({"kind": kind, "metadata": {"name": name}, "webhooks": webhooks})
}

fn validating(name: &str, webhooks: Value) -> Value {
    configuration("ValidatingWebhookConfiguration", name, webhooks)
}

fn mutating(name: &str, webhooks: Value) -> Value {
    let mut config = configuration("MutatingWebhookConfiguration", name, webhooks);
    for hook in config["webhooks"].as_array_mut().unwrap() {
        hook["reinvocationPolicy"] = json!("Never");
    }
    config
}

fn uids(hooks: &[Arc<Hook>]) -> Vec<String> {
    hooks.iter().map(|h| h.uid.clone()).collect()
}

/// The source's hooks once `done` holds for them.
async fn hooks_when(source: &Source, what: &str, done: impl Fn(&Hooks) -> bool) -> Arc<Hooks> {
    eventually(WITHIN, what, || {
        let current = source.current().filter(|h| done(h));
        async move { current }
    })
    .await
}

async fn followed(fake: &FakeKube) -> Source {
    let source = Source::from_cluster(Some(&fake.kubeconfig()))
        .await
        .unwrap();
    assert!(source.is_followed());
    source
}

#[tokio::test]
async fn source_unsynced_until_both_lists_then_serves_them() {
    let fake = FakeKube::start();
    fake.put_webhook_configuration(validating(
        "b-config",
        json!([webhook("b.example.com", "https://b:8443/v", "Fail")]),
    ));
    fake.put_webhook_configuration(validating(
        "a-config",
        json!([
            webhook("a1.example.com", "https://a:8443/1", "Ignore"),
            webhook("a2.example.com", "https://a:8443/2", "Fail")
        ]),
    ));
    fake.put_webhook_configuration(mutating(
        "m-config",
        json!([webhook("m.example.com", "https://m:8443/m", "Fail")]),
    ));
    fake.hold_webhook_lists();
    let source = followed(&fake).await;
    assert!(
        source.current().is_none(),
        "no snapshot before the first lists"
    );
    assert!(!source.wait_synced(Duration::from_millis(300)).await);
    fake.release_webhook_lists();
    assert!(source.wait_synced(WITHIN).await);
    let hooks = source.current().unwrap();
    assert_eq!(
        uids(&hooks.validating),
        [
            "a-config/a1.example.com/0",
            "a-config/a2.example.com/0",
            "b-config/b.example.com/0"
        ],
        "configurations by name, webhooks in order"
    );
    assert_eq!(uids(&hooks.mutating), ["m-config/m.example.com/0"]);
    let a1 = &hooks.validating[0];
    assert_eq!(a1.failure_policy, FailurePolicy::Ignore);
    assert_eq!(a1.match_policy, MatchPolicy::Equivalent);
    assert_eq!(a1.timeout, Duration::from_secs(10));
    let url = Endpoint::Url {
        url: "https://a:8443/1".into(),
        ca_bundle: None,
    };
    assert_eq!(a1.endpoint, Ok(url));
    assert_eq!(fake.webhook_lists(), 2, "one list per kind");
}

#[tokio::test]
async fn source_follows_puts_changes_and_deletes_without_restart() {
    let fake = FakeKube::start();
    let source = followed(&fake).await;
    assert!(source.wait_synced(WITHIN).await);
    assert!(source.current().unwrap().is_empty());

    fake.put_webhook_configuration(validating(
        "v",
        json!([webhook("v.example.com", "https://v/1", "Fail")]),
    ));
    let added = hooks_when(&source, "the added configuration", |h| {
        h.validating.len() == 1
    })
    .await;
    assert_eq!(added.validating[0].failure_policy, FailurePolicy::Fail);

    fake.put_webhook_configuration(validating(
        "v",
        json!([webhook("v.example.com", "https://v/1", "Ignore")]),
    ));
    let changed = hooks_when(&source, "the changed configuration", |h| {
        h.validating
            .first()
            .is_some_and(|v| v.failure_policy == FailurePolicy::Ignore)
    })
    .await;
    assert_eq!(uids(&changed.validating), ["v/v.example.com/0"]);

    fake.put_webhook_configuration(mutating(
        "m",
        json!([webhook("m.example.com", "https://m/1", "Fail")]),
    ));
    hooks_when(&source, "the mutating configuration", |h| {
        h.mutating.len() == 1
    })
    .await;

    fake.delete_webhook_configuration("ValidatingWebhookConfiguration", "v");
    let gone = hooks_when(&source, "the deleted configuration gone", |h| {
        h.validating.is_empty()
    })
    .await;
    assert_eq!(
        uids(&gone.mutating),
        ["m/m.example.com/0"],
        "the other kind stays"
    );
    assert_eq!(
        fake.webhook_lists(),
        2,
        "changes come through the watch, not new lists"
    );
}

#[tokio::test]
async fn source_dropped_watch_resumes_and_keeps_the_snapshot() {
    let fake = FakeKube::start();
    fake.put_webhook_configuration(validating(
        "v",
        json!([webhook("v.example.com", "https://v/1", "Fail")]),
    ));
    let source = followed(&fake).await;
    let before = hooks_when(&source, "the first configuration", |h| {
        h.validating.len() == 1
    })
    .await;
    let watches = eventually(WITHIN, "both watches open", || {
        let n = fake.webhook_watches();
        async move { (n >= 2).then_some(n) }
    })
    .await;

    fake.drop_webhook_watches();
    eventually(WITHIN, "both watches reopened", || {
        let n = fake.webhook_watches();
        async move { (n >= watches + 2).then_some(()) }
    })
    .await;
    assert!(
        Arc::ptr_eq(&before, &source.current().unwrap()),
        "an unchanged resume recompiles nothing"
    );

    fake.put_webhook_configuration(validating(
        "w",
        json!([webhook("w.example.com", "https://w/1", "Fail")]),
    ));
    let after = hooks_when(&source, "the configuration put after the drop", |h| {
        h.validating.len() == 2
    })
    .await;
    assert!(
        Arc::ptr_eq(&before.validating[0], &after.validating[0]),
        "v not recompiled"
    );
    assert_eq!(
        fake.webhook_lists(),
        2,
        "resumed from the last version, not relisted"
    );
}

#[tokio::test]
async fn source_none_has_no_webhooks_and_is_ready() {
    let source = Source::none();
    assert!(!source.is_followed());
    assert!(source.wait_synced(Duration::ZERO).await);
    assert!(source.current().unwrap().is_empty());
}

#[tokio::test]
async fn namespace_labels_followed_and_looked_up_when_missing() {
    let fake = FakeKube::start();
    fake.set_namespace_labels("prod", &[("env", "prod")]);
    let lifecycle = NamespaceLifecycle::from_cluster(Some(&fake.kubeconfig()))
        .await
        .unwrap();
    let followed = lifecycle.followed().unwrap();
    assert!(followed.wait_synced(WITHIN).await);
    let labels = followed.labels("prod").await.unwrap().unwrap();
    assert_eq!(labels.get("env").map(String::as_str), Some("prod"));
    assert_eq!(
        labels
            .get("kubernetes.io/metadata.name")
            .map(String::as_str),
        Some("prod")
    );

    fake.set_namespace_labels("prod", &[("env", "staging")]);
    eventually(WITHIN, "the relabelled namespace", || async {
        let labels = followed.labels("prod").await.unwrap()?;
        (labels.get("env").map(String::as_str) == Some("staging")).then_some(())
    })
    .await;
    assert!(
        fake.namespace_lookups().is_empty(),
        "cached namespaces need no GET"
    );

    assert_eq!(followed.labels("missing").await.unwrap(), None);
    assert_eq!(
        fake.namespace_lookups(),
        ["missing"],
        "kube's live GET for a namespace not cached"
    );
}
