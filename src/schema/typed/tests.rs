//! How a CRD schema types a custom resource for field management (ObjectMeta at the
//! root and in embedded resources, preserve-unknown subtrees, int-or-string, formats,
//! list-map key defaults) and the validation texts kube shows for apply bodies.

use serde_json::{Value, json};

use super::resource_type;
use crate::fieldmanager::typed::tests::parse_path;
use crate::fieldmanager::typed::{TypeRef, merge, to_field_set, validate};
use crate::schema::Schema;

fn crd() -> TypeRef {
    resource_type(&Schema::parse(&json!({
        "type": "object",
        "properties": {
            "spec": {
                "type": "object",
                "properties": {
                    "replicas": {"type": "integer"},
                    "name": {"type": "string"},
                    "when": {"type": "string", "format": "date-time"},
                    "port": {"x-kubernetes-int-or-string": true},
                    "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": true,
                              "properties": {"known": {"type": "string"}}},
                    "template": {"type": "object", "x-kubernetes-embedded-resource": true,
                                 "x-kubernetes-preserve-unknown-fields": true},
                    "ports": {"type": "array", "x-kubernetes-list-type": "map",
                              "x-kubernetes-list-map-keys": ["containerPort", "protocol"],
                              "items": {"type": "object", "properties": {
                                  "containerPort": {"type": "integer"},
                                  "protocol": {"type": "string", "default": "TCP"},
                                  "name": {"type": "string"}}}},
                    "selector": {"type": "object", "x-kubernetes-map-type": "atomic",
                                 "additionalProperties": {"type": "string"}},
                    "args": {"type": "array", "items": {"type": "string"}}
                }
            }
        }
    })))
}

#[test]
fn to_field_set_custom_resource_gives_kube_paths() {
    let ty = crd();
    let cases: Vec<(&str, Value, Vec<&str>)> = vec![
        (
            "type meta and labels",
            json!({"apiVersion": "x/v1", "kind": "K", "metadata": {"name": "n", "labels": {"app": "a"}}}),
            vec![
                ".apiVersion",
                ".kind",
                ".metadata.labels.app",
                ".metadata.name",
            ],
        ),
        (
            "owner references are atomic items, finalizers a set",
            json!({"metadata": {"ownerReferences": [{"uid": "u1", "name": "o"}], "finalizers": ["f"]}}),
            vec![
                ".metadata.finalizers[=\"f\"]",
                ".metadata.ownerReferences[uid=\"u1\"]",
            ],
        ),
        (
            "preserve-unknown subtree owns unknown fields and their maps",
            json!({"spec": {"extra": {"known": "k", "b": {"c": 1}}}}),
            vec![".spec.extra.b", ".spec.extra.b.c", ".spec.extra.known"],
        ),
        (
            "int-or-string and formatted strings are leaves",
            json!({"spec": {"port": "http", "when": "2024-01-01T00:00:00Z"}}),
            vec![".spec.port", ".spec.when"],
        ),
        (
            "embedded resource gets ObjectMeta",
            json!({"spec": {"template": {"apiVersion": "v1", "kind": "Pod",
                   "metadata": {"labels": {"a": "b"}}, "spec": {"x": 1}}}}),
            vec![
                ".spec.template.apiVersion",
                ".spec.template.kind",
                ".spec.template.metadata.labels.a",
                ".spec.template.spec",
                ".spec.template.spec.x",
            ],
        ),
        (
            "list-map key defaults name items",
            json!({"spec": {"ports": [{"containerPort": 80, "name": "web"}]}}),
            vec![
                ".spec.ports[containerPort=80,protocol=\"TCP\"]",
                ".spec.ports[containerPort=80,protocol=\"TCP\"].containerPort",
                ".spec.ports[containerPort=80,protocol=\"TCP\"].name",
            ],
        ),
        (
            "atomic map and default-atomic list are one leaf",
            json!({"spec": {"selector": {"a": "b"}, "args": ["x", "y"]}}),
            vec![".spec.args", ".spec.selector"],
        ),
        (
            "empty object and null are owned themselves",
            json!({"spec": {"extra": {}, "name": null}}),
            vec![".spec.extra", ".spec.name"],
        ),
    ];
    for (name, object, want) in cases {
        validate(&ty, &object, false).unwrap();
        let set = to_field_set(&ty, &object).unwrap();
        let mut got: Vec<String> = set.paths().iter().map(|p| p.to_string()).collect();
        got.sort();
        assert_eq!(got, want, "{name}");
        for p in &want {
            assert!(set.has(&parse_path(p)), "{name}: {p}");
        }
    }
}

#[test]
fn validate_custom_resource_reports_upstream_texts() {
    let ty = crd();
    let cases = [
        (
            json!({"spec": {"unknown": 1}}),
            ".spec.unknown: field not declared in schema",
        ),
        (
            json!({"spec": {"replicas": "three"}}),
            ".spec.replicas: expected numeric (int or float), got string",
        ),
        (
            json!({"spec": {"name": 5}}),
            ".spec.name: expected string, got &value.valueUnstructured{Value:5}",
        ),
        (
            json!({"spec": {"ports": [{"containerPort": 80}, {"containerPort": 80}]}}),
            ".spec.ports: duplicate entries for key [containerPort=80,protocol=\"TCP\"]",
        ),
        (
            json!({"metadata": {"finalizers": ["a", "a"]}}),
            ".metadata.finalizers: duplicate entries for key [=\"a\"]",
        ),
        (
            json!({"spec": {"ports": ["x"]}}),
            ".spec.ports: element 0: associative list with keys may not have non-map elements",
        ),
        (
            json!({"spec": {"args": "x"}}),
            ".spec.args: expected list, got &{x}",
        ),
        (
            json!({"spec": {"replicas": "a", "name": 1}}),
            "errors:\n  .spec.name: expected string, got &value.valueUnstructured{Value:1}\n  .spec.replicas: expected numeric (int or float), got string",
        ),
    ];
    for (object, want) in cases {
        let got = validate(&ty, &object, false).map_err(|e| e.to_string());
        assert_eq!(got, Err(want.to_string()), "{object}");
    }
    // A formatted string admits any scalar, as upstream's untyped scalar.
    assert!(validate(&ty, &json!({"spec": {"when": 5}}), false).is_ok());
}

#[test]
fn merge_custom_resource_follows_list_and_map_types() {
    let ty = crd();
    let cases = [
        (
            "granular labels merge, atomic selector replaced",
            json!({"metadata": {"labels": {"a": "1"}}, "spec": {"selector": {"x": "1"}}}),
            json!({"metadata": {"labels": {"b": "2"}}, "spec": {"selector": {"y": "2"}}}),
            json!({"metadata": {"labels": {"a": "1", "b": "2"}}, "spec": {"selector": {"y": "2"}}}),
        ),
        (
            "list-map items merge by key, atomic list replaced",
            json!({"spec": {"ports": [{"containerPort": 80, "name": "a"}, {"containerPort": 81}],
                            "args": ["a", "b"]}}),
            json!({"spec": {"ports": [{"containerPort": 81, "name": "b"}], "args": ["c"]}}),
            json!({"spec": {"ports": [{"containerPort": 80, "name": "a"},
                                      {"containerPort": 81, "name": "b"}], "args": ["c"]}}),
        ),
        (
            "set union keeps live order",
            json!({"metadata": {"finalizers": ["b", "a"]}}),
            json!({"metadata": {"finalizers": ["c", "a"]}}),
            json!({"metadata": {"finalizers": ["b", "c", "a"]}}),
        ),
    ];
    for (name, live, applied, want) in cases {
        assert_eq!(merge(&ty, &live, &applied).unwrap(), want, "{name}");
    }
}
