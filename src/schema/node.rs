//! The compiled schema node: one CRD version's `openAPIV3Schema` parsed once into typed
//! fields (patterns compiled), walked by pruning, defaulting and validation.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::formats::{pattern, strfmt};

/// `additionalProperties`: a boolean or a schema for every value of the map.
#[derive(Clone, Debug)]
pub enum Additional {
    Allowed(bool),
    Schema(Box<Schema>),
}

/// A `pattern` with its compiled regular expression; `regex` is `None` when the pattern
/// does not compile, which the structural check reports at load.
#[derive(Clone, Debug)]
pub struct Pattern {
    pub source: String,
    pub regex: Option<regex::Regex>,
}

/// A node's `type`; the structural check at load admits no other value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SchemaType {
    /// No type: only under `x-kubernetes-preserve-unknown-fields` or
    /// `x-kubernetes-int-or-string`, and inside value validations.
    #[default]
    Unset,
    Object,
    Array,
    String,
    Integer,
    Number,
    Boolean,
}

impl SchemaType {
    fn parse(text: &str) -> SchemaType {
        match text {
            "object" => SchemaType::Object,
            "array" => SchemaType::Array,
            "string" => SchemaType::String,
            "integer" => SchemaType::Integer,
            "number" => SchemaType::Number,
            "boolean" => SchemaType::Boolean,
            _ => SchemaType::Unset,
        }
    }

    /// The keyword as written in the schema (`""` when unset).
    pub fn as_str(self) -> &'static str {
        match self {
            SchemaType::Unset => "",
            SchemaType::Object => "object",
            SchemaType::Array => "array",
            SchemaType::String => "string",
            SchemaType::Integer => "integer",
            SchemaType::Number => "number",
            SchemaType::Boolean => "boolean",
        }
    }
}

/// `x-kubernetes-list-type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListType {
    Atomic,
    Set,
    Map,
}

/// `x-kubernetes-map-type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapType {
    Atomic,
    Granular,
}

fn list_type(text: &str) -> Option<ListType> {
    match text {
        "atomic" => Some(ListType::Atomic),
        "set" => Some(ListType::Set),
        "map" => Some(ListType::Map),
        _ => None,
    }
}

fn map_type(text: &str) -> Option<MapType> {
    match text {
        "atomic" => Some(MapType::Atomic),
        "granular" => Some(MapType::Granular),
        _ => None,
    }
}

/// One JSON schema node as a CRD's `JSONSchemaProps` carries it. Absent numbers are
/// `None`, absent lists are empty and absent flags are `false`, so walks need no unwrapping.
#[derive(Clone, Debug, Default)]
pub struct Schema {
    pub type_: SchemaType,
    pub format: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub nullable: bool,
    pub default: Option<Value>,
    pub properties: BTreeMap<String, Schema>,
    pub additional_properties: Option<Additional>,
    pub items: Option<Box<Schema>>,
    pub required: Vec<String>,
    pub enum_: Vec<Value>,
    pub maximum: Option<f64>,
    pub exclusive_maximum: bool,
    pub minimum: Option<f64>,
    pub exclusive_minimum: bool,
    pub multiple_of: Option<f64>,
    pub max_length: Option<i64>,
    pub min_length: Option<i64>,
    pub max_items: Option<i64>,
    pub min_items: Option<i64>,
    pub unique_items: bool,
    pub max_properties: Option<i64>,
    pub min_properties: Option<i64>,
    pub pattern: Option<Pattern>,
    pub all_of: Vec<Schema>,
    pub any_of: Vec<Schema>,
    pub one_of: Vec<Schema>,
    pub not: Option<Box<Schema>>,
    pub preserve_unknown_fields: bool,
    pub embedded_resource: bool,
    pub int_or_string: bool,
    pub list_type: Option<ListType>,
    pub list_map_keys: Vec<String>,
    pub map_type: Option<MapType>,
    /// `x-kubernetes-validations` as written; compiled by the CEL layer.
    pub validations: Vec<Value>,
}

impl Schema {
    /// Parses a schema node. Unknown keywords are ignored; keywords of the wrong JSON type
    /// read as absent (CRDs are decoded into typed `JSONSchemaProps` before this runs).
    pub fn parse(value: &Value) -> Schema {
        let Some(map) = value.as_object() else {
            return Schema::default();
        };
        Schema {
            type_: SchemaType::parse(map.get("type").and_then(Value::as_str).unwrap_or_default()),
            format: string(map, "format").unwrap_or_default(),
            title: string(map, "title"),
            description: string(map, "description"),
            nullable: flag(map, "nullable"),
            default: map.get("default").cloned(),
            properties: map
                .get("properties")
                .and_then(Value::as_object)
                .map(|p| {
                    p.iter()
                        .map(|(k, v)| (k.clone(), Schema::parse(v)))
                        .collect()
                })
                .unwrap_or_default(),
            additional_properties: map.get("additionalProperties").and_then(additional),
            items: map.get("items").map(|v| Box::new(Schema::parse(v))),
            required: strings(map, "required"),
            enum_: map
                .get("enum")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default(),
            maximum: map.get("maximum").and_then(Value::as_f64),
            exclusive_maximum: flag(map, "exclusiveMaximum"),
            minimum: map.get("minimum").and_then(Value::as_f64),
            exclusive_minimum: flag(map, "exclusiveMinimum"),
            multiple_of: map.get("multipleOf").and_then(Value::as_f64),
            max_length: integer(map, "maxLength"),
            min_length: integer(map, "minLength"),
            max_items: integer(map, "maxItems"),
            min_items: integer(map, "minItems"),
            unique_items: flag(map, "uniqueItems"),
            max_properties: integer(map, "maxProperties"),
            min_properties: integer(map, "minProperties"),
            pattern: string(map, "pattern").map(|source| Pattern {
                regex: pattern::compile(&source),
                source,
            }),
            all_of: schemas(map, "allOf"),
            any_of: schemas(map, "anyOf"),
            one_of: schemas(map, "oneOf"),
            not: map.get("not").map(|v| Box::new(Schema::parse(v))),
            preserve_unknown_fields: flag(map, "x-kubernetes-preserve-unknown-fields"),
            embedded_resource: flag(map, "x-kubernetes-embedded-resource"),
            int_or_string: flag(map, "x-kubernetes-int-or-string"),
            list_type: map
                .get("x-kubernetes-list-type")
                .and_then(Value::as_str)
                .and_then(list_type),
            list_map_keys: strings(map, "x-kubernetes-list-map-keys"),
            map_type: map
                .get("x-kubernetes-map-type")
                .and_then(Value::as_str)
                .and_then(map_type),
            validations: map
                .get("x-kubernetes-validations")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default(),
        }
    }

    /// Calls `f` on this node and every node below it (properties, items,
    /// additionalProperties and the value validations' schemas).
    pub fn visit<'a>(&'a self, f: &mut impl FnMut(&'a Schema)) {
        f(self);
        let additional = match &self.additional_properties {
            Some(Additional::Schema(s)) => Some(s.as_ref()),
            _ => None,
        };
        let children = self
            .properties
            .values()
            .chain(self.items.as_deref())
            .chain(additional)
            .chain(&self.all_of)
            .chain(&self.any_of)
            .chain(&self.one_of)
            .chain(self.not.as_deref());
        for child in children {
            child.visit(f);
        }
    }

    /// Patterns Go accepts (the structural check passed) that the regex crate cannot
    /// compile even after translation: these are not enforced, so start-up warns.
    pub fn unenforced_patterns(&self) -> Vec<&str> {
        let mut out = Vec::new();
        self.visit(&mut |node| {
            if let Some(p) = node.pattern.as_ref().filter(|p| p.regex.is_none()) {
                out.push(p.source.as_str());
            }
        });
        out
    }

    /// Formats kube does not check for their node's type (kube warns about them when
    /// the definition is created and ignores them in validation).
    pub fn unrecognized_formats(&self) -> Vec<&str> {
        let mut out = Vec::new();
        self.visit(&mut |node| {
            if !node.format.is_empty() && !strfmt::is_recognized(node.type_.as_str(), &node.format)
            {
                out.push(node.format.as_str());
            }
        });
        out
    }

    /// The schema of the value under `key` of an object: its property, else the
    /// `additionalProperties` schema.
    pub fn property(&self, key: &str) -> Option<&Schema> {
        self.properties
            .get(key)
            .or(match &self.additional_properties {
                Some(Additional::Schema(s)) => Some(s),
                _ => None,
            })
    }
}

fn string(map: &Map<String, Value>, key: &str) -> Option<String> {
    map.get(key).and_then(Value::as_str).map(str::to_string)
}

fn flag(map: &Map<String, Value>, key: &str) -> bool {
    map.get(key).and_then(Value::as_bool).unwrap_or(false)
}

fn integer(map: &Map<String, Value>, key: &str) -> Option<i64> {
    map.get(key).and_then(Value::as_i64)
}

fn strings(map: &Map<String, Value>, key: &str) -> Vec<String> {
    map.get(key)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

fn schemas(map: &Map<String, Value>, key: &str) -> Vec<Schema> {
    map.get(key)
        .and_then(Value::as_array)
        .map(|a| a.iter().map(Schema::parse).collect())
        .unwrap_or_default()
}

fn additional(value: &Value) -> Option<Additional> {
    match value {
        Value::Bool(b) => Some(Additional::Allowed(*b)),
        Value::Object(_) => Some(Additional::Schema(Box::new(Schema::parse(value)))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parse_crontab_schema_reads_every_keyword() {
        let s = Schema::parse(&json!({
            "type": "object",
            "properties": {
                "spec": {
                    "type": "object",
                    "required": ["cronSpec"],
                    "properties": {
                        "cronSpec": {"type": "string", "pattern": "^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$"},
                        "replicas": {"type": "integer", "minimum": 1, "maximum": 10, "default": 1},
                        "tags": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"},
                        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                        "port": {"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}]}
                    }
                }
            }
        }));
        let spec = &s.properties["spec"];
        assert_eq!(spec.required, vec!["cronSpec"]);
        assert!(
            spec.properties["cronSpec"]
                .pattern
                .as_ref()
                .and_then(|p| p.regex.as_ref())
                .is_some()
        );
        assert_eq!(spec.properties["replicas"].maximum, Some(10.0));
        assert_eq!(spec.properties["replicas"].default, Some(json!(1)));
        assert_eq!(spec.properties["tags"].list_type, Some(ListType::Set));
        assert_eq!(
            spec.properties["labels"]
                .property("x")
                .map(|s| s.type_.as_str()),
            Some("string")
        );
        assert!(spec.properties["port"].int_or_string);
        assert_eq!(spec.properties["port"].any_of.len(), 2);
    }

    #[test]
    fn unenforced_patterns_lists_what_the_engine_cannot_compile() {
        // Go allows a capture name twice; the regex crate does not.
        let s = Schema::parse(&json!({"type": "object", "properties": {
            "a": {"type": "string", "pattern": "(?P<n>x)|(?P<n>y)"},
            "b": {"type": "array", "items": {"type": "string", "pattern": "^ok$"}}}}));
        assert_eq!(s.unenforced_patterns(), vec!["(?P<n>x)|(?P<n>y)"]);
    }

    #[test]
    fn unrecognized_formats_lists_formats_kube_ignores() {
        let s = Schema::parse(&json!({"type": "object", "properties": {
            "a": {"type": "string", "format": "email"},
            "b": {"type": "string", "format": "colour"},
            "c": {"type": "integer", "format": "int32"},
            "d": {"type": "integer", "format": "date"}}}));
        assert_eq!(s.unrecognized_formats(), vec!["colour", "date"]);
    }

    #[test]
    fn parse_bad_pattern_keeps_source_without_regex() {
        let s = Schema::parse(&json!({"type": "string", "pattern": "(["}));
        let p = s.pattern.unwrap();
        assert_eq!(p.source, "([");
        assert!(p.regex.is_none());
    }
}
