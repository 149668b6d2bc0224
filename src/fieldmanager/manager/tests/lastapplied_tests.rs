//! Client-side → server-side migration (lastappliedmanager_test, lastappliedupdater_test).

use serde_json::{Value, json};

use super::{Fixture, deploy};
use crate::fieldmanager::manager::{Error, LAST_APPLIED_CONFIG_ANNOTATION, build_last_applied};

fn dep(label: &str, replicas: i64, image: &str) -> Value {
    deploy(
        json!({"metadata": {"labels": {"app": label}}, "spec": {"replicas": replicas,
        "selector": {"matchLabels": {"app": label}},
        "template": {"metadata": {"labels": {"app": label}},
                     "spec": {"containers": [{"name": "my-c", "image": image}]}}}}),
    )
}

#[test]
fn apply_kubectl_takes_over_last_applied_fields() {
    // (manager, last-applied (None: the original), original, applied, expected conflicts)
    let original = dep("my-app", 3, "my-image");
    let cases: Vec<(&str, Option<Value>, Value, Vec<&str>)> = vec![
        ("kubectl", None, dep("my-new-label", 3, "my-image"), vec![]),
        ("kubectl", None, original.clone(), vec![]),
        (
            "kubectl",
            Some(dep("my-app", 100, "my-image")),
            dep("my-new-label", 333, "my-image"),
            vec![".spec.replicas"],
        ),
        (
            "kubectl",
            Some(dep("my-app", 3, "other")),
            dep("my-app", 3, "new"),
            vec![".spec.template.spec.containers[name=\"my-c\"].image"],
        ),
        (
            "not_kubectl",
            None,
            dep("my-new-label", 333, "new"),
            vec![
                ".metadata.labels.app",
                ".spec.replicas",
                ".spec.selector",
                ".spec.template.metadata.labels.app",
                ".spec.template.spec.containers[name=\"my-c\"].image",
            ],
        ),
    ];
    for (i, (manager, last, applied, want)) in cases.into_iter().enumerate() {
        let mut f = Fixture::new();
        let mut obj = original.clone();
        let last = build_last_applied(last.as_ref().unwrap_or(&original));
        obj["metadata"]["annotations"] = json!({LAST_APPLIED_CONFIG_ANNOTATION: last});
        f.update(obj, "test_client_side_apply", 1).unwrap();
        match f.apply(applied.clone(), manager, false, 2) {
            Ok(()) => assert!(want.is_empty(), "case {i}: want conflicts {want:?}"),
            Err(Error::Conflict { causes, .. }) => {
                let got: Vec<&str> = causes.iter().map(|c| c.field.as_str()).collect();
                assert_eq!(got, want, "case {i}");
                assert!(
                    causes
                        .iter()
                        .all(|c| c.message.contains("test_client_side_apply"))
                );
                f.apply(applied.clone(), manager, true, 3).unwrap();
            }
            Err(e) => panic!("case {i}: {e}"),
        }
        assert_eq!(f.live()["spec"], applied["spec"], "case {i}");
    }
}

#[test]
fn apply_by_kubectl_refreshes_existing_last_applied() {
    // (manager, expected annotation)
    let mut patch = dep("my-app", 20, "my-image");
    patch["metadata"]["annotations"] = json!({LAST_APPLIED_CONFIG_ANNOTATION: "nonempty"});
    let fresh = build_last_applied(&patch);
    assert!(fresh.ends_with("}\n") && fresh.contains("my-image") && !fresh.contains("nonempty"));
    let cases = vec![("NOT-KUBECTL", "nonempty".to_string()), ("kubectl", fresh)];
    let mut f = Fixture::new();
    for (manager, want) in cases {
        f.apply(patch.clone(), manager, false, 1).unwrap();
        assert_eq!(
            f.live()["metadata"]["annotations"][LAST_APPLIED_CONFIG_ANNOTATION],
            json!(want),
            "{manager}"
        );
    }
}

#[test]
fn apply_too_large_last_applied_is_dropped() {
    let big = "x".repeat(256 * 1024);
    let mut f = Fixture::new();
    let mut obj = deploy(json!({"spec": {"data": {"k": "v"}}}));
    obj["metadata"]["annotations"] = json!({LAST_APPLIED_CONFIG_ANNOTATION: "nonempty"});
    f.update(obj, "kubectl-client-side-apply", 1).unwrap();
    let mut patch = deploy(json!({"spec": {"data": {"k": big}}}));
    patch["metadata"]["annotations"] = json!({LAST_APPLIED_CONFIG_ANNOTATION: "nonempty"});
    f.apply(patch, "kubectl", true, 2).unwrap();
    assert_eq!(
        f.live()["metadata"]["annotations"].get(LAST_APPLIED_CONFIG_ANNOTATION),
        None
    );
}
