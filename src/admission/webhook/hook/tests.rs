use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::*;
use crate::admission::webhook::rules::Scope;

fn validating_config(webhooks: Value) -> ValidatingWebhookConfiguration {
    serde_json::from_value(json!({"apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingWebhookConfiguration", "metadata": {"name": "cfg"},
        "webhooks": webhooks}))
    .unwrap()
}

fn mutating_config(webhooks: Value) -> MutatingWebhookConfiguration {
    serde_json::from_value(json!({"apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "MutatingWebhookConfiguration", "metadata": {"name": "cfg"},
        "webhooks": webhooks}))
    .unwrap()
}

/// A webhook with only the fields the API requires.
fn bare(name: &str) -> Value {
    json!({"name": name, "clientConfig": {"url": "https://hook.example:8443/v"},
        "sideEffects": "None", "admissionReviewVersions": ["v1"]})
}

#[test]
fn validating_unset_fields_get_kubes_defaults() {
    let hooks = validating(&validating_config(json!([bare("a.example.com")])));
    let [hook] = hooks.as_slice() else {
        panic!("one hook: {hooks:?}")
    };
    assert_eq!(hook.uid, "cfg/a.example.com/0");
    assert_eq!(hook.configuration, "cfg");
    assert_eq!(hook.kind, HookKind::Validating);
    assert_eq!(hook.match_policy, MatchPolicy::Equivalent);
    assert_eq!(hook.failure_policy, FailurePolicy::Fail);
    assert_eq!(hook.side_effects, SideEffects::None);
    assert_eq!(hook.timeout, Duration::from_secs(10));
    assert_eq!(hook.reinvocation, Reinvocation::Never);
    assert!(hook.rules.is_empty());
    assert!(hook.match_conditions.is_empty());
    let everything = Ok(LabelSelector::default());
    assert_eq!(hook.namespace_selector, everything);
    assert_eq!(hook.object_selector, everything);
    let want = Endpoint::Url {
        url: "https://hook.example:8443/v".into(),
        ca_bundle: None,
    };
    assert_eq!(hook.endpoint, Ok(want));
}

#[test]
fn mutating_given_fields_compile() {
    let mut w = bare("m.example.com");
    w["clientConfig"] = json!({"service": {"namespace": "hooks", "name": "svc", "path": "/mutate"},
        "caBundle": "UEVN"});
    w["failurePolicy"] = json!("Ignore");
    w["matchPolicy"] = json!("Exact");
    w["sideEffects"] = json!("NoneOnDryRun");
    w["timeoutSeconds"] = json!(5);
    w["reinvocationPolicy"] = json!("IfNeeded");
    w["admissionReviewVersions"] = json!(["v1beta1", "v1"]);
    w["rules"] = json!([{"operations": ["CREATE"], "apiGroups": ["stable.example.com"],
        "apiVersions": ["v1"], "resources": ["crontabs/status"], "scope": "Namespaced"}]);
    w["matchConditions"] =
        json!([{"name": "not-system", "expression": "request.userInfo.username != 'system'"}]);
    w["namespaceSelector"] = json!({"matchLabels": {"env": "prod"}});
    w["objectSelector"] =
        json!({"matchExpressions": [{"key": "skip", "operator": "DoesNotExist"}]});
    let hooks = mutating(&mutating_config(json!([w])));
    let [hook] = hooks.as_slice() else {
        panic!("one hook: {hooks:?}")
    };
    assert_eq!(hook.kind, HookKind::Mutating);
    assert_eq!(hook.failure_policy, FailurePolicy::Ignore);
    assert_eq!(hook.match_policy, MatchPolicy::Exact);
    assert_eq!(hook.side_effects, SideEffects::NoneOnDryRun);
    assert_eq!(hook.timeout, Duration::from_secs(5));
    assert_eq!(hook.reinvocation, Reinvocation::IfNeeded);
    assert_eq!(hook.review_versions, ["v1beta1", "v1"]);
    let rule = &hook.rules[0];
    assert_eq!(
        rule.resources,
        [("crontabs".to_string(), "status".to_string())]
    );
    assert_eq!(rule.scope, Scope::Namespaced);
    let condition = (
        "not-system".to_string(),
        "request.userInfo.username != 'system'".to_string(),
    );
    assert_eq!(hook.match_conditions, [condition]);
    let prod = BTreeMap::from([("env".to_string(), "prod".to_string())]);
    let ns_selector = hook.namespace_selector.as_ref().unwrap();
    assert!(ns_selector.matches_btree(&prod));
    assert!(!ns_selector.matches_btree(&BTreeMap::new()));
    let object_selector = hook.object_selector.as_ref().unwrap();
    assert!(object_selector.matches_btree(&prod));
    let want = Endpoint::Service {
        namespace: "hooks".into(),
        name: "svc".into(),
        path: Some("/mutate".into()),
        port: 443,
        ca_bundle: Some(b"PEM".to_vec()),
    };
    assert_eq!(hook.endpoint, Ok(want));
}

#[test]
fn compile_bad_parts_are_kept_as_kubes_texts() {
    let mut w = bare("bad.example.com");
    w["clientConfig"] = json!({});
    w["namespaceSelector"] = json!({"matchExpressions": [{"key": "env", "operator": "Near"}]});
    w["objectSelector"] = json!({"matchExpressions": [{"key": "env", "operator": "In"}]});
    w["sideEffects"] = json!("Sometimes");
    w["failurePolicy"] = json!("Maybe");
    let hooks = validating(&validating_config(json!([w])));
    let hook = &hooks[0];
    assert_eq!(
        hook.namespace_selector,
        Err("\"Near\" is not a valid label selector operator".into())
    );
    assert_eq!(
        hook.object_selector,
        Err(
            "values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty"
                .into()
        )
    );
    assert_eq!(
        hook.endpoint,
        Err("webhook configuration must have either service or URL".into())
    );
    assert_eq!(hook.side_effects, SideEffects::Unknown);
    assert_eq!(hook.failure_policy, FailurePolicy::Fail);
}

#[test]
fn uids_count_repeated_names_per_configuration() {
    let webhooks = json!([bare("a"), bare("b"), bare("a"), bare("a")]);
    let uids: Vec<String> = validating(&validating_config(webhooks))
        .iter()
        .map(|h| h.uid.clone())
        .collect();
    assert_eq!(uids, ["cfg/a/0", "cfg/b/0", "cfg/a/1", "cfg/a/2"]);
}

#[test]
fn compile_no_webhooks_no_hooks() {
    let config: ValidatingWebhookConfiguration =
        serde_json::from_value(json!({"metadata": {"name": "empty"}})).unwrap();
    assert!(validating(&config).is_empty());
}

#[test]
fn hooks_use_namespace_labels_only_for_a_restricting_selector() {
    let mut restricting = bare("r");
    restricting["namespaceSelector"] = json!({"matchLabels": {"env": "prod"}});
    let mut everything = bare("e");
    everything["namespaceSelector"] = json!({});
    let with = |webhooks: Value| Hooks {
        mutating: Vec::new(),
        validating: validating(&validating_config(webhooks)),
    };
    assert!(!with(json!([everything.clone(), bare("x")])).use_namespace_labels());
    assert!(with(json!([everything, restricting])).use_namespace_labels());
    assert!(Hooks::default().is_empty());
}
