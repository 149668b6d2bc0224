//! Validation errors of typed values (`typed.ValidationError(s)`), with upstream's texts:
//! kube puts them in its messages ("failed to create typed patch object (...): <errors>").

use std::fmt;

use serde_json::Value;

use crate::gofmt;

/// One violation at a path written as upstream's path-element texts (`.spec.ports[port=80]`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValidationError {
    pub path: String,
    pub message: String,
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

/// Every violation found in one walk.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ValidationErrors(pub Vec<ValidationError>);

impl ValidationErrors {
    /// One error at the current path (upstream's `errorf`).
    pub fn one(message: impl Into<String>) -> ValidationErrors {
        ValidationErrors(vec![ValidationError {
            path: String::new(),
            message: message.into(),
        }])
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn extend(&mut self, other: ValidationErrors) {
        self.0.extend(other.0);
    }

    /// Prefixes every error's path with `prefix` (unwinding a descent).
    pub fn with_prefix(mut self, prefix: &dyn fmt::Display) -> ValidationErrors {
        if !self.0.is_empty() {
            let prefix = prefix.to_string();
            for e in &mut self.0 {
                e.path.insert_str(0, &prefix);
            }
        }
        self
    }

    /// `Ok(())` when empty.
    pub fn into_result(self) -> Result<(), ValidationErrors> {
        if self.0.is_empty() { Ok(()) } else { Err(self) }
    }
}

impl fmt::Display for ValidationErrors {
    /// One error alone; several as `errors:` followed by indented lines.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.as_slice() {
            [one] => write!(f, "{one}"),
            many => {
                f.write_str("errors:")?;
                for e in many {
                    write!(f, "\n  {e}")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for ValidationErrors {}

/// `%v` of an smd value (a pointer to a struct holding the unstructured value).
pub fn value_v(v: &Value) -> String {
    format!("&{{{}}}", gofmt::value_v(v))
}

/// `%#v` of an smd value.
pub fn value_sharp_v(v: &Value) -> String {
    format!("&value.valueUnstructured{{Value:{}}}", sharp_v(v))
}

/// Go's `%#v` of an unstructured value (keys sorted, as Go prints maps).
fn sharp_v(v: &Value) -> String {
    match v {
        Value::Null => "interface {}(nil)".to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => gofmt::Num::of(n).go(),
        Value::String(s) => gofmt::quote(s),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(sharp_v).collect();
            format!("[]interface {{}}{{{}}}", items.join(", "))
        }
        Value::Object(map) => {
            let entries: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{}:{}", gofmt::quote(k), sharp_v(v)))
                .collect();
            format!("map[string]interface {{}}{{{}}}", entries.join(", "))
        }
    }
}
