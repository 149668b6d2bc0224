//! Table tests of the declarative converter's pieces: paths, the annotation's texts,
//! the schema checks, the mapping engine and the CEL and strategy refusals.

use serde_json::{Value, json};

use super::apply::{Codec, Step, apply};
use super::fixture::{LOSSLESS, widgets};
use super::path::FieldPath;
use super::spec::parse;
use super::{ANNOTATION, build, converter};
use crate::crd::conversion::Conversion;

fn path(text: &str) -> FieldPath {
    FieldPath::parse(text).unwrap()
}

#[test]
fn path_parse_spellings_segments() {
    let cases: &[(&str, &[&str], &str)] = &[
        ("spec.color", &["spec", "color"], "spec.color"),
        (".spec.color", &["spec", "color"], "spec.color"),
        (
            "metadata.annotations['example.com/color']",
            &["metadata", "annotations", "example.com/color"],
            "metadata.annotations['example.com/color']",
        ),
        (r#"a["b.c"].d"#, &["a", "b.c", "d"], "a['b.c'].d"),
        ("a[b/c]", &["a", "b/c"], "a['b/c']"),
        ("a[b]", &["a", "b"], "a.b"),
        ("a[\"it's\"]", &["a", "it's"], "a[\"it's\"]"),
    ];
    for (text, segments, canonical) in cases {
        let parsed = path(text);
        assert_eq!(parsed.segments(), *segments, "{text}");
        assert_eq!(parsed.to_string(), *canonical, "{text}");
        assert_eq!(path(canonical), parsed, "{text} spelled again");
    }
}

#[test]
fn path_parse_malformed_refused_with_reason() {
    let cases = [
        ("", "the path is empty"),
        ("a..b", "the path has an empty name (two dots)"),
        ("a.", "the path ends with a dot"),
        ("a[", "unterminated \"[\""),
        ("a['b", "unterminated ' in brackets"),
        ("a]b", "unexpected \"]\""),
        ("a['b']c", "unexpected \"c\" after a name"),
        ("a['']", "the path has an empty name in brackets"),
    ];
    for (text, want) in cases {
        assert_eq!(FieldPath::parse(text).unwrap_err(), want, "{text:?}");
    }
}

#[test]
fn apply_each_step_changes_only_its_paths() {
    let object = json!({"spec": {"color": "red", "size": 3, "n": null},
        "metadata": {"annotations": {"a/b": "{\"x\":1}", "c": "plain"}}});
    let mv = |from: &str, to: &str, codec| Step::Move {
        from: path(from),
        to: path(to),
        codec,
    };
    let set = |p: &str, value| Step::Set {
        path: path(p),
        value,
    };
    let default = |p: &str, value| Step::Default {
        path: path(p),
        value,
    };
    let drop = |p: &str| Step::Drop { path: path(p) };
    // Each case: the step, then the changes to `object` (JSON merge patch).
    let cases: Vec<(Step, Value)> = vec![
        (
            mv("spec.color", "spec.paint.color", Codec::Plain),
            json!({"spec": {"color": null, "paint": {"color": "red"}}}),
        ),
        // Nothing at the source: nothing happens.
        (mv("spec.missing", "spec.other", Codec::Plain), json!({})),
        (
            mv("spec.size", "metadata.annotations['x/size']", Codec::ToText),
            json!({"spec": {"size": null}, "metadata": {"annotations": {"x/size": "3"}}}),
        ),
        (
            mv("spec.color", "metadata.annotations.k", Codec::ToText),
            json!({"spec": {"color": null}, "metadata": {"annotations": {"k": "red"}}}),
        ),
        (
            mv("metadata.annotations['a/b']", "spec.obj", Codec::FromText),
            json!({"spec": {"obj": {"x": 1}}, "metadata": {"annotations": {"a/b": null}}}),
        ),
        // Text that is not JSON stays a string.
        (
            mv("metadata.annotations.c", "spec.obj", Codec::FromText),
            json!({"spec": {"obj": "plain"}, "metadata": {"annotations": {"c": null}}}),
        ),
        (set("spec.size", json!(7)), json!({"spec": {"size": 7}})),
        // A parent that is not an object becomes one.
        (
            set("spec.color.deep", json!(true)),
            json!({"spec": {"color": {"deep": true}}}),
        ),
        (default("spec.size", json!(7)), json!({})),
        (
            default("spec.new.leaf", json!(1)),
            json!({"spec": {"new": {"leaf": 1}}}),
        ),
        (drop("spec.color"), json!({"spec": {"color": null}})),
        (drop("spec.color.under.a.string"), json!({})),
    ];
    for (step, changes) in cases {
        let mut got = object.clone();
        apply(std::slice::from_ref(&step), &mut got);
        let mut want = object.clone();
        json_patch::merge(&mut want, &changes);
        assert_eq!(got, want, "{step:?}");
    }
    // A null is absent for default (the merge patch above cannot write a null).
    let mut got = object.clone();
    apply(&[default("spec.n", json!("x"))], &mut got);
    assert_eq!(got["spec"]["n"], "x");
}

#[test]
fn parse_bad_annotation_refused_naming_the_entry() {
    let versions = ["v1", "v2"];
    let cases = [
        (
            "{a: 1}",
            r#"expected a list of conversions ({from, to, mappings | cel}), got {"a":1}"#,
        ),
        (
            "- [1]",
            r#"[0]: expected {from, to, mappings | cel}, got [1]"#,
        ),
        (
            "- {from: v1, to: v2, mappings: [], x: 1}",
            r#"[0]: unknown field "x" (expected from, to, mappings or cel)"#,
        ),
        (
            "- {to: v2, mappings: []}",
            "[0]: from is required (a version name)",
        ),
        (
            "- {from: v9, to: v2, mappings: []}",
            r#"[0]: from: "v9" is not a version of this definition (versions: v1, v2)"#,
        ),
        (
            "- {from: v1, to: 2, mappings: []}",
            "[0]: to must be a version name, got 2",
        ),
        (
            "- {from: v1, to: v1, mappings: []}",
            "[0]: from and to are the same version v1",
        ),
        (
            "- {from: v1, to: v2}",
            "[0]: from v1 to v2: one of mappings or cel is required",
        ),
        (
            "- {from: v1, to: v2, mappings: [], cel: x}",
            "[0]: from v1 to v2: mappings and cel are exclusive",
        ),
        (
            "- {from: v1, to: v2, mappings: {}}",
            "[0]: from v1 to v2: mappings must be a list, got {}",
        ),
        (
            "- {from: v1, to: v2, cel: ' '}",
            r#"[0]: from v1 to v2: cel must be a non-empty string, got " ""#,
        ),
        (
            "- {from: v1, to: v2, mappings: []}\n- {from: v1, to: v2, cel: x}",
            "[1]: from v1 to v2 is declared twice",
        ),
        (
            "- {from: v1, to: v2, mappings: [{move: a, set: b}]}",
            r#"[0]: from v1 to v2: mappings[0] {"move":"a","set":"b"}: move and set are exclusive"#,
        ),
        (
            "- {from: v1, to: v2, mappings: [{copy: a}]}",
            r#"[0]: from v1 to v2: mappings[0] {"copy":"a"}: expected one of move, rename, set, default, drop"#,
        ),
        (
            "- {from: v1, to: v2, mappings: [{move: spec.a}]}",
            r#"[0]: from v1 to v2: mappings[0] {"move":"spec.a"}: move needs to"#,
        ),
        (
            "- {from: v1, to: v2, mappings: [{set: spec.a}]}",
            r#"[0]: from v1 to v2: mappings[0] {"set":"spec.a"}: set needs value"#,
        ),
        (
            "- {from: v1, to: v2, mappings: [{drop: spec.a, value: 1}]}",
            r#"[0]: from v1 to v2: mappings[0] {"drop":"spec.a","value":1}: unexpected field "value" with drop"#,
        ),
        (
            "- {from: v1, to: v2, mappings: [{drop: 'spec..a'}]}",
            r#"[0]: from v1 to v2: mappings[0] {"drop":"spec..a"}: drop "spec..a": the path has an empty name (two dots)"#,
        ),
        (
            "- {from: v1, to: v2, mappings: [{rename: [a], to: b}]}",
            r#"[0]: from v1 to v2: mappings[0] {"rename":["a"],"to":"b"}: rename must be a path, got ["a"]"#,
        ),
    ];
    for (text, want) in cases {
        assert_eq!(parse(text, &versions).unwrap_err(), want, "{text}");
    }
    assert!(
        parse("[: x", &versions)
            .unwrap_err()
            .starts_with("not YAML or JSON: ")
    );
    // JSON is accepted as well as YAML.
    let json = r#"[{"from": "v1", "to": "v2", "mappings": [{"drop": "spec.a"}]}]"#;
    assert_eq!(parse(json, &versions).unwrap().len(), 1);
}

/// The error of building the fixture definition with `text`.
fn refusal(text: &str) -> String {
    build(&widgets(text), text).unwrap_err()
}

#[test]
fn build_paths_outside_the_schemas_refused() {
    let entry = |mapping: &str| {
        format!(
            "- {{from: v1, to: v2, mappings: [{mapping}]}}\n- {{from: v2, to: v1, mappings: []}}"
        )
    };
    let cases = [
        (
            "{move: spec.colour, to: spec.paint.color}",
            "spec.colour is not in the schema of version v1",
        ),
        (
            "{move: spec.color, to: spec.colour}",
            "spec.colour is not in the schema of version v2",
        ),
        (
            "{set: spec.tags.x, value: 1}",
            "spec.tags.x goes into the list spec.tags of version v2: paths do not go into list items",
        ),
        (
            "{drop: spec.nowhere}",
            "spec.nowhere is not in the schema of version v1",
        ),
        (
            "{set: kind, value: X}",
            "kind: apiVersion and kind are set by the converter",
        ),
        (
            "{drop: metadata.name}",
            "metadata.name: of metadata only labels and annotations may be mapped (metadata.labels, metadata.annotations['<key>']): the converter keeps the rest",
        ),
        (
            "{drop: 'metadata.labels.a.b'}",
            "metadata.labels.a.b: of metadata only labels",
        ),
    ];
    for (mapping, want) in cases {
        let got = refusal(&entry(mapping));
        let prefix = format!("annotation {ANNOTATION}: [0]: from v1 to v2: mappings[0] ");
        assert!(got.starts_with(&prefix), "{got}");
        assert!(got.contains(want), "{mapping}: {got}");
    }
    // Keys under additionalProperties are any name.
    let ok = entry("{set: spec.extra.anything, value: x}, {drop: spec.extra.anything}");
    assert!(
        !refusal(&ok).contains("not in the schema"),
        "{}",
        refusal(&ok)
    );
}

#[test]
fn build_cel_and_strategy_errors_refused() {
    let cel = |source: &str| format!("- {{from: v1, to: v2, cel: '{source}'}}");
    let got = refusal(&cel("object.spec +"));
    assert!(got.starts_with(&format!("annotation {ANNOTATION}: [0]: from v1 to v2: cel: compilation failed: ERROR: <input>:1:")), "{got}");
    assert_eq!(
        refusal(&cel("1")),
        format!(
            "annotation {ANNOTATION}: [0]: from v1 to v2: cel: must evaluate to the converted object (Object or a map) but got int"
        )
    );
    let mut crd = widgets(LOSSLESS);
    crd.spec.conversion = serde_json::from_value(json!({"strategy": "Webhook"})).unwrap();
    assert_eq!(
        build(&crd, LOSSLESS).unwrap_err(),
        format!(
            "annotation {ANNOTATION}: needs spec.conversion.strategy None (the annotation is the converter), got Webhook"
        )
    );
}

#[test]
fn converter_absent_annotation_none() {
    let crd = super::fixture::widgets_with(None, super::fixture::specs());
    assert!(converter(&crd).is_none());
    assert!(matches!(
        converter(&widgets(LOSSLESS)),
        Some(Ok(Conversion::Converter(_)))
    ));
}
