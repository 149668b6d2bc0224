#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::*;
use crate::admission::Operation;
use crate::admission::webhook::matching::NamespaceLabels;

const GROUP: &str = "stable.example.com";

fn gvr(version: &str) -> Gvr {
    Gvr {
        group: GROUP.into(),
        version: version.into(),
        resource: "crontabs".into(),
    }
}

fn gvk(version: &str) -> Gvk {
    Gvk {
        group: GROUP.into(),
        version: version.into(),
        kind: "CronTab".into(),
    }
}

fn resources(value: Value) -> MatchResources {
    serde_json::from_value(value).unwrap()
}

/// Defaulted constraints: empty selectors, `fields` merged over them.
fn constraints(fields: Value) -> MatchResources {
    let mut base = json!({"namespaceSelector": {}, "objectSelector": {}});
    for (k, v) in fields.as_object().unwrap() {
        base[k] = v.clone();
    }
    resources(base)
}

fn rule(versions: &[&str], names: &[&str]) -> Value {
    json!({"operations": ["CREATE"], "apiGroups": [GROUP], "apiVersions": versions,
        "resources": ["crontabs"], "resourceNames": names})
}

/// Matches a create of `name` in namespace `ns` (labels `env: prod`) in version v2.
fn run(matcher: &Matcher, name: &str) -> Result<Option<(String, String)>, MatchError> {
    let (resource, kind) = (gvr("v2"), gvk("v2"));
    let equivalents: Vec<Equivalent> = ["v1", "v2"]
        .iter()
        .map(|v| Equivalent {
            resource: gvr(v),
            kind: gvk(v),
        })
        .collect();
    let labels = BTreeMap::from([("env".to_string(), "prod".to_string())]);
    let object = json!({"metadata": {"name": name, "labels": {"app": "web"}}});
    let request = MatchRequest {
        operation: Operation::Create,
        resource: &resource,
        subresource: "",
        kind: &kind,
        namespace: "ns",
        object: Some(&object),
        old_object: None,
        namespace_labels: NamespaceLabels::Found(&labels),
        equivalents: &equivalents,
    };
    let matched = matcher.matches(&request, name)?;
    Ok(matched.map(|m| (m.resource.version, m.kind.version)))
}

/// The (resource version, kind version) matched, or the error.
type Answer = Result<Option<(String, String)>, MatchError>;

fn matched(version: &str) -> Answer {
    Ok(Some((version.to_string(), version.to_string())))
}

#[test]
fn definition_rules_selectors_policy_kubes_answers() {
    let cases: Vec<(&str, Value, &str, Answer)> = vec![
        ("no rules match everything", json!({}), "a", matched("v2")),
        (
            "own version",
            json!({"resourceRules": [rule(&["v2"], &[])]}),
            "a",
            matched("v2"),
        ),
        (
            "other version, Equivalent",
            json!({"resourceRules": [rule(&["v1"], &[])],
            "matchPolicy": "Equivalent"}),
            "a",
            matched("v1"),
        ),
        (
            "other version, unset policy defaults to Equivalent",
            json!({"resourceRules": [rule(&["v1"], &[])]}),
            "a",
            matched("v1"),
        ),
        (
            "other version, Exact",
            json!({"resourceRules": [rule(&["v1"], &[])],
            "matchPolicy": "Exact"}),
            "a",
            Ok(None),
        ),
        (
            "resourceNames hit",
            json!({"resourceRules": [rule(&["v2"], &["a", "b"])]}),
            "b",
            matched("v2"),
        ),
        (
            "resourceNames miss",
            json!({"resourceRules": [rule(&["v2"], &["a"])]}),
            "c",
            Ok(None),
        ),
        (
            "excluded",
            json!({"excludeResourceRules": [rule(&["v2"], &[])]}),
            "a",
            Ok(None),
        ),
        (
            "excluded by name only",
            json!({"excludeResourceRules": [rule(&["*"], &["x"])]}),
            "a",
            matched("v2"),
        ),
        (
            "excluded through an equivalent",
            json!({"excludeResourceRules": [rule(&["v1"], &[])]}),
            "a",
            Ok(None),
        ),
        (
            "namespace selector miss",
            json!({"namespaceSelector": {"matchLabels": {"env": "dev"}}}),
            "a",
            Ok(None),
        ),
        (
            "namespace selector hit",
            json!({"namespaceSelector": {"matchLabels": {"env": "prod"}}}),
            "a",
            matched("v2"),
        ),
        (
            "object selector miss",
            json!({"objectSelector": {"matchLabels": {"app": "db"}}}),
            "a",
            Ok(None),
        ),
        (
            "bad selector, rules match: the error",
            json!({"objectSelector": {"matchExpressions": [{"key": "app", "operator": "Bad"}]}}),
            "a",
            Err(MatchError::Internal(
                "\"Bad\" is not a valid label selector operator".into(),
            )),
        ),
        (
            "bad selector, rules miss: no error",
            json!({"objectSelector": {"matchExpressions": [{"key": "app", "operator": "Bad"}]},
                "resourceRules": [rule(&["v2"], &["z"])], "matchPolicy": "Exact"}),
            "a",
            Ok(None),
        ),
    ];
    for (name, fields, object, want) in cases {
        let matcher = definition(Some(&constraints(fields))).unwrap();
        assert_eq!(run(&matcher, object), want, "{name}");
    }
}

#[test]
fn definition_undefaulted_constraints_kubes_errors() {
    let err = |m: Result<Matcher, String>| m.err().unwrap();
    assert_eq!(err(definition(None)), NO_CONSTRAINTS);
    assert_eq!(
        err(definition(Some(&resources(json!({"objectSelector": {}}))))),
        "a nil namespace selector was passed, please ensure selectors are initialized properly"
    );
    assert_eq!(
        err(definition(Some(&resources(
            json!({"namespaceSelector": {}})
        )))),
        "a nil object selector was passed, please ensure selectors are initialized properly"
    );
}

#[test]
fn binding_unset_match_resources_matches_all() {
    assert!(binding(None).unwrap().is_none());
    let bad = binding(Some(&resources(json!({"namespaceSelector": {}})))).err();
    assert_eq!(
        bad.as_deref(),
        Some("a nil object selector was passed, please ensure selectors are initialized properly")
    );
    let narrowed = binding(Some(&constraints(
        json!({"resourceRules": [rule(&["v2"], &["b"])]}),
    )));
    let narrowed = narrowed.unwrap().unwrap();
    assert_eq!(run(&narrowed, "a"), Ok(None));
    assert_eq!(run(&narrowed, "b"), matched("v2"));
}
