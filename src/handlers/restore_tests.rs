//! The restore path's pure parts: where an object goes (scope, storage version, uid,
//! resourceVersion dropped), a stored key's place and uid, and the unchanged check.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::{Value, json};

use super::*;
use crate::handlers::convert::testing;

fn paint(meta: Value) -> Value {
    json!({"apiVersion": "example.org/v1", "kind": "Paint", "metadata": meta, "spec": {"color": "red"}})
}

#[test]
fn place_host_object_resource_version_dropped_rest_kept() {
    let resource = testing::resource(None);
    let mut object = paint(json!({"name": "a", "namespace": "ns", "uid": "u1",
        "resourceVersion": "77", "generation": 3, "finalizers": ["f"]}));
    let placed = place(&resource, &mut object).unwrap();
    assert_eq!(
        (
            placed.namespace.as_deref(),
            placed.name.as_str(),
            placed.uid.as_str()
        ),
        (Some("ns"), "a", "u1")
    );
    assert_eq!(
        object["metadata"],
        json!({"name": "a", "namespace": "ns", "uid": "u1", "generation": 3, "finalizers": ["f"]})
    );
}

#[test]
fn place_bad_objects_bad_request() {
    let resource = testing::resource(None);
    let cases = [
        ("not the storage version", {
            let mut o = paint(json!({"name": "a", "namespace": "ns", "uid": "u"}));
            o["apiVersion"] = json!("example.org/v2");
            o
        }),
        ("another kind", {
            let mut o = paint(json!({"name": "a", "namespace": "ns", "uid": "u"}));
            o["kind"] = json!("Brush");
            o
        }),
        ("no uid", paint(json!({"name": "a", "namespace": "ns"}))),
        ("no name", paint(json!({"namespace": "ns", "uid": "u"}))),
        ("no namespace", paint(json!({"name": "a", "uid": "u"}))),
        (
            "no metadata",
            json!({"apiVersion": "example.org/v1", "kind": "Paint"}),
        ),
    ];
    for (case, mut object) in cases {
        let err = place(&resource, &mut object).err().expect(case);
        assert!(matches!(err, ApiError::BadRequest(_)), "{case}: {err:?}");
    }
}

#[test]
fn place_names_not_path_segments_bad_request() {
    let resource = testing::resource(None);
    let cases = [
        (
            "..",
            "ns",
            r#"Name parameter invalid: "..": may not be '..'"#,
        ),
        (".", "ns", r#"Name parameter invalid: ".": may not be '.'"#),
        (
            "a/b",
            "ns",
            r#"Name parameter invalid: "a/b": may not contain '/'"#,
        ),
        (
            "a%b",
            "ns",
            r#"Name parameter invalid: "a%b": may not contain '%'"#,
        ),
        (
            "a",
            "..",
            r#"Namespace parameter invalid: "..": may not be '..'"#,
        ),
        (
            "a",
            "n/s%",
            r#"Namespace parameter invalid: "n/s%": may not contain '/';may not contain '%'"#,
        ),
    ];
    for (name, namespace, want) in cases {
        let mut object = paint(json!({"name": name, "namespace": namespace, "uid": "u"}));
        let message = |e: Option<ApiError>| match e {
            Some(ApiError::BadRequest(m)) => m,
            other => panic!("{name} in {namespace}: {other:?}"),
        };
        let placing = message(place(&resource, &mut object).err());
        assert_eq!(placing, want, "{name} in {namespace}");
        let deleting = message(path_segments(name, Some(namespace)).err());
        assert_eq!(deleting, want, "{name} in {namespace}: delete");
    }
}

#[test]
fn here_stored_keys_namespace_name_and_uid() {
    let kv = |key: &str, uid: &str| KeyValue {
        key: key.into(),
        value: serde_json::to_vec(&json!({"metadata": {"uid": uid}}))
            .unwrap()
            .into(),
        create_revision: 1,
        mod_revision: 1,
        memo: Default::default(),
        stale: false,
    };
    let namespaced = here("/r/g/p/", true, &kv("/r/g/p/ns/a", "u1")).unwrap();
    assert_eq!(
        namespaced,
        Here {
            namespace: Some("ns".into()),
            name: "a".into(),
            uid: "u1".into()
        }
    );
    let cluster = here("/r/g/p/", false, &kv("/r/g/p/b", "u2")).unwrap();
    assert_eq!(
        cluster,
        Here {
            namespace: None,
            name: "b".into(),
            uid: "u2".into()
        }
    );
}

#[test]
fn same_object_member_order_ignored_values_compared() {
    let resource = testing::resource(None);
    let object = paint(json!({"name": "a", "namespace": "ns", "uid": "u"}));
    let map = object.as_object().unwrap();
    let stored = stored_bytes(&resource, map).unwrap();
    assert!(same_object(&stored, map));
    let reordered = br#"{"spec":{"color":"red"},"metadata":{"uid":"u","namespace":"ns","name":"a"},"kind":"Paint","apiVersion":"example.org/v1"}"#;
    assert!(same_object(reordered, map));
    let changed = paint(json!({"name": "a", "namespace": "ns", "uid": "u", "labels": {"x": "y"}}));
    assert!(!same_object(&stored, changed.as_object().unwrap()));
}
