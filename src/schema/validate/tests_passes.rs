//! The passes after schema validation: list-type uniqueness and embedded resources.

use serde_json::{Value, json};

use super::tests::{messages, spec_x};
use super::*;

fn list_errors(prop: Value, value: Value) -> Vec<String> {
    messages(&validate(&spec_x(prop), &json!({"spec": {"x": value}})))
}

fn set_of(items: Value) -> Value {
    json!({"type": "array", "x-kubernetes-list-type": "set", "items": items})
}

/// (case, schema of spec.x, value, expected `field: detail` lines), JSON as text.
type Case = (
    &'static str,
    &'static str,
    &'static str,
    &'static [&'static str],
);

fn run(cases: &[Case]) {
    for (name, prop, value, want) in cases {
        let parse = |text: &str| -> Value { serde_json::from_str(text).expect(name) };
        assert_eq!(
            list_errors(parse(prop), parse(value)),
            want.to_vec(),
            "{name}"
        );
    }
}

const LIST_TYPE_CASES: &[Case] = &[
    (
        "set scalars",
        r#"{"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}}"#,
        r#"["a", "b", "a", "a", "b"]"#,
        &[
            r#"spec.x[2]: Duplicate value: "a""#,
            r#"spec.x[4]: Duplicate value: "b""#,
        ],
    ),
    (
        "set int and float differ",
        r#"{"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "number"}}"#,
        r#"[1, 1.0]"#,
        &[],
    ),
    (
        "set compound by json",
        r#"{"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}"#,
        r#"[{"a": 1}, {"a": 1.0}]"#,
        &[r#"spec.x[1]: Duplicate value: {"a":1}"#],
    ),
    (
        "map single key",
        r#"{"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"], "items": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}"#,
        r#"[{"name": "a", "port": 1}, {"name": "a", "port": 2}]"#,
        &[r#"spec.x[1]: Duplicate value: {"name":"a"}"#],
    ),
    (
        "map missing key",
        r#"{"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"], "items": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}"#,
        r#"[{"port": 1}, {"port": 2}]"#,
        &["spec.x[1]: Duplicate value: {}"],
    ),
    (
        "map multiple keys",
        r#"{"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name", "protocol"], "items": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}"#,
        r#"[{"name": "a", "protocol": "TCP"}, {"name": "a", "protocol": "UDP"}, {"name": "a", "protocol": "TCP"}]"#,
        &[r#"spec.x[2]: Duplicate value: {"name":"a","protocol":"TCP"}"#],
    ),
    (
        "map item not an object",
        r#"{"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"]}"#,
        r#"[{"name": "a"}, "x", 3]"#,
        &[r#"spec.x[1]: Invalid value: "x": must be an object for an array of list-type map"#],
    ),
    (
        "atomic unchecked",
        r#"{"type": "array", "items": {"type": "string"}}"#,
        r#"["a", "a"]"#,
        &[],
    ),
    (
        "nested under additionalProperties",
        r#"{"type": "object", "additionalProperties": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}}}"#,
        r#"{"g1": ["a", "a"]}"#,
        &[r#"spec.x[g1][1]: Duplicate value: "a""#],
    ),
];

#[test]
fn list_type_table() {
    run(LIST_TYPE_CASES);
}

#[test]
fn validate_orders_schema_then_list_type_errors() {
    let prop = set_of(json!({"type": "string", "maxLength": 1}));
    assert_eq!(
        list_errors(prop, json!(["aa", "aa"])),
        vec![
            "spec.x[0]: Too long: may not be more than 1 byte",
            "spec.x[1]: Too long: may not be more than 1 byte",
            r#"spec.x[1]: Duplicate value: "aa""#,
        ]
    );
}

#[test]
fn validate_update_list_type_errors_ratchet_on_whole_object() {
    let schema = spec_x(set_of(json!({"type": "string"})));
    let dup = json!({"spec": {"x": ["a", "a"]}});
    let clean = json!({"spec": {"x": ["a", "b"]}});
    let worse = json!({"spec": {"x": ["a", "a", "b", "b"]}});
    assert_eq!(validate_update(&schema, &worse, &dup), vec![]);
    assert_eq!(
        messages(&validate_update(&schema, &dup, &clean)),
        vec![r#"spec.x[1]: Duplicate value: "a""#]
    );
}

fn embedded(value: Value) -> Vec<String> {
    let prop = json!({
        "type": "object",
        "x-kubernetes-embedded-resource": true,
        "x-kubernetes-preserve-unknown-fields": true
    });
    list_errors(prop, value)
}

/// (case, embedded object at spec.x, expected `field: detail` lines), JSON as text.
type EmbeddedCase = (&'static str, &'static str, &'static [&'static str]);

const EMBEDDED_CASES: &[EmbeddedCase] = &[
    ("valid", r#"{"apiVersion": "v1", "kind": "Pod"}"#, &[]),
    (
        "missing type meta",
        r#"{}"#,
        &[
            "spec.x.apiVersion: Required value",
            "spec.x.kind: Required value",
        ],
    ),
    (
        "apiVersion not a string",
        r#"{"apiVersion": 1, "kind": "Pod"}"#,
        &["spec.x.apiVersion: Invalid value: 1: must be a string"],
    ),
    (
        "apiVersion empty",
        r#"{"apiVersion": "", "kind": "Pod"}"#,
        &[r#"spec.x.apiVersion: Invalid value: "": must not be empty"#],
    ),
    (
        "apiVersion slashes",
        r#"{"apiVersion": "a/b/c", "kind": "Pod"}"#,
        &[r#"spec.x.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c"#],
    ),
    (
        "kind empty",
        r#"{"apiVersion": "v1", "kind": ""}"#,
        &[r#"spec.x.kind: Invalid value: "": must not be empty"#],
    ),
    (
        "kind invalid",
        r#"{"apiVersion": "v1", "kind": "My_Kind"}"#,
        &[
            r#"spec.x.kind: Invalid value: "My_Kind": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"#,
        ],
    ),
    (
        "metadata without name",
        r#"{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"labels": {"app": "web"}}}"#,
        &[],
    ),
    (
        "metadata name path segment",
        r#"{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "a/b"}}"#,
        &[r#"spec.x.metadata.name: Invalid value: "a/b": may not contain '/'"#],
    ),
    (
        "metadata name dots",
        r#"{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": ".."}}"#,
        &[r#"spec.x.metadata.name: Invalid value: "..": may not be '..'"#],
    ),
    (
        "metadata name uppercase allowed",
        r#"{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "Foo_Bar"}}"#,
        &[],
    ),
    (
        "metadata generateName",
        r#"{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"generateName": "a%"}}"#,
        &[r#"spec.x.metadata.generateName: Invalid value: "a%": may not contain '%'"#],
    ),
    (
        "metadata negative generation",
        r#"{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"generation": -1}}"#,
        &["spec.x.metadata.generation: Invalid value: -1: must be greater than or equal to 0"],
    ),
    (
        "metadata wrong type",
        r#"{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": 5}}"#,
        &[
            r#"spec.x.metadata: Invalid value: {"name":5}: json: cannot unmarshal number into Go struct field ObjectMeta.name of type string"#,
        ],
    ),
    (
        "metadata not an object",
        r#"{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": "x"}"#,
        &[
            r#"spec.x.metadata: Invalid value: "x": json: cannot unmarshal string into Go value of type v1.ObjectMeta"#,
        ],
    ),
    (
        "owner reference fields",
        r#"{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"ownerReferences": [{"apiVersion": "apps/"}]}}"#,
        &[
            r#"spec.x.metadata.ownerReferences[0].apiVersion: Invalid value: "apps/": must be <group>/<version> or <version>"#,
            "spec.x.metadata.ownerReferences[0].kind: Required value: must not be empty",
            "spec.x.metadata.ownerReferences[0].name: Required value: must not be empty",
            "spec.x.metadata.ownerReferences[0].uid: Required value: must not be empty",
        ],
    ),
    (
        "owner references two extra controllers",
        r#"{"apiVersion": "v1", "kind": "Pod", "metadata": {"ownerReferences": [{"apiVersion": "v1", "kind": "A", "name": "a", "uid": "1", "controller": true}, {"apiVersion": "v1", "kind": "B", "name": "b", "uid": "2", "controller": true}, {"apiVersion": "v1", "kind": "C", "name": "c", "uid": "3", "controller": true}]}}"#,
        &[
            r#"spec.x.metadata.ownerReferences: Invalid value: [{"apiVersion":"v1","kind":"A","name":"a","uid":"1","controller":true},{"apiVersion":"v1","kind":"B","name":"b","uid":"2","controller":true},{"apiVersion":"v1","kind":"C","name":"c","uid":"3","controller":true}]: Only one reference can have Controller set to true. Found "true" in references for A/a and B/b"#,
            r#"spec.x.metadata.ownerReferences: Invalid value: [{"apiVersion":"v1","kind":"A","name":"a","uid":"1","controller":true},{"apiVersion":"v1","kind":"B","name":"b","uid":"2","controller":true},{"apiVersion":"v1","kind":"C","name":"c","uid":"3","controller":true}]: Only one reference can have Controller set to true. Found "true" in references for A/a and C/c"#,
        ],
    ),
    (
        "finalizers conflict",
        r#"{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"finalizers": ["orphan", "foregroundDeletion"]}}"#,
        &[
            r#"spec.x.metadata.finalizers: Invalid value: ["orphan","foregroundDeletion"]: finalizer orphan and foregroundDeletion cannot be both set"#,
        ],
    ),
];

#[test]
fn embedded_resource_table() {
    for (name, value, want) in EMBEDDED_CASES {
        let value: Value = serde_json::from_str(value).expect(name);
        assert_eq!(embedded(value), want.to_vec(), "{name}");
    }
}

#[test]
fn embedded_metadata_namespace_and_labels_use_kube_rules() {
    let value = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"namespace": "Bad", "labels": {"a": "b c"}}});
    let got = embedded(value);
    assert_eq!(got.len(), 2, "{got:?}");
    assert!(got[0].starts_with(
        r#"spec.x.metadata.namespace: Invalid value: "Bad": a lowercase RFC 1123 label"#
    ));
    assert!(
        got[1]
            .starts_with(r#"spec.x.metadata.labels: Invalid value: "b c": a valid label must be"#)
    );
}

#[test]
fn embedded_resources_found_in_items_and_maps() {
    let item = json!({"type": "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true});
    let cases = [
        (
            "items",
            json!({"type": "array", "items": item}),
            json!([{"apiVersion": "v1"}]),
            vec!["spec.x[0].kind: Required value"],
        ),
        (
            "additionalProperties",
            json!({"type": "object", "additionalProperties": item}),
            json!({"k": {"kind": "Pod"}}),
            vec!["spec.x[k].apiVersion: Required value"],
        ),
    ];
    for (name, prop, value, want) in cases {
        assert_eq!(list_errors(prop, value), want, "{name}");
    }
}
