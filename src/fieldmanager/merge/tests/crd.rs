//! The updater on a custom resource's type: conflict texts, force, and pruning of what a
//! manager stops applying, as the apiserver drives it.

use serde_json::{Value, json};

use super::super::*;
use super::SameType;
use crate::fieldmanager::fieldpath::ManagedFields;
use crate::schema::Schema;
use crate::schema::typed::resource_type;

fn converter() -> SameType {
    let ty = resource_type(&Schema::parse(&json!({"type": "object", "properties": {
        "spec": {"type": "object", "properties": {
            "replicas": {"type": "integer"}, "name": {"type": "string"}}}}})));
    SameType {
        ty,
        served: Default::default(),
    }
}

fn owned(m: &ManagedFields, manager: &str) -> Vec<String> {
    m.get(manager)
        .map(|v| v.set.paths().iter().map(|p| p.to_string()).collect())
        .unwrap_or_default()
}

#[test]
fn apply_other_managers_value_conflicts_until_forced() {
    let c = converter();
    let u = Updater::new(&c);
    let a = json!({"metadata": {"name": "n"}, "spec": {"replicas": 1}});
    let (live, m) = u
        .apply(
            &Value::Null,
            &a,
            "v1",
            ManagedFields::new(),
            "kubectl",
            false,
        )
        .unwrap();
    let live = live.unwrap();
    let b = json!({"metadata": {"name": "n"}, "spec": {"replicas": 2}});
    let err = u
        .apply(&live, &b, "v1", m.clone(), "other", false)
        .unwrap_err();
    assert_eq!(err.to_string(), "conflict with \"kubectl\": .spec.replicas");
    let (new, m) = u.apply(&live, &b, "v1", m, "other", true).unwrap();
    assert_eq!(new.unwrap()["spec"]["replicas"], 2);
    assert_eq!(owned(&m, "kubectl"), vec![".metadata.name"]);
    assert_eq!(owned(&m, "other"), vec![".metadata.name", ".spec.replicas"]);
}

#[test]
fn apply_same_value_shares_ownership_without_conflict() {
    let c = converter();
    let u = Updater::new(&c);
    let a = json!({"spec": {"replicas": 1}});
    let (live, m) = u
        .apply(&Value::Null, &a, "v1", ManagedFields::new(), "a", false)
        .unwrap();
    let live = live.unwrap();
    let (new, m) = u.apply(&live, &a, "v1", m, "b", false).unwrap();
    assert_eq!(new, None, "a no-op apply returns no object");
    assert_eq!(owned(&m, "a"), owned(&m, "b"));
}

#[test]
fn conflicts_of_several_managers_group_by_sorted_manager() {
    let c = converter();
    let u = Updater::new(&c);
    let m = u
        .update(
            &Value::Null,
            &json!({"spec": {"replicas": 1}}),
            "v1",
            ManagedFields::new(),
            "zed",
        )
        .unwrap();
    let live = json!({"spec": {"replicas": 1, "name": "x"}});
    let m = u
        .update(&json!({"spec": {"replicas": 1}}), &live, "v1", m, "amy")
        .unwrap();
    let err = u
        .apply(
            &live,
            &json!({"spec": {"replicas": 3, "name": "y"}}),
            "v1",
            m,
            "me",
            false,
        )
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "conflicts with \"amy\":\n- .spec.name\nconflicts with \"zed\":\n- .spec.replicas"
    );
}

#[test]
fn apply_drops_fields_no_longer_applied_unless_owned_elsewhere() {
    let c = converter();
    let u = Updater::new(&c);
    let first = json!({"spec": {"replicas": 1, "name": "x"}});
    let (live, m) = u
        .apply(&Value::Null, &first, "v1", ManagedFields::new(), "a", false)
        .unwrap();
    let live = live.unwrap();
    // Another manager also owns the name: it stays when `a` stops applying it.
    let m = u
        .apply(&live, &json!({"spec": {"name": "x"}}), "v1", m, "b", false)
        .unwrap()
        .1;
    let (new, m) = u
        .apply(&live, &json!({"spec": {}}), "v1", m, "a", false)
        .unwrap();
    assert_eq!(new.unwrap(), json!({"spec": {"name": "x"}}));
    assert_eq!(owned(&m, "a"), vec![".spec"]);
}

#[test]
fn update_removing_a_field_takes_it_from_every_manager() {
    let c = converter();
    let u = Updater::new(&c);
    let first = json!({"spec": {"replicas": 1, "name": "x"}});
    let (live, m) = u
        .apply(&Value::Null, &first, "v1", ManagedFields::new(), "a", false)
        .unwrap();
    let live = live.unwrap();
    let m = u
        .update(&live, &json!({"spec": {"name": "x"}}), "v1", m, "ctl")
        .unwrap();
    assert_eq!(owned(&m, "a"), vec![".spec.name"]);
    assert!(m.get("ctl").is_none(), "removing fields owns nothing");
}
