//! A schema rendered as Go's `json.Marshal` renders kube's internal `JSONSchemaProps` (Go
//! field names as keys, in declaration order, unset fields as zero values), which is how
//! kube prints a whole schema as the value of a field error.

use serde_json::Value;

use super::access::{get, object};
use crate::gofmt::{json_string, marshal_float64};

/// One `JSONSchemaProps` (`Value::Null` renders as a zero struct).
pub(super) fn schema(value: &Value) -> String {
    let mut fields = scalar_fields(value);
    fields.extend(structure_fields(value));
    structure(&fields)
}

fn text_field(value: &Value, key: &str) -> String {
    json_string(value.get(key).and_then(Value::as_str).unwrap_or(""))
}

fn flag_field(value: &Value, key: &str) -> String {
    let set = value.get(key).and_then(Value::as_bool).unwrap_or(false);
    set.to_string()
}

fn any_field(value: &Value, key: &str) -> String {
    get(value, key).map_or("null".to_string(), marshal_float64)
}

fn list_field(value: &Value, key: &str, render: fn(&Value) -> String) -> String {
    get(value, key)
        .and_then(Value::as_array)
        .map_or("null".to_string(), |a| array(a, render))
}

fn with_field(value: &Value, key: &str, render: fn(&Value) -> String) -> String {
    get(value, key).map_or("null".to_string(), render)
}

fn map_field(value: &Value, key: &str, render: fn(&Value) -> String) -> String {
    get(value, key).map_or("null".to_string(), |m| entries(m, render))
}

/// `ID` to `MultipleOf`.
fn scalar_fields(v: &Value) -> Vec<(&'static str, String)> {
    vec![
        ("ID", text_field(v, "id")),
        ("Schema", text_field(v, "$schema")),
        ("Ref", any_field(v, "$ref")),
        ("Description", text_field(v, "description")),
        ("Type", text_field(v, "type")),
        ("Nullable", flag_field(v, "nullable")),
        ("Format", text_field(v, "format")),
        ("Title", text_field(v, "title")),
        ("Default", any_field(v, "default")),
        ("Maximum", any_field(v, "maximum")),
        ("ExclusiveMaximum", flag_field(v, "exclusiveMaximum")),
        ("Minimum", any_field(v, "minimum")),
        ("ExclusiveMinimum", flag_field(v, "exclusiveMinimum")),
        ("MaxLength", any_field(v, "maxLength")),
        ("MinLength", any_field(v, "minLength")),
        ("Pattern", text_field(v, "pattern")),
        ("MaxItems", any_field(v, "maxItems")),
        ("MinItems", any_field(v, "minItems")),
        ("UniqueItems", flag_field(v, "uniqueItems")),
        ("MultipleOf", any_field(v, "multipleOf")),
    ]
}

/// `Enum` to `XValidations`.
fn structure_fields(v: &Value) -> Vec<(&'static str, String)> {
    vec![
        ("Enum", list_field(v, "enum", marshal_float64)),
        ("MaxProperties", any_field(v, "maxProperties")),
        ("MinProperties", any_field(v, "minProperties")),
        ("Required", list_field(v, "required", marshal_float64)),
        ("Items", with_field(v, "items", items)),
        ("AllOf", list_field(v, "allOf", schema)),
        ("OneOf", list_field(v, "oneOf", schema)),
        ("AnyOf", list_field(v, "anyOf", schema)),
        ("Not", with_field(v, "not", schema)),
        ("Properties", map_field(v, "properties", schema)),
        (
            "AdditionalProperties",
            with_field(v, "additionalProperties", or_bool),
        ),
        (
            "PatternProperties",
            map_field(v, "patternProperties", schema),
        ),
        ("Dependencies", map_field(v, "dependencies", or_strings)),
        ("AdditionalItems", with_field(v, "additionalItems", or_bool)),
        ("Definitions", map_field(v, "definitions", schema)),
        ("ExternalDocs", with_field(v, "externalDocs", external_docs)),
        ("Example", any_field(v, "example")),
        (
            "XPreserveUnknownFields",
            any_field(v, "x-kubernetes-preserve-unknown-fields"),
        ),
        (
            "XEmbeddedResource",
            flag_field(v, "x-kubernetes-embedded-resource"),
        ),
        ("XIntOrString", flag_field(v, "x-kubernetes-int-or-string")),
        (
            "XListMapKeys",
            list_field(v, "x-kubernetes-list-map-keys", marshal_float64),
        ),
        ("XListType", any_field(v, "x-kubernetes-list-type")),
        ("XMapType", any_field(v, "x-kubernetes-map-type")),
        (
            "XValidations",
            list_field(v, "x-kubernetes-validations", rule),
        ),
    ]
}

/// The list form of `items` as kube's internal `JSONSchemaPropsOrArray`.
pub(super) fn items_array(many: &[Value]) -> String {
    structure(&[
        ("Schema", "null".into()),
        ("JSONSchemas", array(many, schema)),
    ])
}

fn items(value: &Value) -> String {
    match value {
        Value::Array(many) => items_array(many),
        one => structure(&[("Schema", schema(one)), ("JSONSchemas", "null".into())]),
    }
}

fn or_bool(value: &Value) -> String {
    match value {
        Value::Bool(b) => structure(&[("Allows", b.to_string()), ("Schema", "null".into())]),
        one => structure(&[("Allows", "true".into()), ("Schema", schema(one))]),
    }
}

fn or_strings(value: &Value) -> String {
    match value {
        Value::Array(names) => structure(&[
            ("Schema", "null".into()),
            ("Property", array(names, marshal_float64)),
        ]),
        one => structure(&[("Schema", schema(one)), ("Property", "null".into())]),
    }
}

fn external_docs(value: &Value) -> String {
    structure(&[
        ("Description", text_field(value, "description")),
        ("URL", text_field(value, "url")),
    ])
}

fn rule(v: &Value) -> String {
    structure(&[
        ("Rule", text_field(v, "rule")),
        ("Message", text_field(v, "message")),
        ("MessageExpression", text_field(v, "messageExpression")),
        ("Reason", any_field(v, "reason")),
        ("FieldPath", text_field(v, "fieldPath")),
        ("OptionalOldSelf", any_field(v, "optionalOldSelf")),
    ])
}

fn structure(fields: &[(&str, String)]) -> String {
    let body: Vec<String> = fields.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
    format!("{{{}}}", body.join(","))
}

fn array(values: &[Value], render: fn(&Value) -> String) -> String {
    let body: Vec<String> = values.iter().map(render).collect();
    format!("[{}]", body.join(","))
}

fn entries(value: &Value, render: fn(&Value) -> String) -> String {
    let Some(map) = object(value) else {
        return "null".into();
    };
    let body: Vec<String> = map
        .iter()
        .map(|(k, v)| format!("{}:{}", json_string(k), render(v)))
        .collect();
    format!("{{{}}}", body.join(","))
}
