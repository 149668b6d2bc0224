//! Updates: the recorded entry and its encoding, stripped metadata, the reset rule,
//! same-manager merging, the time rule, the cap and untracked objects.

use serde_json::{Value, json};

use super::{Fixture, V1, deploy, t};

fn labels(keys: &[&str]) -> Value {
    let map: serde_json::Map<String, Value> = keys
        .iter()
        .map(|k| (k.to_string(), json!("true")))
        .collect();
    deploy(json!({"metadata": {"labels": map}}))
}

#[test]
fn update_create_records_kube_entry() {
    let mut f = Fixture::new();
    f.update(
        deploy(json!({"metadata": {"labels": {"app": "a"}}, "spec": {"replicas": 1}})),
        "m",
        5,
    )
    .unwrap();
    assert_eq!(
        f.managed_fields(),
        json!([{
            "manager": "m", "operation": "Update", "apiVersion": V1,
            "time": "2023-11-14T22:13:25Z", "fieldsType": "FieldsV1",
            "fieldsV1": {"f:metadata": {"f:labels": {".": {}, "f:app": {}}},
                         "f:spec": {".": {}, "f:replicas": {}}}}])
    );
}

#[test]
fn update_server_owned_metadata_is_stripped() {
    // stripMeta: apiVersion, kind, metadata and its server-owned fields are nobody's.
    let mut f = Fixture::new();
    let obj = deploy(
        json!({"metadata": {"namespace": "ns", "uid": "u", "generation": 2,
        "resourceVersion": "7", "creationTimestamp": "2020-01-01T00:00:00Z", "selfLink": "/x"}}),
    );
    f.update(obj, "m", 1).unwrap();
    assert_eq!(f.managed_fields(), Value::Null);
}

#[test]
fn update_request_managed_fields_reset_rules() {
    // (request managedFields, expected managers afterwards); the live object was
    // written by "first" and "second".
    let theirs = json!([{"manager": "client", "operation": "Update", "apiVersion": V1,
        "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:paused": {}}}}]);
    let cases: Vec<(&str, Value, Vec<&str>)> = vec![
        (
            "absent keeps live's",
            Value::Null,
            vec!["first/Update@1", "second/Update@2"],
        ),
        ("[{}] clears", json!([{}]), vec![]),
        ("[] clears", json!([]), vec![]),
        (
            "invalid operation falls back to live's",
            json!([{"manager": "x", "operation": "Bogus",
            "apiVersion": V1, "fieldsType": "FieldsV1", "fieldsV1": {}}]),
            vec!["first/Update@1", "second/Update@2"],
        ),
        (
            "missing fieldsType falls back to live's",
            json!([{"manager": "x", "operation": "Update",
            "apiVersion": V1}]),
            vec!["first/Update@1", "second/Update@2"],
        ),
        ("valid ones replace live's", theirs, vec!["client/Update@-"]),
    ];
    for (name, mf, want) in cases {
        let mut f = Fixture::new();
        f.update(deploy(json!({"spec": {"replicas": 1}})), "first", 1)
            .unwrap();
        f.update(
            deploy(json!({"spec": {"replicas": 1, "paused": true}})),
            "second",
            2,
        )
        .unwrap();
        let mut obj = f.live().clone();
        obj["metadata"]["uid"] = json!("u1");
        f.live = Some(obj.clone());
        if !mf.is_null() {
            obj["metadata"]["managedFields"] = mf;
        }
        f.update(obj, "third", 3).unwrap();
        assert_eq!(f.summary(), want, "{name}");
    }
}

#[test]
fn update_same_manager_entries_merge() {
    let mut f = Fixture::new();
    f.update(labels(&["one"]), "m", 1).unwrap();
    f.update(labels(&["one", "two"]), "m", 2).unwrap();
    assert_eq!(f.summary(), vec!["m/Update@2"]);
    assert_eq!(
        f.owned("m"),
        vec![".metadata.labels.one", ".metadata.labels.two"]
    );
}

#[test]
fn update_time_changes_only_with_managers_fields() {
    // managedfieldsupdater_test: (second write's manager, object, expected summary).
    let cases: Vec<(&str, &str, Value, Vec<&str>)> = vec![
        (
            "changed fields move the time",
            "m",
            labels(&["one", "two"]),
            vec!["m/Update@9"],
        ),
        (
            "no change keeps the time",
            "m",
            labels(&["one"]),
            vec!["m/Update@1"],
        ),
        (
            "another manager changing nothing is not recorded",
            "other",
            labels(&["one"]),
            vec!["m/Update@1"],
        ),
        (
            "taking over keeps the previous manager's time",
            "other",
            deploy(json!({"metadata": {"labels": {"one": "x", "two": "y"}}})),
            vec!["m/Update@1", "other/Update@9"],
        ),
        (
            "adding a field leaves the other manager's time",
            "other",
            labels(&["one", "two"]),
            vec!["m/Update@1", "other/Update@9"],
        ),
    ];
    for (name, manager, obj, want) in cases {
        let mut f = Fixture::new();
        f.update(labels(&["one"]), "m", 1).unwrap();
        f.update(obj, manager, 9).unwrap();
        assert_eq!(f.summary(), want, "{name}");
    }
}

#[test]
fn update_past_ten_updaters_merges_oldest_into_ancient_changes() {
    let mut f = Fixture::new();
    let names: Vec<String> = (1..=11).map(|i| format!("k{i:02}")).collect();
    for (i, _) in names.iter().enumerate() {
        let keys: Vec<&str> = names[..=i].iter().map(String::as_str).collect();
        f.update(labels(&keys), &format!("u{:02}", i + 1), i as i64 + 1)
            .unwrap();
    }
    let summary = f.summary();
    assert_eq!(summary.len(), 10);
    assert_eq!(summary[0], "ancient-changes/Update@2");
    assert_eq!(summary[1], "u03/Update@3");
    assert_eq!(
        f.owned("ancient-changes"),
        vec![".metadata.labels.k01", ".metadata.labels.k02"]
    );
}

#[test]
fn update_existing_object_without_managed_fields_stays_untracked() {
    // skipNonApplied: objects created before field management are not tracked by updates.
    let mut f = Fixture::new();
    f.live = Some(deploy(
        json!({"metadata": {"uid": "u1"}, "spec": {"replicas": 1}}),
    ));
    f.update(
        deploy(json!({"metadata": {"uid": "u1"}, "spec": {"replicas": 2}})),
        "m",
        1,
    )
    .unwrap();
    assert_eq!(f.managed_fields(), Value::Null);
}

#[test]
fn update_status_subresource_records_subresource_and_ignores_request() {
    let mut f = Fixture::new();
    f.update(deploy(json!({"spec": {"replicas": 1}})), "m", 1)
        .unwrap();
    f.subresource = "status";
    let mut obj = f.live().clone();
    obj["status"] = json!({"phase": "Running"});
    obj["metadata"]["managedFields"] = json!([{}]);
    f.update(obj, "ctrl", 2).unwrap();
    assert_eq!(f.summary(), vec!["m/Update@1", "ctrl/Update/status@2"]);
    assert_eq!(f.owned("ctrl"), vec![".status.phase"]);
}

#[test]
fn update_invalid_object_errors_and_drops_managed_fields() {
    let mut f = Fixture::new();
    f.update(deploy(json!({"spec": {"replicas": 1}})), "m", 1)
        .unwrap();
    let mut obj = deploy(json!({"spec": {"replicas": "three"}}));
    obj["metadata"]["managedFields"] = f.managed_fields();
    let err = f
        .fm()
        .update(f.live.as_ref(), &mut obj, "m", t(2))
        .unwrap_err();
    assert_eq!(err.code(), 500);
    assert!(
        err.to_string().starts_with(
            "failed to convert new object (/d; apps.example.com/v1, Kind=Deployment) to smd typed: .spec.replicas: expected numeric"
        ),
        "{err}"
    );
    assert_eq!(obj["metadata"].get("managedFields"), None);
}
