//! Sample objects of a version, generated from its structural schema for the start-up
//! proof: every property present (or only the required ones), values by enum, format
//! and type, each string its own field path and each number its own count (so a swap of
//! two fields shows), lists with one item, maps with one key, one unknown field where
//! unknown fields are kept.

use serde_json::{Map, Value};

use crate::schema::{Additional, Schema, SchemaType};

/// Which properties a sample holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Every property, one list item, one map key, one unknown field.
    Full,
    /// Only required properties; lists and maps empty.
    Required,
}

/// The key of the one map entry and of the unknown field of full samples.
pub const SAMPLE_KEY: &str = "sample";

/// A sample custom object of `group/version` (root fields from `schema`; `apiVersion`,
/// `kind` and `metadata` set here; full samples carry a label and an annotation).
pub fn object(schema: &Schema, shape: Shape, api_version: &str, kind: &str) -> Value {
    let mut generator = Generator { shape, count: 0 };
    let mut root = match generator.object(schema, "") {
        Value::Object(fields) => fields,
        _ => Map::new(),
    };
    root.insert("apiVersion".into(), Value::String(api_version.into()));
    root.insert("kind".into(), Value::String(kind.into()));
    let mut metadata = Map::new();
    metadata.insert("name".into(), Value::String(SAMPLE_KEY.into()));
    if shape == Shape::Full {
        let one = |k: &str, v: &str| Value::Object(Map::from_iter([(k.into(), v.into())]));
        metadata.insert("labels".into(), one(SAMPLE_KEY, "label"));
        metadata.insert("annotations".into(), one(SAMPLE_KEY, "annotation"));
    }
    root.insert("metadata".into(), Value::Object(metadata));
    Value::Object(root)
}

struct Generator {
    shape: Shape,
    count: u64,
}

impl Generator {
    fn value(&mut self, schema: &Schema, path: &str) -> Value {
        if schema.int_or_string {
            return Value::String(path.into());
        }
        if let Some(first) = schema.enum_.first() {
            return first.clone();
        }
        match schema.type_ {
            SchemaType::Object => self.object(schema, path),
            SchemaType::Array => self.array(schema, path),
            SchemaType::String => Value::String(string(schema, path)),
            SchemaType::Integer => Value::from(self.next()),
            SchemaType::Number => Value::from(self.next() as f64 + 0.5),
            SchemaType::Boolean => Value::Bool(true),
            SchemaType::Unset => self.object(schema, path),
        }
    }

    fn next(&mut self) -> u64 {
        self.count += 1;
        self.count
    }

    fn object(&mut self, schema: &Schema, path: &str) -> Value {
        let mut fields = Map::new();
        for (name, property) in &schema.properties {
            let root_owned =
                path.is_empty() && ["apiVersion", "kind", "metadata"].contains(&name.as_str());
            let wanted = self.shape == Shape::Full || schema.required.contains(name);
            if wanted && !root_owned {
                let value = self.value(property, &join(path, name));
                fields.insert(name.clone(), value);
            }
        }
        if self.shape == Shape::Required {
            return Value::Object(fields);
        }
        if let Some(Additional::Schema(values)) = &schema.additional_properties {
            let value = self.value(values, &join(path, SAMPLE_KEY));
            fields.insert(SAMPLE_KEY.into(), value);
        }
        if schema.preserve_unknown_fields && !fields.contains_key(SAMPLE_KEY) {
            let value = Value::String(join(path, SAMPLE_KEY));
            fields.insert(SAMPLE_KEY.into(), value);
        }
        Value::Object(fields)
    }

    fn array(&mut self, schema: &Schema, path: &str) -> Value {
        match (&schema.items, self.shape) {
            (Some(items), Shape::Full) => {
                let item = self.value(items, &format!("{path}[0]"));
                Value::Array(vec![item])
            }
            _ => Value::Array(Vec::new()),
        }
    }
}

/// A string of the schema's format, else the field's path.
fn string(schema: &Schema, path: &str) -> String {
    let fixed = match schema.format.as_str() {
        "date-time" | "datetime" => "2006-01-02T15:04:05Z",
        "date" => "2006-01-02",
        "duration" => "1h2m3s",
        "byte" => "c2FtcGxl",
        "uuid" | "uuid4" => "3f2b8c1e-7d4a-4b6e-9c0f-1a2b3c4d5e6f",
        "int-or-string" => "1",
        _ => return path.to_string(),
    };
    fixed.to_string()
}

fn join(path: &str, name: &str) -> String {
    match path {
        "" => name.to_string(),
        _ => format!("{path}.{name}"),
    }
}
