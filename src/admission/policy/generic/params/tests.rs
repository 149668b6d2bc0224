#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::json;

use super::*;
use crate::admission::policy::generic::testing::MemoryStore;

fn kind() -> ParamKindRef {
    ParamKindRef::parse(&ParamKind {
        api_version: Some("v1".into()),
        kind: Some("ConfigMap".into()),
    })
    .unwrap()
}

fn param_ref(value: serde_json::Value) -> ParamRef {
    serde_json::from_value(value).unwrap()
}

fn store() -> MemoryStore {
    let cm = |name: &str, tier: &str| json!({"metadata": {"name": name, "labels": {"tier": tier}}});
    MemoryStore::namespaced(&[
        ("ns", cm("a", "gold")),
        ("ns", cm("b", "gold")),
        ("other", cm("c", "gold")),
    ])
}

/// The names of the params collected, or the error text.
type Names = Result<Vec<String>, String>;

/// The names of the params collected, or the error text.
fn names(result: Result<Params, String>) -> Names {
    result.map(|params| {
        params
            .iter()
            .map(|p| match p {
                None => "<none>".to_string(),
                Some(o) => o["metadata"]["name"].as_str().unwrap().to_string(),
            })
            .collect()
    })
}

#[tokio::test]
async fn collect_params_refs_kubes_answers() {
    let ok = |n: &[&str]| Ok(n.iter().map(|s| s.to_string()).collect::<Vec<_>>());
    let cases: Vec<(&str, serde_json::Value, &str, Names)> = vec![
        ("by name in the request's namespace", json!({"name": "a"}), "ns", ok(&["a"])),
        ("by name in paramRef.namespace", json!({"name": "c", "namespace": "other"}), "ns", ok(&["c"])),
        ("name not found, Allow: no invocation", json!({"name": "z", "parameterNotFoundAction": "Allow"}), "ns", ok(&[])),
        ("name not found, unset action: no invocation", json!({"name": "z"}), "ns", ok(&[])),
        ("name not found, Deny", json!({"name": "z", "parameterNotFoundAction": "Deny"}), "ns",
            Err("no params found for policy binding with `Deny` parameterNotFoundAction".into())),
        ("selector in the namespace", json!({"selector": {"matchLabels": {"tier": "gold"}}}), "ns", ok(&["a", "b"])),
        ("empty selector selects all there", json!({"selector": {}}), "other", ok(&["c"])),
        ("selector finds none, Deny", json!({"selector": {"matchLabels": {"tier": "x"}},
            "parameterNotFoundAction": "Deny"}), "ns",
            Err("no params found for policy binding with `Deny` parameterNotFoundAction".into())),
        ("name and selector", json!({"name": "a", "selector": {}}), "ns",
            Err("paramRef.name and paramRef.selector are mutually exclusive".into())),
        ("neither", json!({}), "ns", Err("one of name or selector must be provided".into())),
        ("cluster-scoped request, namespaced kind", json!({"name": "a"}), "",
            Err("cannot use namespaced paramRef in policy binding that matches cluster-scoped resources".into())),
        ("bad selector", json!({"selector": {"matchExpressions": [{"key": "k", "operator": "Gt"}]}}), "ns",
            Err("\"Gt\" is not a valid label selector operator".into())),
    ];
    let store = store();
    for (name, given, namespace, want) in cases {
        let got = collect_params(
            Some(&kind()),
            Some(&store),
            Some(&param_ref(given)),
            namespace,
        )
        .await;
        assert_eq!(names(got), want, "{name}");
    }
}

#[tokio::test]
async fn collect_params_without_kind_or_ref_one_empty_param() {
    let store = store();
    let r = param_ref(json!({"name": "a"}));
    assert_eq!(
        names(collect_params(None, Some(&store), Some(&r), "ns").await),
        Ok(vec!["<none>".into()])
    );
    assert_eq!(
        names(collect_params(Some(&kind()), Some(&store), None, "ns").await),
        Ok(vec!["<none>".into()])
    );
}

#[tokio::test]
async fn collect_params_unknown_unsynced_cluster_scope_kubes_texts() {
    let r = param_ref(json!({"name": "a"}));
    assert_eq!(
        names(collect_params(Some(&kind()), None, Some(&r), "ns").await),
        Err("paramKind kind `&ParamKind{APIVersion:v1,Kind:ConfigMap,}` not known".into())
    );
    let mut unsynced = store();
    unsynced.synced = false;
    assert_eq!(
        names(collect_params(Some(&kind()), Some(&unsynced), Some(&r), "ns").await),
        Err("paramKind kind `&ParamKind{APIVersion:v1,Kind:ConfigMap,}` not yet synced to use for admission".into())
    );
    let mut cluster = store();
    cluster.resolution = Resolution::Known(ParamScope::Cluster);
    let with_namespace = param_ref(json!({"name": "a", "namespace": "ns"}));
    assert_eq!(
        names(collect_params(Some(&kind()), Some(&cluster), Some(&with_namespace), "ns").await),
        Err("paramRef.namespace must not be provided for a cluster-scoped `paramKind`".into())
    );
}

#[test]
fn param_kind_parse_group_versions_kubes_strings() {
    let parse = |v: &str| {
        ParamKindRef::parse(&ParamKind {
            api_version: Some(v.into()),
            kind: Some("K".into()),
        })
    };
    assert_eq!(
        gvk_string(&parse("example.com/v2").unwrap().gvk),
        "example.com/v2, Kind=K"
    );
    assert_eq!(gvk_string(&parse("v1").unwrap().gvk), "/v1, Kind=K");
    assert_eq!(
        parse("a/b/c").err().as_deref(),
        Some("unexpected GroupVersion string: a/b/c")
    );
}
