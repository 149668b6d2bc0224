//! Give-back's plan: which writes make the host's objects ours.

use serde_json::{Value, json};

use super::*;

fn obj(name: &str, uid: &str, rv: &str, spec: Value, status: Value) -> Value {
    json!({"apiVersion": "g/v1", "kind": "W",
        "metadata": {"name": name, "namespace": "ns", "uid": uid, "resourceVersion": rv,
            "generation": 1, "creationTimestamp": "2025-01-01T00:00:00Z"},
        "spec": spec, "status": status})
}

#[test]
fn same_objects_plan_nothing() {
    let ours = [obj("a", "u1", "900", json!({"x": 1}), json!({"s": 1}))];
    let mut theirs = ours.clone();
    theirs[0]["metadata"]["resourceVersion"] = json!("12");
    theirs[0]["metadata"]["generation"] = json!(4);
    assert_eq!(plan(&ours, &theirs, true), vec![]);
}

#[test]
fn same_uid_changed_updates_with_the_hosts_resource_version() {
    let ours = [obj("a", "u1", "900", json!({"x": 2}), json!({"s": 2}))];
    let theirs = [obj("a", "u1", "12", json!({"x": 1}), json!({"s": 1}))];
    let mut want = ours[0].clone();
    want["metadata"]["resourceVersion"] = json!("12");
    assert_eq!(
        plan(&ours, &theirs, true),
        vec![Op::Update {
            object: want.clone(),
            main: true,
            status: true,
            delete: false
        }]
    );
    // Without the status subresource the main write carries the status.
    assert_eq!(
        plan(&ours, &theirs, false),
        vec![Op::Update {
            object: want,
            main: true,
            status: false,
            delete: false
        }]
    );
}

#[test]
fn status_only_change_writes_status_only() {
    let ours = [obj("a", "u1", "900", json!({"x": 1}), json!({"s": 2}))];
    let theirs = [obj("a", "u1", "12", json!({"x": 1}), json!({"s": 1}))];
    let ops = plan(&ours, &theirs, true);
    assert!(
        matches!(
            &ops[..],
            [Op::Update {
                main: false,
                status: true,
                delete: false,
                ..
            }]
        ),
        "{ops:?}"
    );
}

#[test]
fn ours_only_is_created_without_server_set_metadata() {
    let ours = [obj("b", "u2", "900", json!({"x": 1}), json!({"s": 1}))];
    let ops = plan(&ours, &[], true);
    let created = json!({"apiVersion": "g/v1", "kind": "W",
        "metadata": {"name": "b", "namespace": "ns",
            "annotations": {"crd-apiserver.io/offload-origin-uid": "u2"}},
        "spec": {"x": 1}, "status": {"s": 1}});
    assert_eq!(
        ops,
        vec![Op::Create {
            object: created,
            status: true,
            delete: false
        }]
    );
}

#[test]
fn host_extras_are_deleted_first_with_their_uid() {
    let ours = [obj("b", "u2", "900", json!({}), Value::Null)];
    let theirs = [
        obj("a", "h1", "12", json!({}), Value::Null),
        obj("b", "h2", "13", json!({}), Value::Null),
    ];
    let ops = plan(&ours, &theirs, false);
    let delete = |name: &str, uid: &str| Op::Delete {
        namespace: "ns".into(),
        name: name.into(),
        uid: uid.into(),
    };
    assert_eq!(ops.len(), 3, "{ops:?}");
    assert_eq!(ops[0], delete("a", "h1"));
    assert_eq!(ops[1], delete("b", "h2"), "another uid under our key goes");
    assert!(
        matches!(&ops[2], Op::Create { object, status: false, .. } if object["metadata"]["name"] == "b")
    );
}

#[test]
fn ours_being_deleted_is_deleted_at_the_host_after_its_update() {
    let mut ours = obj("a", "u1", "900", json!({"x": 1}), Value::Null);
    ours["metadata"]["deletionTimestamp"] = json!("2025-02-02T00:00:00Z");
    ours["metadata"]["finalizers"] = json!(["f"]);
    let theirs = obj("a", "u1", "12", json!({"x": 1}), Value::Null);
    let ops = plan(&[ours], &[theirs], false);
    assert!(
        matches!(
            &ops[..],
            [Op::Update {
                main: true,
                status: false,
                delete: true,
                ..
            }]
        ),
        "{ops:?}"
    );
}

#[test]
fn an_object_created_by_an_earlier_sync_is_the_same_object() {
    let ours = obj("b", "u2", "900", json!({"x": 1}), json!({"s": 1}));
    let mut theirs = obj("b", "h9", "31", json!({"x": 1}), json!({"s": 1}));
    theirs["metadata"]["annotations"] = json!({"crd-apiserver.io/offload-origin-uid": "u2"});
    assert_eq!(
        plan(
            std::slice::from_ref(&ours),
            std::slice::from_ref(&theirs),
            true
        ),
        vec![],
        "synced again: nothing"
    );
    let mut changed = ours;
    changed["spec"]["x"] = json!(2);
    let ops = plan(&[changed], &[theirs], true);
    let [
        Op::Update {
            object,
            main: true,
            status: false,
            delete: false,
        },
    ] = &ops[..]
    else {
        panic!("{ops:?}");
    };
    assert_eq!(
        object["metadata"]["uid"], "h9",
        "the host's uid is the precondition"
    );
    assert_eq!(object["metadata"]["resourceVersion"], "31");
    assert_eq!(
        object["metadata"]["annotations"]["crd-apiserver.io/offload-origin-uid"],
        "u2"
    );
}

#[test]
fn a_host_extra_already_being_deleted_is_left_to_its_finalizers() {
    let mut extra = obj("x", "h1", "12", json!({}), Value::Null);
    extra["metadata"]["deletionTimestamp"] = json!("2025-02-02T00:00:00Z");
    assert_eq!(plan(&[], &[extra], false), vec![]);
}

#[test]
fn managed_fields_alone_do_not_make_a_write() {
    let mut ours = obj("a", "u1", "900", json!({"x": 1}), Value::Null);
    ours["metadata"]["managedFields"] = json!([{"manager": "kubectl", "operation": "Update"}]);
    let mut theirs = ours.clone();
    theirs["metadata"]["managedFields"] =
        json!([{"manager": "crd-apiserver-offload", "operation": "Update"}]);
    assert_eq!(plan(&[ours], &[theirs], false), vec![]);
}
