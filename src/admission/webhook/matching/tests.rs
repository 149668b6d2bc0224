use serde_json::json;

use super::*;
use crate::admission::Operation::{Create, Delete, Update};
use crate::admission::webhook::hook;
use k8s_openapi::api::admissionregistration::v1::ValidatingWebhookConfiguration;

const GROUP: &str = "stable.example.com";

/// One validating hook: `fields` merged over a webhook whose one rule is `rule`.
fn hook_with(rule: Value, fields: Value) -> Arc<Hook> {
    let mut webhook = json!({"name": "h.example.com", "clientConfig": {"url": "https://h"},
        "sideEffects": "None", "admissionReviewVersions": ["v1"], "rules": [rule]});
    for (k, v) in fields.as_object().unwrap() {
        webhook[k] = v.clone();
    }
    let config: ValidatingWebhookConfiguration = serde_json::from_value(json!({
        "metadata": {"name": "cfg"}, "webhooks": [webhook]}))
    .unwrap();
    hook::validating(&config).remove(0)
}

fn rule(versions: &[&str], resources: &[&str]) -> Value {
    json!({"operations": ["*"], "apiGroups": [GROUP], "apiVersions": versions,
        "resources": resources})
}

fn gvr(version: &str) -> Gvr {
    Gvr {
        group: GROUP.into(),
        version: version.into(),
        resource: "crontabs".into(),
    }
}

fn gvk(version: &str, kind: &str) -> Gvk {
    Gvk {
        group: GROUP.into(),
        version: version.into(),
        kind: kind.into(),
    }
}

fn served() -> Vec<Equivalent> {
    ["v1", "v2", "v3"]
        .iter()
        .map(|v| Equivalent {
            resource: gvr(v),
            kind: gvk(v, "CronTab"),
        })
        .collect()
}

struct Case {
    operation: Operation,
    namespace: &'static str,
    subresource: &'static str,
    object: Option<Value>,
    old_object: Option<Value>,
}

fn case() -> Case {
    Case {
        operation: Create,
        namespace: "ns",
        subresource: "",
        object: Some(json!({"metadata": {"name": "c", "labels": {"app": "web"}}})),
        old_object: None,
    }
}

/// Runs `should_call` for the request `case` describes in version v2 of crontabs.
fn call(
    hook: &Arc<Hook>,
    case: &Case,
    labels: NamespaceLabels<'_>,
) -> Result<Option<(Gvr, Gvk)>, MatchError> {
    let (resource, kind, equivalents) = (gvr("v2"), gvk("v2", "CronTab"), served());
    let request = MatchRequest {
        operation: case.operation,
        resource: &resource,
        subresource: case.subresource,
        kind: &kind,
        namespace: case.namespace,
        object: case.object.as_ref(),
        old_object: case.old_object.as_ref(),
        namespace_labels: labels,
        equivalents: &equivalents,
    };
    let invocation = should_call(hook, &request)?;
    Ok(invocation.map(|i| (i.resource, i.kind)))
}

#[test]
fn should_call_exact_and_equivalent_versions() {
    let v2 = Some((gvr("v2"), gvk("v2", "CronTab")));
    let v1 = Some((gvr("v1"), gvk("v1", "CronTab")));
    let cases = [
        (
            "own version",
            rule(&["v2"], &["crontabs"]),
            "Equivalent",
            v2.clone(),
        ),
        (
            "own version wins over earlier",
            rule(&["v1", "v2"], &["crontabs"]),
            "Equivalent",
            v2.clone(),
        ),
        (
            "other version, Equivalent",
            rule(&["v1"], &["crontabs"]),
            "Equivalent",
            v1.clone(),
        ),
        (
            "other version, Exact",
            rule(&["v1"], &["crontabs"]),
            "Exact",
            None,
        ),
        (
            "version not served",
            rule(&["v9"], &["crontabs"]),
            "Equivalent",
            None,
        ),
        (
            "other resource",
            rule(&["*"], &["widgets"]),
            "Equivalent",
            None,
        ),
        (
            "first served version",
            rule(&["v3", "v1"], &["crontabs"]),
            "Equivalent",
            v1,
        ),
    ];
    for (name, rule, policy, want) in cases {
        let hook = hook_with(rule, json!({"matchPolicy": policy}));
        let got = call(&hook, &case(), NamespaceLabels::NotLooked);
        assert_eq!(got, Ok(want), "{name}");
    }
}

#[test]
fn should_call_equivalent_honours_earlier_rules_first() {
    let mut hook = hook_with(rule(&["v3"], &["crontabs"]), json!({}));
    let second = hook_with(rule(&["v1"], &["crontabs"]), json!({}));
    Arc::make_mut(&mut hook).rules.push(second.rules[0].clone());
    let got = call(&hook, &case(), NamespaceLabels::NotLooked).unwrap();
    assert_eq!(got.map(|(r, _)| r.version), Some("v3".to_string()));
}

#[test]
fn should_call_subresources_only_rules_that_name_them() {
    let status = Case {
        operation: Update,
        subresource: "status",
        ..case()
    };
    let cases = [
        ("main rule", rule(&["*"], &["crontabs"]), false),
        ("* rule", rule(&["*"], &["*"]), false),
        ("*/status", rule(&["*"], &["*/status"]), true),
        ("crontabs/*", rule(&["*"], &["crontabs/*"]), true),
        ("crontabs/scale", rule(&["*"], &["crontabs/scale"]), false),
    ];
    for (name, rule, want) in cases {
        let hook = hook_with(rule, json!({}));
        let got = call(&hook, &status, NamespaceLabels::NotLooked).unwrap();
        assert_eq!(got.is_some(), want, "{name}");
    }
}

#[test]
fn should_call_namespace_selector() {
    let prod = BTreeMap::from([("env".to_string(), "prod".to_string())]);
    let dev = BTreeMap::from([("env".to_string(), "dev".to_string())]);
    let hook = hook_with(
        rule(&["*"], &["*"]),
        json!({"namespaceSelector": {"matchLabels": {"env": "prod"}}}),
    );
    let cluster_scoped = Case {
        namespace: "",
        ..case()
    };
    let found = |labels| call(&hook, &case(), NamespaceLabels::Found(labels));
    assert!(found(&prod).unwrap().is_some(), "labels match");
    assert_eq!(found(&dev), Ok(None), "labels differ");
    let cluster = call(&hook, &cluster_scoped, NamespaceLabels::NotLooked);
    assert!(cluster.unwrap().is_some(), "cluster-scoped always match");
    assert_eq!(
        call(&hook, &case(), NamespaceLabels::NotFound),
        Err(MatchError::NamespaceNotFound("ns".into()))
    );
    assert_eq!(
        call(&hook, &case(), NamespaceLabels::Failed("boom")),
        Err(MatchError::Internal("boom".into()))
    );
    let everything = hook_with(rule(&["*"], &["*"]), json!({"namespaceSelector": {}}));
    let unlooked = call(&everything, &case(), NamespaceLabels::NotLooked);
    assert!(unlooked.unwrap().is_some(), "{{}} needs no labels");
}

#[test]
fn should_call_object_selector_new_or_old_object() {
    let hook = hook_with(
        rule(&["*"], &["*"]),
        json!({"objectSelector": {"matchLabels": {"app": "web"}}}),
    );
    let labelled = json!({"metadata": {"labels": {"app": "web"}}});
    let bare = json!({"metadata": {"name": "c"}});
    let malformed = json!({"metadata": {"labels": {"app": 7}}});
    let cases = [
        ("new object", Some(labelled.clone()), None, true),
        (
            "old object only",
            Some(bare.clone()),
            Some(labelled.clone()),
            true,
        ),
        ("delete: old object", None, Some(labelled), true),
        ("neither", Some(bare.clone()), Some(bare), false),
        (
            "non-string labels read as none",
            Some(malformed),
            None,
            false,
        ),
        ("no objects", None, None, false),
    ];
    for (name, object, old_object, want) in cases {
        let request = Case {
            operation: Delete,
            object,
            old_object,
            ..case()
        };
        let got = call(&hook, &request, NamespaceLabels::NotLooked).unwrap();
        assert_eq!(got.is_some(), want, "{name}");
    }
}

#[test]
fn should_call_bad_selector_errors_only_when_rules_match() {
    let bad = json!({"objectSelector": {"matchExpressions": [{"key": "a", "operator": "Near"}]}});
    let matching = hook_with(rule(&["*"], &["*"]), bad.clone());
    let want = Err(MatchError::Internal(
        "\"Near\" is not a valid label selector operator".into(),
    ));
    assert_eq!(call(&matching, &case(), NamespaceLabels::NotLooked), want);
    let elsewhere = hook_with(rule(&["*"], &["widgets"]), bad);
    assert_eq!(
        call(&elsewhere, &case(), NamespaceLabels::NotLooked),
        Ok(None)
    );
}

#[test]
fn should_call_equivalent_without_kind_is_kubes_internal_error() {
    let hook = hook_with(rule(&["v1"], &["crontabs"]), json!({}));
    let (resource, kind) = (gvr("v2"), gvk("v2", "CronTab"));
    let equivalents = [Equivalent {
        resource: gvr("v1"),
        kind: Gvk::default(),
    }];
    let request = MatchRequest {
        operation: Create,
        resource: &resource,
        subresource: "",
        kind: &kind,
        namespace: "",
        object: None,
        old_object: None,
        namespace_labels: NamespaceLabels::NotLooked,
        equivalents: &equivalents,
    };
    let want = "unable to convert to stable.example.com/v1, Resource=crontabs: unknown kind";
    assert_eq!(
        should_call(&hook, &request).map(|i| i.is_some()),
        Err(MatchError::Internal(want.into()))
    );
}
