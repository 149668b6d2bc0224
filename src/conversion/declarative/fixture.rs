//! The unit tests' definition: widgets.example.com with three versions. v1 has
//! `spec.color`; v2 (storage) and v3 have `spec.paint.{color,finish}`; v3 moved
//! `spec.size` to `spec.dimensions.size`. [`LOSSLESS`] converts them without loss.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use serde_json::{Value, json};

/// A lossless annotation: v1 ↔ v2 by mappings (v2's finish kept in an annotation at
/// v1), v2 → v3 by mappings, v3 → v2 by CEL; v1 ↔ v3 go through v2.
pub const LOSSLESS: &str = r#"
- from: v1
  to: v2
  mappings:
  - move: spec.color
    to: spec.paint.color
  - move: metadata.annotations['widgets.example.com/finish']
    to: spec.paint.finish
- from: v2
  to: v1
  mappings:
  - rename: spec.paint.color
    to: spec.color
  - move: spec.paint.finish
    to: metadata.annotations['widgets.example.com/finish']
- from: v2
  to: v3
  mappings:
  - move: spec.size
    to: spec.dimensions.size
- from: v3
  to: v2
  cel: >
    Object{?status: object.?status,
      spec: Object.spec{?paint: object.spec.?paint, ?tags: object.spec.?tags,
        ?extra: object.spec.?extra, ?size: object.spec.?dimensions.?size}}
"#;

fn common() -> Value {
    json!({
        "size": {"type": "integer"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "extra": {"type": "object", "additionalProperties": {"type": "string"}},
    })
}

fn version(name: &str, storage: bool, spec: Value) -> Value {
    json!({
        "name": name, "served": true, "storage": storage,
        "schema": {"openAPIV3Schema": {
            "type": "object",
            "required": ["spec"],
            "properties": {
                "spec": spec,
                "status": {"type": "object", "properties": {"ready": {"type": "boolean"}}},
            },
        }},
    })
}

fn with(mut base: Value, fields: Value) -> Value {
    if let (Some(b), Some(f)) = (base.as_object_mut(), fields.as_object()) {
        b.extend(f.clone());
    }
    base
}

/// The three versions' `spec` schemas.
pub fn specs() -> [Value; 3] {
    let paint = json!({"type": "object", "properties": {
        "color": {"type": "string"}, "finish": {"type": "string"}}});
    let v1 = with(common(), json!({"color": {"type": "string"}}));
    let v2 = with(common(), json!({"paint": paint}));
    let mut v3 = with(
        common(),
        json!({"paint": paint,
        "dimensions": {"type": "object", "properties": {"size": {"type": "integer"}}}}),
    );
    if let Some(m) = v3.as_object_mut() {
        m.remove("size");
    }
    let object = |properties: Value| json!({"type": "object", "properties": properties});
    [object(v1), object(v2), object(v3)]
}

/// The definition with `annotation` (none when `None`) and these `spec` schemas.
pub fn widgets_with(annotation: Option<&str>, specs: [Value; 3]) -> CustomResourceDefinition {
    let [v1, v2, v3] = specs;
    let annotations = match annotation {
        Some(text) => json!({super::ANNOTATION: text}),
        None => json!({}),
    };
    serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com", "annotations": annotations},
        "spec": {
            "group": "example.com",
            "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
            "versions": [version("v1", false, v1), version("v2", true, v2), version("v3", false, v3)],
        },
    }))
    .unwrap()
}

/// The definition with `annotation` and the fixture's schemas.
pub fn widgets(annotation: &str) -> CustomResourceDefinition {
    widgets_with(Some(annotation), specs())
}
