//! Which objects clash and which are gone.

use std::collections::HashMap;

use serde_json::json;

use super::*;

fn obj(namespace: &str, name: &str, uid: &str) -> Value {
    json!({"metadata": {"namespace": namespace, "name": name, "uid": uid}})
}

#[test]
fn clash_only_for_the_same_key_with_another_uid() {
    let ours = HashMap::from([(("ns".to_string(), "a".to_string()), "u1".to_string())]);
    assert!(
        clash(&ours, &obj("ns", "a", "u1"), "w.g").is_none(),
        "same object"
    );
    assert!(
        clash(&ours, &obj("ns", "b", "u9"), "w.g").is_none(),
        "not here"
    );
    assert!(
        clash(&ours, &obj("other", "a", "u9"), "w.g").is_none(),
        "another namespace"
    );
    let refused = clash(&ours, &obj("ns", "a", "u2"), "w.g");
    assert!(
        matches!(&refused, Some(StepError::Refused(m)) if m == "w.g \"ns/a\" is stored here with uid u1 and at the host with uid u2: it is another object, which the copy would replace"),
        "{refused:?}"
    );
}

#[test]
fn gone_keeps_the_objects_the_host_did_not_list() {
    let seen: Seen = [("ns".to_string(), "a".to_string())].into();
    let left = gone(vec![obj("ns", "a", "u1"), obj("ns", "b", "u2")], &seen);
    assert_eq!(left, vec![obj("ns", "b", "u2")]);
}
