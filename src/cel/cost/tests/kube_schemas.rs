//! The schemas of kube's `TestCostEstimation` cases, built as its generators
//! (`genArrayWithRule`, `genMapWithRule`, ...) build them, with the optional bound.

use serde_json::{Value, json};

/// How kube builds the case's schema.
#[derive(Clone, Copy, Debug)]
pub enum Gen {
    /// `genArrayWithRule(type)`.
    Array(&'static str),
    /// `genArrayOfArraysWithRule(type)`.
    ArrayOfArrays(&'static str),
    /// `genObjectArrayWithRule`.
    ObjectArray,
    /// `genMapWithRule(type)`.
    Map(&'static str),
    /// `genMapWithCustomItemRule(item)`.
    MapOf(Item),
    /// `getMapArrayWithRule(type)`.
    MapArray(&'static str),
    /// `genStringWithRule`.
    String,
    /// `genBytesWithRule`.
    Bytes,
    /// `genEnumWithRuleAndValues`.
    Enum(&'static [&'static str]),
    /// `genNestedSpecWithRule`.
    NestedSpec,
    /// `genAllMaxNestedSpecWithRootRule` (`true`) / `genOneMaxNestedSpecWithRootRule`.
    Nested { all_max: bool },
    /// An atomic array of strings, both bounded (`extended library join`, `isSorted`).
    StringArray,
    /// `{str, before (maxLength 2), after (maxLength 4)}` (`extended library replace`).
    ReplaceObject,
    /// `{str, separator}` (`extended library split`).
    SplitObject,
    /// int-or-string with `maxLength`.
    IntOrString,
}

#[derive(Clone, Copy, Debug)]
pub enum Item {
    Object,
    NumberMap,
    NumberArray,
}

/// Sets `key` to the bound when there is one.
fn bounded(mut v: Value, key: &str, max: Option<i64>) -> Value {
    if let (Some(max), Some(obj)) = (max, v.as_object_mut()) {
        obj.insert(key.to_string(), json!(max));
    }
    v
}

/// kube's `parseRuleType`: formats of strings, and int-or-string.
fn typed(t: &str) -> Value {
    match t {
        "duration" | "date" | "date-time" => json!({"type": "string", "format": t}),
        "int-or-string" => json!({"x-kubernetes-int-or-string": true}),
        _ => json!({"type": t}),
    }
}

fn required_optional_object() -> Value {
    json!({
        "type": "object",
        "properties": {"required": {"type": "string"}, "optional": {"type": "string"}},
        "required": ["required"],
    })
}

impl Gen {
    /// The schema, with `max` as kube's generator places it.
    pub fn schema(self, max: Option<i64>) -> Value {
        match self {
            Gen::Array(t) => bounded(json!({"type": "array", "items": typed(t)}), "maxItems", max),
            Gen::ArrayOfArrays(t) => bounded(
                json!({"type": "array", "items": {"type": "array", "items": {"type": t}}}),
                "maxItems",
                max,
            ),
            Gen::ObjectArray => bounded(
                json!({"type": "array", "items": required_optional_object()}),
                "maxItems",
                max,
            ),
            Gen::Map(t) => bounded(
                json!({"type": "object", "additionalProperties": typed(t)}),
                "maxProperties",
                max,
            ),
            Gen::MapOf(item) => {
                let item = match item {
                    Item::Object => required_optional_object(),
                    Item::NumberMap => {
                        json!({"type": "object", "additionalProperties": {"type": "number"}})
                    }
                    Item::NumberArray => json!({"type": "array", "items": {"type": "number"}}),
                };
                bounded(
                    json!({"type": "object", "additionalProperties": item}),
                    "maxProperties",
                    max,
                )
            }
            Gen::MapArray(t) => bounded(
                json!({"type": "array", "items": {"type": "object", "additionalProperties": {"type": t}}}),
                "maxItems",
                max,
            ),
            Gen::String => bounded(json!({"type": "string"}), "maxLength", max),
            Gen::Bytes => bounded(
                json!({"type": "string", "format": "byte"}),
                "maxLength",
                max,
            ),
            Gen::Enum(values) => {
                bounded(json!({"type": "string", "enum": values}), "maxLength", max)
            }
            Gen::NestedSpec => {
                let value = bounded(json!({"type": "string"}), "maxLength", max);
                bounded(
                    json!({"type": "object", "additionalProperties": value}),
                    "maxProperties",
                    max,
                )
            }
            Gen::Nested { all_max } => {
                let inner = bounded(
                    required_optional_object(),
                    "maxProperties",
                    max.filter(|_| all_max),
                );
                let item = bounded(
                    json!({"type": "object", "additionalProperties": inner}),
                    "maxProperties",
                    max,
                );
                bounded(
                    json!({"type": "array", "items": item}),
                    "maxItems",
                    max.filter(|_| all_max),
                )
            }
            Gen::StringArray => {
                let item = bounded(json!({"type": "string"}), "maxLength", max);
                bounded(
                    json!({"type": "array", "x-kubernetes-list-type": "atomic", "items": item}),
                    "maxItems",
                    max,
                )
            }
            Gen::ReplaceObject => json!({"type": "object", "properties": {
                "str": bounded(json!({"type": "string"}), "maxLength", max),
                "before": {"type": "string", "maxLength": 2},
                "after": {"type": "string", "maxLength": 4},
            }}),
            Gen::SplitObject => {
                let s = bounded(json!({"type": "string"}), "maxLength", max);
                json!({"type": "object", "properties": {"str": s, "separator": s}})
            }
            Gen::IntOrString => bounded(
                json!({"x-kubernetes-int-or-string": true}),
                "maxLength",
                max,
            ),
        }
    }
}
