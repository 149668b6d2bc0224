//! The lossy OpenAPI v2 compatibility conversions (apiextensions-apiserver
//! `controller/openapi/v2.ToStructuralOpenAPIV2`, and kube-openapi's `PruneDefaults`),
//! which keep older kubectl from rejecting valid objects it cannot describe:
//! junctors dropped, nullable and unknown-field-preserving nodes made untyped.

use serde_json::{Value, json};

/// Converts a published (structural) schema for OpenAPI v2, parent before children:
/// - `allOf`, `anyOf`, `oneOf` and `not` are removed;
/// - `nullable: true` drops `type`, `nullable`, `items` and `properties`;
/// - `x-kubernetes-preserve-unknown-fields: true` drops `items` and `properties`, and an
///   `object` type;
/// - an `array` without `items` loses its type;
/// - nullable properties are no longer `required`, and a nullable `additionalProperties`
///   schema clears `required`.
pub(super) fn to_openapi_v2(schema: &mut Value) {
    let Some(map) = schema.as_object_mut() else {
        return;
    };
    for junctor in ["allOf", "oneOf", "anyOf", "not"] {
        map.remove(junctor);
    }
    let is_true = |v: Option<&Value>| v == Some(&json!(true));
    if is_true(map.get("nullable")) {
        for key in ["type", "nullable", "items", "properties"] {
            map.remove(key);
        }
    }
    let preserves = is_true(map.get("x-kubernetes-preserve-unknown-fields"));
    if preserves {
        map.remove("items");
        map.remove("properties");
    }
    let type_is =
        |map: &serde_json::Map<String, Value>, t: &str| map.get("type") == Some(&json!(t));
    if !map.contains_key("items") && type_is(map, "array") {
        map.remove("type");
    }
    if preserves && type_is(map, "object") {
        map.remove("type");
    }
    drop_nullable_required(map);
    super::published::for_each_child(schema, to_openapi_v2);
}

fn drop_nullable_required(map: &mut serde_json::Map<String, Value>) {
    let nullable = |s: &Value| s["nullable"] == json!(true);
    let additional_nullable = map.get("additionalProperties").is_some_and(nullable);
    let nullable_properties: Vec<String> = match map.get("properties") {
        Some(Value::Object(props)) => props
            .iter()
            .filter(|(_, p)| nullable(p))
            .map(|(k, _)| k.clone())
            .collect(),
        _ => Vec::new(),
    };
    if let Some(Value::Array(required)) = map.get_mut("required") {
        required.retain(|r| {
            !r.as_str()
                .is_some_and(|r| nullable_properties.iter().any(|n| n == r))
        });
        if required.is_empty() || additional_nullable {
            map.remove("required");
        }
    }
}

/// kube-openapi `PruneDefaultsSchema`: removes `default` everywhere in a schema (the v2
/// document publishes no defaults).
pub(super) fn prune_defaults(schema: &mut Value) {
    if let Some(map) = schema.as_object_mut() {
        map.remove("default");
    }
    super::published::for_each_subschema(schema, prune_defaults);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn to_openapi_v2_seed_conversions() {
        let cases = [
            (
                "junctors removed",
                json!({"type": "string", "allOf": [{"minLength": 1}], "anyOf": [{"maxLength": 2}],
                    "oneOf": [{"pattern": "a"}], "not": {"enum": ["b"]}}),
                json!({"type": "string"}),
            ),
            (
                "nullable drops type, nullable, items and properties",
                json!({"type": "object", "nullable": true, "description": "d",
                    "properties": {"a": {"type": "string"}}}),
                json!({"description": "d"}),
            ),
            (
                "nullable array drops its items",
                json!({"type": "array", "nullable": true, "items": {"type": "string"}}),
                json!({}),
            ),
            (
                "preserving object loses properties and type",
                json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true,
                    "properties": {"a": {"type": "string"}}}),
                json!({"x-kubernetes-preserve-unknown-fields": true}),
            ),
            (
                "preserving array loses items, then its type",
                json!({"type": "array", "x-kubernetes-preserve-unknown-fields": true,
                    "items": {"type": "string"}}),
                json!({"x-kubernetes-preserve-unknown-fields": true}),
            ),
        ];
        for (case, mut schema, want) in cases {
            to_openapi_v2(&mut schema);
            assert_eq!(schema, want, "{case}");
        }
    }

    #[test]
    fn to_openapi_v2_required_and_nested_conversions() {
        let cases = [
            (
                "nullable properties are not required",
                json!({"type": "object", "required": ["a", "b"], "properties": {
                    "a": {"type": "string", "nullable": true}, "b": {"type": "string"}}}),
                json!({"type": "object", "required": ["b"], "properties": {"a": {}, "b": {"type": "string"}}}),
            ),
            (
                "required emptied is removed",
                json!({"type": "object", "required": ["a"], "properties": {
                    "a": {"type": "string", "nullable": true}}}),
                json!({"type": "object", "properties": {"a": {}}}),
            ),
            (
                "nullable additionalProperties clears required",
                json!({"type": "object", "required": ["x"],
                    "additionalProperties": {"type": "string", "nullable": true}}),
                json!({"type": "object", "additionalProperties": {}}),
            ),
            (
                "nested nodes converted",
                json!({"type": "object", "properties": {"list": {"type": "array",
                    "items": {"type": "object", "nullable": true, "oneOf": [{"required": ["a"]}]}}}}),
                json!({"type": "object", "properties": {"list": {"type": "array", "items": {}}}}),
            ),
            (
                "int-or-string keeps its extension",
                json!({"x-kubernetes-int-or-string": true,
                    "anyOf": [{"type": "integer"}, {"type": "string"}]}),
                json!({"x-kubernetes-int-or-string": true}),
            ),
        ];
        for (case, mut schema, want) in cases {
            to_openapi_v2(&mut schema);
            assert_eq!(schema, want, "{case}");
        }
    }

    #[test]
    fn prune_defaults_removes_every_default() {
        let mut schema = json!({"type": "object", "default": {}, "properties": {
            "a": {"type": "string", "default": "x"},
            "b": {"type": "array", "items": {"type": "integer", "default": 1}},
            "c": {"additionalProperties": {"default": "y"}, "allOf": [{"default": "z"}]}}});
        prune_defaults(&mut schema);
        assert_eq!(
            schema,
            json!({"type": "object", "properties": {"a": {"type": "string"},
                "b": {"type": "array", "items": {"type": "integer"}},
                "c": {"additionalProperties": {}, "allOf": [{}]}}})
        );
    }
}
