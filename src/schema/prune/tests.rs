//! Table tests of `prune`.
use super::*;
use serde_json::json;

fn crontab() -> Value {
    json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "cronSpec": {"type": "string"}, "image": {"type": "string"},
        "replicas": {"type": "integer"}}}}})
}

#[test]
fn prune_table() {
    let preserve_with_spec = json!({"type": "object", "properties": {"json": {
        "x-kubernetes-preserve-unknown-fields": true, "type": "object",
        "properties": {"spec": {"type": "object", "properties": {
            "foo": {"type": "string"}, "bar": {"type": "string"}}}}}}});
    let embedded_typed = json!({"type": "object", "properties": {"foo": {
        "type": "object", "x-kubernetes-embedded-resource": true,
        "properties": {"spec": {"type": "object"}}}}});
    let cases = [
        (
            "prune_unknown_spec_field_dropped",
            crontab(),
            json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
                "metadata": {"name": "my-new-cron-object"},
                "spec": {"cronSpec": "* * * * */5", "image": "my-awesome-cron-image",
                    "someRandomField": 42}}),
            json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
                "metadata": {"name": "my-new-cron-object"},
                "spec": {"cronSpec": "* * * * */5", "image": "my-awesome-cron-image"}}),
            vec!["spec.someRandomField"],
        ),
        (
            "prune_preserve_unknown_fields_keeps_any_json",
            json!({"type": "object", "properties": {"json": {
                "x-kubernetes-preserve-unknown-fields": true}}}),
            json!({"json": {"a": [1, {"b": null}], "c": "x"}}),
            json!({"json": {"a": [1, {"b": null}], "c": "x"}}),
            vec![],
        ),
        (
            "prune_preserve_typed_object_keeps_fields",
            json!({"type": "object", "properties": {"json": {
                "x-kubernetes-preserve-unknown-fields": true, "type": "object",
                "description": "this is arbitrary JSON"}}}),
            json!({"json": {"a": {"b": 1}}}),
            json!({"json": {"a": {"b": 1}}}),
            vec![],
        ),
        (
            "prune_preserve_with_properties_prunes_specified_subtree",
            preserve_with_spec,
            json!({"json": {"spec": {"foo": "abc", "bar": "def", "something": "x"},
                "status": {"something": "x"}}}),
            json!({"json": {"spec": {"foo": "abc", "bar": "def"},
                "status": {"something": "x"}}}),
            vec!["json.spec.something"],
        ),
        (
            "prune_int_or_string_values_kept",
            json!({"type": "object", "properties": {
                "foo": {"x-kubernetes-int-or-string": true},
                "bar": {"x-kubernetes-int-or-string": true}}}),
            json!({"foo": 1, "bar": "50%", "baz": 2}),
            json!({"foo": 1, "bar": "50%"}),
            vec!["baz"],
        ),
        (
            "prune_embedded_resource_preserving_keeps_everything",
            json!({"type": "object", "properties": {"foo": {
                "x-kubernetes-embedded-resource": true,
                "x-kubernetes-preserve-unknown-fields": true}}}),
            json!({"foo": {"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": "p"}, "spec": {"containers": [{"name": "c"}]}}}),
            json!({"foo": {"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": "p"}, "spec": {"containers": [{"name": "c"}]}}}),
            vec![],
        ),
        (
            "prune_embedded_resource_keeps_type_meta_and_reduces_metadata",
            embedded_typed,
            json!({"foo": {"apiVersion": "v1", "kind": "Pod", "other": 1,
                "metadata": {"name": "p", "bogus": 1, "labels": {}}, "spec": {"a": 1}}}),
            json!({"foo": {"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": "p"}, "spec": {}}}),
            vec!["foo.other", "foo.spec.a", "foo.metadata.bogus"],
        ),
        (
            "prune_root_metadata_unknown_fields_reported_first",
            crontab(),
            json!({"metadata": {"name": "a", "zeta": 1, "labels": {}, "finalizers": [],
                    "ownerReferences": [{"apiVersion": "v1", "kind": "K", "name": "n",
                        "uid": "u", "x": 1, "controller": null}],
                    "creationTimestamp": "2024-01-01T10:00:00.5+02:00"},
                "spec": {"zzz": 1, "aaa": 2, "image": "i"}}),
            json!({"metadata": {"name": "a", "creationTimestamp": "2024-01-01T08:00:00Z",
                    "ownerReferences": [{"apiVersion": "v1", "kind": "K", "name": "n",
                        "uid": "u"}]},
                "spec": {"image": "i"}}),
            vec![
                "metadata.ownerReferences[0].x",
                "metadata.zeta",
                "spec.aaa",
                "spec.zzz",
            ],
        ),
        (
            "prune_root_metadata_null_becomes_empty",
            crontab(),
            json!({"metadata": null, "spec": {}}),
            json!({"metadata": {}, "spec": {}}),
            vec![],
        ),
        (
            "prune_additional_properties_values_pruned_by_their_schema",
            json!({"type": "object", "properties": {"map": {"type": "object",
                "additionalProperties": {"type": "object",
                    "properties": {"a": {"type": "string"}}}}}}),
            json!({"map": {"k1": {"a": "x", "b": 1}, "k2": {}}}),
            json!({"map": {"k1": {"a": "x"}, "k2": {}}}),
            vec!["map.k1.b"],
        ),
        (
            "prune_array_items_reported_with_index",
            json!({"type": "object", "properties": {"items": {"type": "array",
                "items": {"type": "object", "properties": {"a": {"type": "string"}}}}}}),
            json!({"items": [{"a": "x"}, {"a": "y", "b": {"c": 1}}]}),
            json!({"items": [{"a": "x"}, {"a": "y"}]}),
            vec!["items[1].b"],
        ),
        (
            "prune_root_preserving_prunes_only_specified",
            json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true,
                "properties": {"spec": {"type": "object",
                    "properties": {"a": {"type": "string"}}}}}),
            json!({"x": 1, "spec": {"a": "1", "b": 2}}),
            json!({"x": 1, "spec": {"a": "1"}}),
            vec!["spec.b"],
        ),
        (
            "prune_embedded_metadata_in_map_reported_with_brackets",
            json!({"type": "object", "properties": {"templates": {"type": "object",
                "additionalProperties": {"type": "object",
                    "x-kubernetes-embedded-resource": true,
                    "x-kubernetes-preserve-unknown-fields": true}}}}),
            json!({"templates": {"k": {"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": "p", "foo": 1, "creationTimestamp": null}}}}),
            json!({"templates": {"k": {"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": "p"}}}}),
            vec!["templates[k].metadata.foo"],
        ),
        (
            "prune_non_nullable_nulls_removed",
            json!({"type": "object", "properties": {"a": {"type": "string"},
                "b": {"type": "string", "nullable": true},
                "c": {"type": "string", "default": "x"}}}),
            json!({"a": null, "b": null, "c": null}),
            json!({"b": null, "c": null}),
            vec![],
        ),
    ];
    for (name, schema, mut object, want, paths) in cases {
        let got = prune(&mut object, &Schema::parse(&schema));
        assert_eq!(object, want, "{name}");
        assert_eq!(got, paths, "{name}");
    }
}

/// `spec.m` maps keys to objects with no known field; `key` holds `n` unknown fields.
fn long_key_case(key: &str, n: usize) -> (Schema, Value) {
    let schema = Schema::parse(&json!({"type": "object", "properties": {"spec": {
        "type": "object", "properties": {"m": {"type": "object",
            "additionalProperties": {"type": "object", "properties": {}}}}}}}));
    let fields: Map<String, Value> = (0..n).map(|i| (format!("f{i}"), json!(1))).collect();
    (schema, json!({"spec": {"m": {key: fields}}}))
}

#[test]
fn prune_paths_under_long_key_recorded_within_budget() {
    let key = "k".repeat(1_500_000);
    let (schema, mut object) = long_key_case(&key, 50_000);
    let paths = prune(&mut object, &schema);
    assert_eq!(paths, vec![format!("spec.m.{key}.f0")]);
    assert_eq!(object, json!({"spec": {"m": {key: {}}}}));
}

#[test]
fn prune_paths_of_normal_objects_all_recorded() {
    let (schema, mut object) = long_key_case("k", 50_000);
    let paths = prune(&mut object, &schema);
    assert_eq!(paths.len(), 50_000);
    assert_eq!(paths[0], "spec.m.k.f0");
}

#[test]
fn prune_silently_prunes_without_paths() {
    let key = "k".repeat(1_500_000);
    let (schema, mut object) = long_key_case(&key, 50_000);
    let mut with_meta = object.clone();
    with_meta["metadata"] = json!({"name": "a", "foo": 1});
    prune_silently(&mut object, &schema);
    assert_eq!(object, json!({"spec": {"m": {key.clone(): {}}}}));
    prune_silently(&mut with_meta, &schema);
    assert_eq!(
        with_meta,
        json!({"metadata": {"name": "a"}, "spec": {"m": {key: {}}}})
    );
}
