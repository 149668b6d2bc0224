//! The CRD table convertor: printer columns compiled at CRD load, turned into header and cells.

use serde_json::{Value, json};

use crate::gofmt;

use super::TableError;
use super::jsonpath::{Item, JsonPath};
use super::timestamp::{GoTime, human_readable_age};

/// `ObjectMeta.name`'s API documentation, the Name column's description upstream.
pub const NAME_DESCRIPTION: &str = "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";

/// `ObjectMeta.creationTimestamp`'s API documentation, the Age column's description upstream.
pub const CREATION_TIMESTAMP_DESCRIPTION: &str = "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

/// One printer column as declared in a CRD version's `additionalPrinterColumns`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PrinterColumn {
    pub name: String,
    pub type_: String,
    pub format: String,
    pub description: String,
    pub priority: i32,
    pub json_path: String,
}

impl PrinterColumn {
    /// The Age column served when a version declares no printer columns
    /// (`serveDefaultColumnsIfEmpty`), and the last column of the scale table.
    pub fn age() -> PrinterColumn {
        PrinterColumn {
            name: "Age".to_owned(),
            type_: "date".to_owned(),
            description: CREATION_TIMESTAMP_DESCRIPTION.to_owned(),
            json_path: ".metadata.creationTimestamp".to_owned(),
            ..PrinterColumn::default()
        }
    }

    fn integer(name: &str, description: &str, json_path: &str) -> PrinterColumn {
        PrinterColumn {
            name: name.to_owned(),
            type_: "integer".to_owned(),
            description: description.to_owned(),
            json_path: json_path.to_owned(),
            ..PrinterColumn::default()
        }
    }
}

/// A column definition as served in `columnDefinitions`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Header {
    name: String,
    type_: String,
    format: String,
    description: String,
    priority: i32,
}

/// A declared column's compiled JSONPath and type.
#[derive(Debug, Clone)]
struct Column {
    type_: String,
    path: JsonPath,
}

/// Column definitions plus parsed JSONPaths for one served CRD version.
#[derive(Debug, Clone)]
pub struct TableConvertor {
    headers: Vec<Header>,
    columns: Vec<Column>,
}

impl TableConvertor {
    /// Compiles a version's printer columns; no columns means the default Age column. Fails
    /// on the first JSONPath that does not parse, naming its column.
    pub fn new(columns: &[PrinterColumn]) -> Result<TableConvertor, TableError> {
        match TableConvertor::new_or_fallback(columns) {
            (convertor, None) => Ok(convertor),
            (_, Some(error)) => Err(error),
        }
    }

    /// Upstream's serving behaviour: on a bad JSONPath the error is only logged and the
    /// convertor keeps Name plus the columns before the bad one.
    pub fn new_or_fallback(columns: &[PrinterColumn]) -> (TableConvertor, Option<TableError>) {
        let age = [PrinterColumn::age()];
        let columns = if columns.is_empty() {
            &age[..]
        } else {
            columns
        };
        let mut convertor = TableConvertor {
            headers: vec![Header {
                name: "Name".to_owned(),
                type_: "string".to_owned(),
                format: "name".to_owned(),
                description: NAME_DESCRIPTION.to_owned(),
                priority: 0,
            }],
            columns: Vec::with_capacity(columns.len()),
        };
        for column in columns {
            let path = match JsonPath::parse(&format!("{{{}}}", column.json_path)) {
                Ok(path) => path,
                Err(error) => {
                    let error = TableError::ColumnJsonPath {
                        column: column.name.clone(),
                        json_path: column.json_path.clone(),
                        error,
                    };
                    return (convertor, Some(error));
                }
            };
            let description = if column.description.is_empty() {
                format!(
                    "Custom resource definition column (in JSONPath format): {}",
                    column.json_path
                )
            } else {
                column.description.clone()
            };
            convertor.headers.push(Header {
                name: column.name.clone(),
                type_: column.type_.clone(),
                format: column.format.clone(),
                description,
                priority: column.priority,
            });
            convertor.columns.push(Column {
                type_: column.type_.clone(),
                path,
            });
        }
        (convertor, None)
    }

    /// The table of the `/scale` subresource: Desired and Available when the version's scale
    /// subresource declares the spec and status replica paths, then Age.
    pub fn for_scale(spec_replicas_path: bool, status_replicas_path: bool) -> TableConvertor {
        let mut columns = Vec::new();
        if spec_replicas_path {
            columns.push(PrinterColumn::integer(
                "Desired",
                "Number of desired replicas",
                ".spec.replicas",
            ));
        }
        if status_replicas_path {
            columns.push(PrinterColumn::integer(
                "Available",
                "Number of actual replicas",
                ".status.replicas",
            ));
        }
        columns.push(PrinterColumn::age());
        TableConvertor::new_or_fallback(&columns).0
    }

    /// The `columnDefinitions` array: Name, then the declared (or default) columns.
    pub fn column_definitions(&self) -> Value {
        self.headers
            .iter()
            .map(|h| {
                json!({
                    "name": h.name,
                    "type": h.type_,
                    "format": h.format,
                    "description": h.description,
                    "priority": h.priority,
                })
            })
            .collect()
    }

    /// One row's cells: the object's name, then one cell per column (null when the JSONPath
    /// finds nothing, fails, or the value does not fit the column type).
    pub fn cells(&self, object: &Value, now: jiff::Timestamp) -> Vec<Value> {
        let name = object
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let mut cells = Vec::with_capacity(1 + self.columns.len());
        cells.push(Value::String(name.to_owned()));
        for column in &self.columns {
            cells.push(match column.path.first(object) {
                None => Value::Null,
                Some(item) if column.type_ == "string" => Value::String(item.print()),
                Some(item) => cell_for_json_value(&column.type_, item, now),
            });
        }
        cells
    }
}

/// Upstream's `cellForJSONValue`: converts a found value to the column's type, else null.
fn cell_for_json_value(column_type: &str, item: Item<'_>, now: jiff::Timestamp) -> Value {
    match (column_type, item) {
        ("integer", Item::Json(Value::Number(n))) => match n.as_i64() {
            Some(i) => Value::from(i),
            None => Value::from(gofmt::f64_to_i64(n.as_f64().unwrap_or(0.0))),
        },
        ("integer", Item::Float(f)) => Value::from(gofmt::f64_to_i64(f)),
        ("number", Item::Json(Value::Number(n))) => float_cell(n.as_f64().unwrap_or(0.0)),
        ("number", Item::Float(f)) => float_cell(f),
        ("boolean", Item::Json(Value::Bool(b))) => Value::Bool(*b),
        ("boolean", Item::Bool(b)) => Value::Bool(b),
        ("string", Item::Json(Value::String(s))) => Value::String(s.clone()),
        ("string", Item::Text(s)) => Value::String(s.to_owned()),
        ("date", Item::Json(Value::String(s))) => date_cell(s, now),
        ("date", Item::Text(s)) => date_cell(s, now),
        _ => Value::Null,
    }
}

/// A `date` column: the age of an RFC 3339 timestamp, `<unknown>` for the zero time,
/// `<invalid>` when it does not parse.
fn date_cell(text: &str, now: jiff::Timestamp) -> Value {
    Value::String(match GoTime::from_query_parameter(text) {
        Some(time) => human_readable_age(time, now),
        None => "<invalid>".to_owned(),
    })
}

/// A float64 cell, written as Go's `encoding/json` would: integral values without a fraction.
fn float_cell(value: f64) -> Value {
    const LIMIT: f64 = 9_223_372_036_854_775_808.0; // 2^63
    let negative_zero = value == 0.0 && value.is_sign_negative();
    if value.fract() == 0.0 && (-LIMIT..LIMIT).contains(&value) && !negative_zero {
        return Value::from(value as i64);
    }
    serde_json::Number::from_f64(value).map_or(Value::Null, Value::Number)
}
