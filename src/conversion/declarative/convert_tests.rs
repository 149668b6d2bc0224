//! Table tests of the converter: routes (declared, through the hub, untouched), CEL
//! results' metadata, the `Convert` batch and its texts, and the metric.

use serde_json::json;

use super::fixture::{LOSSLESS, widgets};
use super::{Declarative, build};

fn lossless() -> Declarative {
    build(&widgets(LOSSLESS), LOSSLESS).unwrap()
}

#[test]
fn convert_object_routes_mappings_cel_and_hub() {
    let d = lossless();
    let v1 = json!({"apiVersion": "example.com/v1", "kind": "Widget",
        "metadata": {"name": "w", "uid": "u1", "labels": {"l": "x"},
                     "annotations": {"widgets.example.com/finish": "matte"}},
        "spec": {"color": "red", "size": 3, "tags": ["a"]}});
    let v2 = d.convert_object(v1.clone(), "v1", "v2").unwrap();
    assert_eq!(
        v2,
        json!({"apiVersion": "example.com/v2", "kind": "Widget",
        "metadata": {"name": "w", "uid": "u1", "labels": {"l": "x"}, "annotations": {}},
        "spec": {"paint": {"color": "red", "finish": "matte"}, "size": 3, "tags": ["a"]}})
    );
    // v1 → v3: no direction declared, so through the hub v2 (pruned there), then v2 → v3.
    let v3 = d.convert_object(v1.clone(), "v1", "v3").unwrap();
    assert_eq!(v3["apiVersion"], "example.com/v3");
    assert_eq!(
        v3["spec"],
        json!({"paint": {"color": "red", "finish": "matte"}, "dimensions": {"size": 3}, "tags": ["a"]})
    );
    assert_eq!(
        v3["metadata"],
        json!({"name": "w", "uid": "u1", "labels": {"l": "x"}})
    );
    // v3 → v2 by CEL: kind and metadata are the input's, whatever the expression says.
    let back = d.convert_object(v3, "v3", "v2").unwrap();
    assert_eq!(back["spec"], v2["spec"]);
    assert_eq!(back["kind"], "Widget");
    assert_eq!(
        back["metadata"],
        json!({"name": "w", "uid": "u1", "labels": {"l": "x"}})
    );
    // Same version: untouched.
    assert_eq!(d.convert_object(v1.clone(), "v1", "v1").unwrap(), v1);
}

#[test]
fn convert_cel_metadata_only_labels_and_annotations_taken() {
    let text = r#"
- from: v1
  to: v2
  cel: 'Object{kind: "Other", metadata: Object.metadata{name: "renamed", labels: {"new": "l"}}, spec: Object.spec{size: object.spec.size * 2}}'
"#;
    let d = Declarative::compile(&widgets(text), text, &Default::default()).unwrap();
    let input = json!({"apiVersion": "example.com/v1", "kind": "Widget",
        "metadata": {"name": "w", "labels": {"old": "l"}, "annotations": {"a": "b"}}, "spec": {"size": 2}});
    assert_eq!(
        d.convert_object(input.clone(), "v1", "v2").unwrap(),
        json!({"apiVersion": "example.com/v2", "kind": "Widget",
            "metadata": {"name": "w", "labels": {"new": "l"}, "annotations": {"a": "b"}}, "spec": {"size": 4}})
    );
    let mut no_spec = input;
    no_spec["spec"] = json!({});
    assert_eq!(
        d.convert_object(no_spec, "v1", "v2").unwrap_err(),
        "from v1 to v2: cel: no such key: size"
    );
}

#[test]
fn convert_trait_batch_untouched_converted_and_unknown() {
    use crate::crd::conversion::Convert;
    let d = lossless();
    let at_v2 = json!({"apiVersion": "example.com/v2", "kind": "Widget", "metadata": {"name": "a"}, "spec": {"paint": {"color": "blue"}}});
    let at_v1 = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "b"}, "spec": {"color": "red"}});
    let out = futures::executor::block_on(d.convert(vec![at_v2.clone(), at_v1], "example.com/v2"))
        .unwrap();
    assert_eq!(out[0], at_v2);
    assert_eq!(out[1]["spec"], json!({"paint": {"color": "red"}}));
    let other =
        json!({"apiVersion": "example.com/v9", "kind": "Widget", "metadata": {"name": "c"}});
    let err = futures::executor::block_on(d.convert(vec![other], "example.com/v2")).unwrap_err();
    assert_eq!(
        err.message,
        r#"declarative conversion for example.com/v9, Kind=Widget failed: "example.com/v9" is not a version of this resource"#
    );
    let err = futures::executor::block_on(d.convert(vec![at_v2], "example.com/v7")).unwrap_err();
    assert_eq!(
        err.message,
        "declarative conversion for example.com/v2, Kind=Widget failed: example.com/v7 is not a version of this resource"
    );
}

#[test]
fn convert_counted_per_object_and_versions() {
    use crate::crd::conversion::Convert;
    let mut metrics = crate::metrics::Metrics::new();
    let counted = super::DeclarativeMetrics::register(&mut metrics);
    let d = super::build_counted(&widgets(LOSSLESS), LOSSLESS, &counted).unwrap();
    let at = |v: &str, name: &str| json!({"apiVersion": format!("example.com/{v}"), "kind": "Widget", "metadata": {"name": name}, "spec": {}});
    let objects = vec![at("v1", "a"), at("v1", "b"), at("v2", "c"), at("v3", "d")];
    futures::executor::block_on(d.convert(objects, "example.com/v2")).unwrap();
    let text = metrics.render();
    let series = |from: &str, n: u32| {
        format!(
            "crd_apiserver_declarative_conversion_total{{resource=\"widgets.example.com\",from=\"{from}\",to=\"v2\"}} {n}"
        )
    };
    // The proof at build time is not counted; objects already at v2 are not converted.
    assert!(text.contains(&series("v1", 2)), "{text}");
    assert!(text.contains(&series("v3", 1)), "{text}");
    assert!(!text.contains("from=\"v2\",to=\"v2\""), "{text}");
}

#[test]
fn convert_invalid_labels_refused_as_a_webhooks_answer_is() {
    let text = r#"
- from: v1
  to: v2
  cel: 'Object{metadata: Object.metadata{labels: {"size": string(object.spec.size) + " !!"}}, spec: Object.spec{size: object.spec.size}}'
"#;
    let d = Declarative::compile(&widgets(text), text, &Default::default()).unwrap();
    let input = json!({"apiVersion": "example.com/v1", "kind": "Widget",
        "metadata": {"name": "w"}, "spec": {"size": 2}});
    let err = d.convert_object(input, "v1", "v2").unwrap_err();
    assert!(
        err.starts_with(
            r#"from v1 to v2: invalid metadata: metadata.labels: Invalid value: "2 !!": a valid label must be"#
        ),
        "{err}"
    );
}
