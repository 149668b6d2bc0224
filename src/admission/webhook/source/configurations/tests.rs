use serde_json::{Value, json};

use super::*;

fn webhook(name: &str, url: &str) -> Value {
    json!({"name": name, "clientConfig": {"url": url}, "sideEffects": "None",
        "admissionReviewVersions": ["v1"]})
}

fn validating(name: &str, webhooks: Value) -> ValidatingWebhookConfiguration {
    serde_json::from_value(json!({"metadata": {"name": name, "resourceVersion": "1"},
        "webhooks": webhooks}))
    .unwrap()
}

fn mutating(name: &str, webhooks: Value) -> MutatingWebhookConfiguration {
    serde_json::from_value(json!({"metadata": {"name": name}, "webhooks": webhooks})).unwrap()
}

fn uids(hooks: &[Arc<Hook>]) -> Vec<&str> {
    hooks.iter().map(|h| h.uid.as_str()).collect()
}

/// A store with both kinds listed: `b` (webhooks b1, b2) and `a` (a1) validating.
fn listed() -> Configurations {
    let store = Configurations::default();
    let configurations = vec![
        validating(
            "b",
            json!([webhook("b1", "https://b1"), webhook("b2", "https://b2")]),
        ),
        validating("a", json!([webhook("a1", "https://a1")])),
    ];
    Sink::<ValidatingWebhookConfiguration>::replace(&store, configurations);
    Sink::<MutatingWebhookConfiguration>::replace(
        &store,
        vec![mutating("m", json!([webhook("m1", "https://m1")]))],
    );
    store
}

#[test]
fn current_none_until_both_kinds_listed() {
    let store = Configurations::default();
    Sink::<ValidatingWebhookConfiguration>::replace(&store, vec![validating("a", json!([]))]);
    assert!(store.current().is_none(), "mutating not listed yet");
    assert!(!*store.synced().borrow());
    Sink::<MutatingWebhookConfiguration>::replace(&store, Vec::new());
    assert!(store.current().is_some());
    assert!(*store.synced().borrow());
}

#[test]
fn current_hooks_in_kubes_order() {
    let hooks = listed().current().unwrap();
    assert_eq!(uids(&hooks.validating), ["a/a1/0", "b/b1/0", "b/b2/0"]);
    assert_eq!(uids(&hooks.mutating), ["m/m1/0"]);
}

#[test]
fn upsert_same_webhooks_keeps_the_snapshot() {
    let store = listed();
    let before = store.current().unwrap();
    let mut same = validating("a", json!([webhook("a1", "https://a1")]));
    same.metadata.resource_version = Some("2".into());
    store.upsert(same);
    assert!(Arc::ptr_eq(&before, &store.current().unwrap()));
}

#[test]
fn upsert_changed_recompiles_that_configuration_only() {
    let store = listed();
    let before = store.current().unwrap();
    store.upsert(validating("a", json!([webhook("a1", "https://elsewhere")])));
    let after = store.current().unwrap();
    assert!(!Arc::ptr_eq(&before, &after));
    let url = |h: &Hook| format!("{:?}", h.endpoint);
    assert!(url(&after.validating[0]).contains("https://elsewhere"));
    assert!(
        Arc::ptr_eq(&before.validating[1], &after.validating[1]),
        "b kept"
    );
    assert!(
        Arc::ptr_eq(&before.mutating[0], &after.mutating[0]),
        "m kept"
    );
    store.upsert(validating("c", json!([webhook("c1", "https://c1")])));
    let added = store.current().unwrap();
    assert_eq!(
        uids(&added.validating),
        ["a/a1/0", "b/b1/0", "b/b2/0", "c/c1/0"]
    );
}

#[test]
fn remove_drops_the_configurations_hooks() {
    let store = listed();
    store.remove(validating("b", json!([])));
    assert_eq!(uids(&store.current().unwrap().validating), ["a/a1/0"]);
    store.remove(mutating("m", json!([])));
    assert!(store.current().unwrap().mutating.is_empty());
}

#[test]
fn replace_identical_keeps_snapshot_and_missing_are_dropped() {
    let store = listed();
    let before = store.current().unwrap();
    let again = vec![
        validating("a", json!([webhook("a1", "https://a1")])),
        validating(
            "b",
            json!([webhook("b1", "https://b1"), webhook("b2", "https://b2")]),
        ),
    ];
    Sink::<ValidatingWebhookConfiguration>::replace(&store, again);
    assert!(
        Arc::ptr_eq(&before, &store.current().unwrap()),
        "relist of the same"
    );
    let fewer = vec![validating(
        "b",
        json!([webhook("b1", "https://b1"), webhook("b2", "https://b2")]),
    )];
    Sink::<ValidatingWebhookConfiguration>::replace(&store, fewer);
    let after = store.current().unwrap();
    assert_eq!(uids(&after.validating), ["b/b1/0", "b/b2/0"]);
    assert!(
        Arc::ptr_eq(&before.validating[1], &after.validating[0]),
        "b not recompiled"
    );
}
