//! Table tests of the start-up proof: the samples, the difference it reports, and the
//! annotations it accepts or refuses (with the versions and the field).

use serde_json::{Value, json};

use super::fixture::{LOSSLESS, specs, widgets, widgets_with};
use super::proof::first_difference;
use super::sample::{Shape, object};
use super::{ANNOTATION, build};
use crate::schema::Schema;

#[test]
fn sample_full_and_required_shapes() {
    let schema = Schema::parse(&json!({
        "type": "object",
        "required": ["spec"],
        "properties": {
            "metadata": {"type": "object"},
            "spec": {"type": "object", "required": ["name", "when"], "properties": {
                "name": {"type": "string"},
                "when": {"type": "string", "format": "date-time"},
                "mode": {"type": "string", "enum": ["Fast", "Slow"]},
                "count": {"type": "integer"},
                "ratio": {"type": "number"},
                "on": {"type": "boolean"},
                "port": {"x-kubernetes-int-or-string": true},
                "items": {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "integer"}}}},
                "env": {"type": "object", "additionalProperties": {"type": "string"}},
                "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
            }},
        },
    }));
    let full = object(&schema, Shape::Full, "example.com/v1", "Widget");
    assert_eq!(
        full,
        json!({
            "apiVersion": "example.com/v1", "kind": "Widget",
            "metadata": {"name": "sample", "labels": {"sample": "label"}, "annotations": {"sample": "annotation"}},
            "spec": {
                "name": "spec.name", "when": "2006-01-02T15:04:05Z", "mode": "Fast",
                "count": 1, "ratio": 3.5, "on": true, "port": "spec.port",
                "items": [{"id": 2}], "env": {"sample": "spec.env.sample"},
                "free": {"sample": "spec.free.sample"},
            },
        })
    );
    let required = object(&schema, Shape::Required, "example.com/v1", "Widget");
    assert_eq!(
        required,
        json!({
            "apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "sample"},
            "spec": {"name": "spec.name", "when": "2006-01-02T15:04:05Z"},
        })
    );
}

#[test]
fn first_difference_lost_changed_or_none() {
    let original = json!({"metadata": {"annotations": {"a.io/x": "1"}},
        "spec": {"a": 1, "b": {"c": "x"}, "l": [{"k": 1}, {"k": 2}]}});
    let with = |patch: Value| {
        let mut v = original.clone();
        json_patch::merge(&mut v, &patch);
        v
    };
    let cases = [
        (with(json!({"spec": {"extra": true}})), None),
        (with(json!({"spec": {"a": 1.0}})), None),
        (with(json!({"spec": {"a": null}})), Some("loses spec.a")),
        (
            with(json!({"spec": {"b": {"c": "y"}}})),
            Some(r#"changes spec.b.c from "x" to "y""#),
        ),
        (
            with(json!({"spec": {"b": 5}})),
            Some(r#"changes spec.b from {"c":"x"} to 5"#),
        ),
        (
            with(json!({"spec": {"l": [{"k": 1}]}})),
            Some("loses spec.l[1]"),
        ),
        (
            with(json!({"spec": {"l": [{"k": 1}, {"k": 3}]}})),
            Some("changes spec.l[1].k from 2 to 3"),
        ),
        (
            with(json!({"metadata": {"annotations": null}})),
            Some("loses metadata.annotations"),
        ),
        (
            with(json!({"metadata": {"annotations": {"a.io/x": "2"}}})),
            Some(r#"changes metadata.annotations['a.io/x'] from "1" to "2""#),
        ),
    ];
    for (back, want) in cases {
        let got = first_difference(&original, &back, &mut String::new());
        assert_eq!(got.as_deref(), want, "{back}");
    }
}

#[test]
fn prove_lossless_annotation_accepted() {
    build(&widgets(LOSSLESS), LOSSLESS).unwrap();
    // The same schemas in every version need no entry at all.
    let same = specs()[1].clone();
    let crd = widgets_with(Some("[]"), [same.clone(), same.clone(), same]);
    build(&crd, "[]").unwrap();
}

/// The proof's refusal of the fixture definition with `text`, without the prefix.
fn refusal(text: &str) -> String {
    let got = build(&widgets(text), text).unwrap_err();
    let prefix = format!("annotation {ANNOTATION}: ");
    got.strip_prefix(&prefix).unwrap_or(&got).to_string()
}

#[test]
fn prove_lossy_annotations_refused_naming_versions_and_field() {
    // Take LOSSLESS and break one thing each time.
    let cases = [
        // No way back for v2's finish: dropped on the way to v1.
        (
            LOSSLESS.replace("  - move: spec.paint.finish\n    to: metadata.annotations['widgets.example.com/finish']\n", ""),
            "the round trip v2 → v1 → v2 loses spec.paint.finish (on a sample object)",
        ),
        // v1's color never moved: pruned at v2.
        (
            LOSSLESS.replacen("  - move: spec.color\n    to: spec.paint.color\n", "", 1),
            "the round trip v1 → v2 → v1 loses spec.color (on a sample object)",
        ),
        // A constant overwrites what v2 had.
        (
            LOSSLESS.replace(
                "  - move: metadata.annotations['widgets.example.com/finish']\n    to: spec.paint.finish\n",
                "  - set: spec.paint.finish\n    value: matte\n",
            ),
            r#"the round trip v2 → v1 → v2 changes spec.paint.finish from "spec.paint.finish" to "matte" (on a sample object)"#,
        ),
        // A path v1 does not have.
        (
            LOSSLESS.replace(
                "  - rename: spec.paint.color\n    to: spec.color\n",
                "  - rename: spec.paint.color\n    to: spec.tmp\n",
            ),
            "[1]: from v2 to v1: mappings[0] {\"rename\":\"spec.paint.color\",\"to\":\"spec.tmp\"}: spec.tmp is not in the schema of version v1",
        ),
        // The CEL direction reads an optional field without has(): fails on the
        // sample with only the required fields.
        (
            LOSSLESS.replace("?status: object.?status", "status: object.status"),
            "the round trip v1 → v3 → v1 fails (on a sample object with only its required fields): from v3 to v2: cel: no such key: status",
        ),
        // The CEL direction forgets a field.
        (
            LOSSLESS.replace(" ?tags: object.spec.?tags,", ""),
            "the round trip v1 → v3 → v1 loses spec.tags (on a sample object)",
        ),
    ];
    for (text, want) in cases {
        assert_ne!(text, LOSSLESS, "the case changes the annotation");
        assert_eq!(refusal(&text), want);
    }
}

#[test]
fn prove_swapped_fields_refused() {
    // v1 → v2 swaps a and b (through an annotation); v2 → v1 carries them over.
    let text = r#"
- from: v1
  to: v2
  mappings: [{move: spec.a, to: metadata.annotations.tmp}, {move: spec.b, to: spec.a}, {move: metadata.annotations.tmp, to: spec.b}]
"#;
    let ab =
        json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}});
    let crd = widgets_with(Some(text), [ab.clone(), ab.clone(), ab]);
    assert_eq!(
        build(&crd, text).unwrap_err(),
        format!(
            "annotation {ANNOTATION}: the round trip v1 → v2 → v1 changes spec.a from \"spec.a\" to \"spec.b\" (on a sample object)"
        )
    );
}

#[test]
fn prove_readme_example_accepted() {
    let readme = include_str!("../../../README.md");
    let start = readme
        .find(&format!("{ANNOTATION}: |\n"))
        .expect("the README's example");
    let block = &readme[start..];
    let text = &block[block.find('\n').unwrap() + 1..block.find("```").unwrap()];
    let object = |properties: Value| json!({"type": "object", "properties": properties});
    let paint = object(json!({"color": {"type": "string"}, "finish": {"type": "string"}}));
    let specs = [
        object(json!({"color": {"type": "string"}, "size": {"type": "integer"}})),
        object(json!({"paint": paint, "size": {"type": "integer"}})),
        object(json!({"paint": paint, "dimensions": object(json!({"size": {"type": "integer"}}))})),
    ];
    let crd = widgets_with(Some(text), specs);
    let converter = build(&crd, text).unwrap();
    // A v1 object that never had a finish gets the default at v2.
    let v1 = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
        "spec": {"color": "red", "size": 2}});
    let v3 = converter.convert_object(v1, "v1", "v3").unwrap();
    assert_eq!(
        v3["spec"],
        json!({"paint": {"color": "red", "finish": "matte"}, "dimensions": {"size": 2}})
    );
}
