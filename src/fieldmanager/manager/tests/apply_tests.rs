//! Applies: create, conflicts with kube's 409 texts, force, removal of fields a manager
//! stops applying, `before-first-apply`, the request checks and reset fields.

use serde_json::{Value, json};

use super::{Fixture, V1, deploy, t};
use crate::fieldmanager::managed::ConflictCause;
use crate::fieldmanager::manager::{Error, main_reset_fields, status_reset_fields};

fn replicas(n: i64) -> Value {
    deploy(json!({"spec": {"replicas": n}}))
}

fn conflict(err: Error) -> (String, Vec<(String, String)>) {
    match err {
        Error::Conflict { message, causes } => (
            message,
            causes
                .into_iter()
                .map(|ConflictCause { message, field }| (message, field))
                .collect(),
        ),
        other => panic!("want a conflict, got {other:?}"),
    }
}

#[test]
fn apply_create_records_apply_entry() {
    let mut f = Fixture::new();
    f.apply(
        deploy(
            json!({"spec": {"replicas": 1, "template": {"spec": {"containers": [
        {"name": "c", "image": "i"}]}}}}),
        ),
        "kubectl",
        false,
        3,
    )
    .unwrap();
    assert_eq!(
        f.managed_fields(),
        json!([{"manager": "kubectl", "operation": "Apply", "apiVersion": V1,
            "time": "2023-11-14T22:13:23Z", "fieldsType": "FieldsV1",
            "fieldsV1": {"f:spec": {"f:replicas": {}, "f:template": {"f:spec": {"f:containers": {
                "k:{\"name\":\"c\"}": {".": {}, "f:image": {}, "f:name": {}}}}}}}}])
    );
    assert_eq!(f.live()["spec"]["replicas"], 1);
    assert_eq!(f.live()["metadata"]["name"], "d");
}

#[test]
fn apply_conflict_texts_name_managers_as_kube() {
    // (first write, expected message, expected cause message)
    let cases: Vec<(&str, &str, &str)> = vec![
        (
            "apply",
            r#"Apply failed with 1 conflict: conflict with "kubectl": .spec.replicas"#,
            r#"conflict with "kubectl""#,
        ),
        (
            "update",
            r#"Apply failed with 1 conflict: conflict with "kubectl" using apps.example.com/v1: .spec.replicas"#,
            r#"conflict with "kubectl" using apps.example.com/v1"#,
        ),
        (
            "status update",
            r#"Apply failed with 1 conflict: conflict with "kubectl" with subresource "status" using apps.example.com/v1: .status.replicas"#,
            r#"conflict with "kubectl" with subresource "status" using apps.example.com/v1"#,
        ),
    ];
    for (first, message, cause) in cases {
        let mut f = Fixture::new();
        let field = if first == "status update" {
            "status"
        } else {
            "spec"
        };
        let obj = |n: i64| deploy(json!({field: {"replicas": n}}));
        match first {
            "apply" => f.apply(obj(1), "kubectl", false, 1).unwrap(),
            "update" => f.update(obj(1), "kubectl", 1).unwrap(),
            _ => {
                f.update(deploy(json!({})), "creator", 1).unwrap();
                f.subresource = "status";
                f.update(obj(1), "kubectl", 1).unwrap();
                f.subresource = "";
            }
        }
        let (got, causes) = conflict(f.apply(obj(2), "other", false, 2).unwrap_err());
        assert_eq!(got, message, "{first}");
        assert_eq!(
            causes,
            vec![(cause.to_string(), format!(".{field}.replicas"))],
            "{first}"
        );
    }
}

#[test]
fn apply_several_conflicts_group_by_manager() {
    let mut f = Fixture::new();
    f.apply(
        deploy(json!({"spec": {"replicas": 1, "paused": true}})),
        "b",
        false,
        1,
    )
    .unwrap();
    f.update(
        deploy(
            json!({"spec": {"replicas": 1, "paused": true}, "metadata": {"labels": {"x": "1"}}}),
        ),
        "a",
        2,
    )
    .unwrap();
    let patch = deploy(
        json!({"spec": {"replicas": 2, "paused": false}, "metadata": {"labels": {"x": "2"}}}),
    );
    let (message, causes) = conflict(f.apply(patch, "c", false, 3).unwrap_err());
    assert_eq!(
        message,
        "Apply failed with 3 conflicts: conflicts with \"a\" using apps.example.com/v1:\n- .metadata.labels.x\nconflicts with \"b\":\n- .spec.paused\n- .spec.replicas"
    );
    assert_eq!(causes.len(), 3);
}

#[test]
fn apply_force_takes_ownership() {
    let mut f = Fixture::new();
    f.apply(
        deploy(json!({"spec": {"replicas": 1, "paused": true}})),
        "a",
        false,
        1,
    )
    .unwrap();
    f.apply(replicas(5), "b", true, 2).unwrap();
    assert_eq!(f.live()["spec"]["replicas"], 5);
    assert_eq!(f.owned("a"), vec![".spec.paused"]);
    assert_eq!(f.owned("b"), vec![".spec.replicas"]);
    assert_eq!(f.summary(), vec!["a/Apply@1", "b/Apply@2"]);
}

#[test]
fn apply_dropped_fields_are_removed_unless_owned_elsewhere() {
    // (second applier of paused, expected paused afterwards)
    let cases: Vec<(Option<&str>, Value)> = vec![(None, Value::Null), (Some("other"), json!(true))];
    for (co_owner, want) in cases {
        let mut f = Fixture::new();
        let both = deploy(json!({"spec": {"replicas": 1, "paused": true}}));
        f.apply(both.clone(), "a", false, 1).unwrap();
        if let Some(m) = co_owner {
            f.apply(deploy(json!({"spec": {"paused": true}})), m, false, 2)
                .unwrap();
        }
        f.apply(replicas(1), "a", false, 3).unwrap();
        assert_eq!(
            f.live()["spec"]
                .get("paused")
                .cloned()
                .unwrap_or(Value::Null),
            want,
            "{co_owner:?}"
        );
        assert_eq!(f.owned("a"), vec![".spec.replicas"]);
    }
}

#[test]
fn apply_noop_keeps_time_and_object() {
    let mut f = Fixture::new();
    f.apply(replicas(1), "a", false, 1).unwrap();
    let before = f.live().clone();
    f.apply(replicas(1), "a", false, 7).unwrap();
    assert_eq!(f.summary(), vec!["a/Apply@1"]);
    assert_eq!(f.live(), &before);
}

#[test]
fn apply_to_object_without_managed_fields_records_before_first_apply() {
    // skipnonapplied_test TestUpdateBeforeFirstApply.
    let mut f = Fixture::new();
    f.live = Some(deploy(
        json!({"metadata": {"uid": "u", "labels": {"app": "my-nginx"}}}),
    ));
    let patch = deploy(json!({"metadata": {"labels": {"app": "nginx"}}}));
    let (message, causes) = conflict(f.apply(patch.clone(), "fm_apply", false, 1).unwrap_err());
    assert_eq!(
        message,
        r#"Apply failed with 1 conflict: conflict with "before-first-apply" using apps.example.com/v1: .metadata.labels.app"#
    );
    assert_eq!(causes[0].1, ".metadata.labels.app");
    f.apply(patch, "fm_apply", true, 2).unwrap();
    assert_eq!(
        f.summary(),
        vec!["fm_apply/Apply@2", "before-first-apply/Update@2"]
    );
}

#[test]
fn apply_request_checks_give_kube_errors() {
    let mut managed = replicas(1);
    managed["metadata"]["managedFields"] = json!([]);
    let mut dup = deploy(json!({"spec": {"template": {"spec": {"containers": [
        {"name": "c"}, {"name": "c"}]}}}}));
    dup["metadata"]["namespace"] = json!("ns");
    let cases: Vec<(&str, Value, u16, &str)> = vec![
        (
            "other kind",
            json!({"apiVersion": V1, "kind": "Other"}),
            400,
            "invalid object type: apps.example.com/v1, Kind=Other",
        ),
        (
            "other version",
            json!({"apiVersion": "apps.example.com/v2", "kind": "Deployment"}),
            400,
            "invalid object type: apps.example.com/v2, Kind=Deployment",
        ),
        (
            "no type meta",
            json!({"metadata": {"name": "d"}}),
            400,
            "invalid object type: /, Kind=",
        ),
        (
            "managedFields",
            managed,
            400,
            "metadata.managedFields must be nil",
        ),
        (
            "wrong type",
            deploy(json!({"spec": {"replicas": "x"}})),
            500,
            "failed to create typed patch object (/d; apps.example.com/v1, Kind=Deployment): .spec.replicas: expected numeric (int or float), got string",
        ),
        (
            "duplicate key",
            dup,
            500,
            "failed to create typed patch object (ns/d; apps.example.com/v1, Kind=Deployment): .spec.template.spec.containers: duplicate entries for key [name=\"c\"]",
        ),
    ];
    for (name, patch, code, text) in cases {
        let f = Fixture::new();
        let err = f.fm().apply(None, &patch, "m", false, t(1)).unwrap_err();
        assert_eq!(
            (err.code(), err.to_string().as_str()),
            (code, text),
            "{name}"
        );
    }
}

#[test]
fn apply_reset_fields_split_main_and_status() {
    // (subresource, reset fields, expected ownership of the applier)
    let patch = deploy(json!({"spec": {"replicas": 1}, "status": {"phase": "Up"}}));
    let cases = vec![
        (
            "",
            main_reset_fields(V1, true),
            vec![".spec.replicas"],
            "a/Apply@1",
        ),
        (
            "status",
            status_reset_fields([V1]),
            vec![".status.phase"],
            "a/Apply/status@1",
        ),
        (
            "",
            main_reset_fields(V1, false),
            vec![".spec.replicas", ".status.phase"],
            "a/Apply@1",
        ),
    ];
    for (sub, reset, want, summary) in cases {
        let mut f = Fixture::new();
        f.subresource = sub;
        f.reset = reset;
        f.apply(patch.clone(), "a", false, 1).unwrap();
        assert_eq!(f.owned("a"), want, "{sub:?}");
        assert_eq!(f.summary(), vec![summary], "{sub:?}");
    }
}

#[test]
fn apply_entries_sort_apply_before_update() {
    let mut f = Fixture::new();
    f.update(deploy(json!({"spec": {"paused": true}})), "u", 1)
        .unwrap();
    f.apply(replicas(1), "z", false, 2).unwrap();
    f.apply(
        deploy(json!({"metadata": {"labels": {"a": "b"}}})),
        "y",
        false,
        3,
    )
    .unwrap();
    assert_eq!(f.summary(), vec!["z/Apply@2", "y/Apply@3", "u/Update@1"]);
}
