//! `metav1.ManagedFieldsEntry` read from and written to an object's
//! `metadata.managedFields`, as kube's unstructured accessors do.

use jiff::Timestamp;
use serde_json::{Map, Value};

/// `metav1.ManagedFieldsOperationType`.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum Operation {
    Apply,
    Update,
    /// Anything else a client sent (`""` when missing); rejected by decoding.
    Other(String),
    #[default]
    Missing,
}

impl Operation {
    pub fn parse(s: &str) -> Operation {
        match s {
            "Apply" => Operation::Apply,
            "Update" => Operation::Update,
            "" => Operation::Missing,
            other => Operation::Other(other.to_string()),
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            Operation::Apply => "Apply",
            Operation::Update => "Update",
            Operation::Other(s) => s,
            Operation::Missing => "",
        }
    }
}

/// One `managedFields` item. Empty strings stand for unset (the Go fields are
/// `omitempty`); `time` keeps what the client sent, to the nanosecond, and writes whole
/// seconds in UTC.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ManagedFieldsEntry {
    pub manager: String,
    pub operation: Operation,
    pub api_version: String,
    pub time: Option<Timestamp>,
    pub fields_type: String,
    pub fields_v1: Option<Value>,
    pub subresource: String,
}

impl ManagedFieldsEntry {
    /// `runtime.DefaultUnstructuredConverter.FromUnstructured` of one item: an object
    /// whose known fields have the right types (`null` reads as unset); other keys are
    /// ignored.
    pub fn from_value(item: &Value) -> Result<ManagedFieldsEntry, String> {
        let Value::Object(map) = item else {
            return Err(format!("item {item} is not a map"));
        };
        let text = |key: &str| -> Result<String, String> {
            match map.get(key) {
                None | Some(Value::Null) => Ok(String::new()),
                Some(Value::String(s)) => Ok(s.clone()),
                Some(other) => Err(format!("{key}: expected string, got {other}")),
            }
        };
        let time = match map.get("time") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(parse_time(s)?),
            Some(other) => Err(format!("time: expected string, got {other}"))?,
        };
        Ok(ManagedFieldsEntry {
            manager: text("manager")?,
            operation: Operation::parse(&text("operation")?),
            api_version: text("apiVersion")?,
            time,
            fields_type: text("fieldsType")?,
            fields_v1: map.get("fieldsV1").filter(|v| !v.is_null()).cloned(),
            subresource: text("subresource")?,
        })
    }

    /// The item as `SetManagedFields` stores it: unset fields omitted, the time as
    /// RFC 3339 in UTC to the second.
    pub fn to_value(&self) -> Value {
        let mut map = Map::new();
        let mut put = |key: &str, s: &str| {
            if !s.is_empty() {
                map.insert(key.to_string(), Value::String(s.to_string()));
            }
        };
        put("manager", &self.manager);
        put("operation", self.operation.as_str());
        put("apiVersion", &self.api_version);
        if let Some(t) = self.time {
            put("time", &format_time(t));
        }
        put("fieldsType", &self.fields_type);
        put("subresource", &self.subresource);
        if let Some(f) = &self.fields_v1 {
            map.insert("fieldsV1".to_string(), f.clone());
        }
        Value::Object(map)
    }
}

/// Go's `time.Parse(time.RFC3339, s)`.
pub fn parse_time(s: &str) -> Result<Timestamp, String> {
    s.parse::<Timestamp>()
        .map_err(|e| format!("parsing time {}: {e}", crate::gofmt::quote(s)))
}

/// `metav1.Time` on the wire: RFC 3339, UTC, whole seconds.
pub fn format_time(t: Timestamp) -> String {
    t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// Go's `Time.Unix()`: whole seconds, rounded toward negative infinity.
pub fn unix_seconds(t: Timestamp) -> i64 {
    let s = t.as_second();
    if t.subsec_nanosecond() < 0 { s - 1 } else { s }
}

/// `Unstructured.GetManagedFields`: `None` when `metadata.managedFields` is missing, not
/// a list, or any item fails to convert (kube then treats the object as having none);
/// `Some(vec![])` for an empty list (which asks for a reset).
pub fn entries_of(object: &Value) -> Option<Vec<ManagedFieldsEntry>> {
    let items = object.get("metadata")?.get("managedFields")?.as_array()?;
    items
        .iter()
        .map(|item| ManagedFieldsEntry::from_value(item).ok())
        .collect()
}

/// `Unstructured.SetManagedFields`: an empty or absent list removes the field.
pub fn set_entries(object: &mut Value, entries: &[ManagedFieldsEntry]) {
    let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) else {
        return;
    };
    if entries.is_empty() {
        meta.remove("managedFields");
    } else {
        let items = entries.iter().map(ManagedFieldsEntry::to_value).collect();
        meta.insert("managedFields".to_string(), Value::Array(items));
    }
}
