//! The published schemas of one served version: the kind (the CRD's structural schema as
//! `ToKubeOpenAPI` renders it, int-or-string unfolded, with kube's `metadata`, `apiVersion`
//! and `kind` and the embedded-resource properties: the builder's `buildKubeNative`) and
//! its list (`buildListSchema`). References are `#/definitions/...`; v3 rewrites them.

use serde_json::{Map, Value, json};

use super::meta_definitions::{LIST_META, OBJECT_META, api_version_property, kind_property};
use super::v2_conversion;
use crate::crd::catalog::{ServedResource, ServedVersion};

/// Which document a schema is built for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Flavor {
    V2,
    V3,
}

const OBJECT_METADATA: &str = "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";
const LIST_METADATA: &str = "Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds";
const EMBEDDED_API_VERSION: &str = "apiVersion defines the versioned schema of this representation of an object. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources";
const EMBEDDED_KIND: &str = "kind is a string value representing the type of this object. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds";

/// `com.example.stable.v1.CronTab`: the group reversed, then version and kind.
pub(super) fn model_name(group: &str, version: &str, kind: &str) -> String {
    let reversed: Vec<&str> = group.split('.').rev().collect();
    format!("{}.{version}.{kind}", reversed.join("."))
}

/// `#/definitions/<model>`.
pub(super) fn definition_ref(model: &str) -> Value {
    json!({"$ref": format!("#/definitions/{model}")})
}

fn described_ref(model: &str, description: &str) -> Value {
    json!({"$ref": format!("#/definitions/{model}"), "description": description})
}

/// The kind's schema, as published for `flavor`.
pub(super) fn kind_schema(r: &ServedResource, v: &ServedVersion, flavor: Flavor) -> Value {
    let structural = v
        .schema
        .as_ref()
        .map(to_kube_openapi)
        .filter(Value::is_object);
    let preserves = |s: &Value| s["x-kubernetes-preserve-unknown-fields"] == json!(true);
    let mut schema = match structural {
        // kubectl would forbid everything but apiVersion, kind and metadata otherwise.
        None => json!({"type": "object"}),
        Some(s) if flavor == Flavor::V2 && preserves(&s) => json!({"type": "object"}),
        Some(mut s) => {
            unfold_int_or_string(&mut s);
            if flavor == Flavor::V2 {
                v2_conversion::to_openapi_v2(&mut s);
            }
            set_property(
                &mut s,
                "metadata",
                described_ref(OBJECT_META, OBJECT_METADATA),
            );
            set_property(&mut s, "apiVersion", api_version_property());
            set_property(&mut s, "kind", kind_property());
            add_embedded_properties(&mut s, flavor);
            s
        }
    };
    schema["x-kubernetes-group-version-kind"] =
        json!([{"group": r.group, "version": &*v.name, "kind": r.kind}]);
    add_selectable_fields(&mut schema, v);
    schema
}

/// `<ListKind> is a list of <Kind>`, with `items`, `metadata` (ListMeta), `apiVersion`, `kind`.
pub(super) fn list_schema(r: &ServedResource, v: &ServedVersion) -> Value {
    let items = json!({
        "type": "array",
        "items": definition_ref(&model_name(&r.group, &v.name, &r.kind)),
        "description": format!("List of {}. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md", r.plural),
    });
    let mut schema = json!({
        "type": "object",
        "description": format!("{} is a list of {}", r.list_kind, r.kind),
        "required": ["items"],
        "properties": {
            "items": items,
            "metadata": described_ref(LIST_META, LIST_METADATA),
            "apiVersion": api_version_property(),
            "kind": kind_property(),
        },
        "x-kubernetes-group-version-kind": [{"group": r.group, "version": &*v.name, "kind": r.list_kind}],
    });
    add_selectable_fields(&mut schema, v);
    schema
}

/// `x-kubernetes-selectable-fields` (CustomResourceFieldSelectors, on since 1.32).
fn add_selectable_fields(schema: &mut Value, v: &ServedVersion) {
    if !v.selectable_fields.is_empty() {
        let fields: Vec<Value> = v
            .selectable_fields
            .iter()
            .map(|f| json!({"fieldPath": f}))
            .collect();
        schema["x-kubernetes-selectable-fields"] = Value::Array(fields);
    }
}

fn set_property(schema: &mut Value, name: &str, property: Value) {
    if let Some(map) = schema.as_object_mut() {
        let props = map.entry("properties").or_insert_with(|| json!({}));
        props[name] = property;
    }
}

/// Keywords of a structural schema node; anything else is not published.
const KEYWORDS: [&str; 35] = [
    "type",
    "format",
    "title",
    "description",
    "default",
    "nullable",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "multipleOf",
    "enum",
    "maxProperties",
    "minProperties",
    "required",
    "items",
    "properties",
    "additionalProperties",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-embedded-resource",
    "x-kubernetes-int-or-string",
    "x-kubernetes-list-map-keys",
    "x-kubernetes-list-type",
    "x-kubernetes-map-type",
    "x-kubernetes-validations",
];

/// `Structural.ToKubeOpenAPI`: the schema as Go's `spec.Schema` serializes it — unset,
/// false, empty and null values dropped, and keywords kube does not publish (v1.33 drops
/// `externalDocs` and `example`) removed.
pub(super) fn to_kube_openapi(schema: &Value) -> Value {
    normalize(schema, false)
}

/// `nested` nodes are value validations under `allOf`/`anyOf`/`oneOf`/`not`, which kube
/// publishes without `additionalProperties`.
fn normalize(schema: &Value, nested: bool) -> Value {
    let Some(map) = schema.as_object() else {
        return schema.clone();
    };
    let mut out = Map::new();
    for (key, value) in map {
        if !KEYWORDS.contains(&key.as_str()) || (nested && key == "additionalProperties") {
            continue;
        }
        let value = match (key.as_str(), value) {
            ("properties", Value::Object(props)) => Value::Object(
                props
                    .iter()
                    .map(|(k, p)| (k.clone(), normalize(p, nested)))
                    .collect(),
            ),
            ("items" | "additionalProperties", Value::Object(_)) => normalize(value, nested),
            ("not", _) => normalize(value, true),
            ("allOf" | "anyOf" | "oneOf", Value::Array(list)) => {
                Value::Array(list.iter().map(|s| normalize(s, true)).collect())
            }
            ("x-kubernetes-validations", Value::Array(rules)) => {
                Value::Array(rules.iter().map(normalize_rule).collect())
            }
            _ => value.clone(),
        };
        if !is_empty(key, &value) {
            out.insert(key.clone(), value);
        }
    }
    Value::Object(out)
}

/// Go's `omitempty`/`omitzero` on `spec.Schema`: null, false, "" and [] are not written,
/// nor empty `properties`; `default` (an interface), `additionalProperties` (bool or
/// schema) and the list/map type extensions are written whenever set.
fn is_empty(key: &str, value: &Value) -> bool {
    match (key, value) {
        (_, Value::Null) => true,
        ("default" | "additionalProperties", _) => false,
        ("x-kubernetes-list-type" | "x-kubernetes-map-type", _) => false,
        (_, Value::Bool(b)) => !b,
        (_, Value::String(s)) => s.is_empty(),
        (_, Value::Array(a)) => a.is_empty(),
        ("properties", Value::Object(o)) => o.is_empty(),
        _ => false,
    }
}

/// A `ValidationRule`: `rule` always, the optional strings only when set.
fn normalize_rule(rule: &Value) -> Value {
    let Some(map) = rule.as_object() else {
        return rule.clone();
    };
    let kept = map
        .iter()
        .filter(|(k, v)| !v.is_null() && (k.as_str() == "rule" || v.as_str() != Some("")))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    Value::Object(kept)
}

/// `Structural.Unfold`: an int-or-string node gets `anyOf: [integer, string]`, or that
/// `anyOf` first in its `allOf` when it already has an `anyOf` — unless it already has
/// either pattern.
pub(super) fn unfold_int_or_string(schema: &mut Value) {
    let pattern = json!([{"type": "integer"}, {"type": "string"}]);
    if schema["x-kubernetes-int-or-string"] == json!(true) {
        let has_any_of = schema["anyOf"] == pattern;
        let has_all_of = schema["allOf"][0]["anyOf"] == pattern;
        if let (false, false, Some(map)) = (has_any_of, has_all_of, schema.as_object_mut()) {
            if map.contains_key("anyOf") {
                let mut all_of = vec![json!({"anyOf": pattern})];
                if let Some(Value::Array(existing)) = map.remove("allOf") {
                    all_of.extend(existing);
                }
                map.insert("allOf".into(), Value::Array(all_of));
            } else {
                map.insert("anyOf".into(), pattern);
            }
        }
    }
    for_each_child(schema, unfold_int_or_string);
}

/// Calls `f` on `items`, every property and an `additionalProperties` schema.
pub(super) fn for_each_child(schema: &mut Value, mut f: impl FnMut(&mut Value)) {
    let Some(map) = schema.as_object_mut() else {
        return;
    };
    if let Some(items) = map.get_mut("items").filter(|i| i.is_object()) {
        f(items);
    }
    if let Some(Value::Object(props)) = map.get_mut("properties") {
        props.values_mut().for_each(&mut f);
    }
    if let Some(additional) = map
        .get_mut("additionalProperties")
        .filter(|a| a.is_object())
    {
        f(additional);
    }
}

/// Calls `f` on every subschema of any keyword (kube-openapi's schema walkers).
pub(super) fn for_each_subschema(schema: &mut Value, mut f: impl FnMut(&mut Value)) {
    let Some(map) = schema.as_object_mut() else {
        return;
    };
    for (key, value) in map.iter_mut() {
        match (key.as_str(), value) {
            ("properties" | "patternProperties" | "definitions", Value::Object(children)) => {
                children.values_mut().for_each(&mut f);
            }
            ("allOf" | "anyOf" | "oneOf" | "items", Value::Array(list)) => {
                list.iter_mut().for_each(&mut f);
            }
            ("items" | "not" | "additionalProperties" | "additionalItems", child)
                if child.is_object() =>
            {
                f(child);
            }
            _ => {}
        }
    }
}

/// `addEmbeddedProperties`: `x-kubernetes-embedded-resource` nodes get `apiVersion`, `kind`
/// and `metadata`, and require `kind` and `apiVersion` — except, in v2, nodes that
/// preserve unknown fields (kubectl would then reject their unknown fields).
fn add_embedded_properties(schema: &mut Value, flavor: Flavor) {
    for_each_child(schema, |child| add_embedded_properties(child, flavor));
    let is_true = |key: &str| schema[key] == json!(true);
    if flavor == Flavor::V2 && is_true("x-kubernetes-preserve-unknown-fields") {
        return;
    }
    if !is_true("x-kubernetes-embedded-resource") {
        return;
    }
    let with_description = |mut p: Value, d: &str| {
        p["description"] = json!(d);
        p
    };
    set_property(
        schema,
        "apiVersion",
        with_description(api_version_property(), EMBEDDED_API_VERSION),
    );
    set_property(
        schema,
        "kind",
        with_description(kind_property(), EMBEDDED_KIND),
    );
    set_property(
        schema,
        "metadata",
        described_ref(OBJECT_META, OBJECT_METADATA),
    );
    let mut required: Vec<Value> = schema["required"].as_array().cloned().unwrap_or_default();
    for name in ["kind", "apiVersion"] {
        if !required.contains(&json!(name)) {
            required.push(json!(name));
        }
    }
    schema["required"] = Value::Array(required);
}
