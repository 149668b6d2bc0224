//! A field path of the declarative annotation: names into nested objects separated by
//! dots (`spec.paint.color`); a name holding dots, slashes or brackets is written in
//! brackets, quoted or not (`metadata.annotations['example.com/color']`). Paths name
//! object fields and map keys only: they never go into list items.

use serde_json::{Map, Value};

/// A parsed path, one name per segment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldPath(Vec<String>);

impl FieldPath {
    /// Parses `text`; the error says what is wrong, without the path (callers quote it).
    pub fn parse(text: &str) -> Result<FieldPath, String> {
        let mut segments = Vec::new();
        let mut rest = text.strip_prefix('.').unwrap_or(text);
        if rest.is_empty() {
            return Err("the path is empty".to_string());
        }
        loop {
            let (segment, after) = match rest.strip_prefix('[') {
                Some(inner) => bracketed(inner)?,
                None => plain(rest)?,
            };
            segments.push(segment);
            rest = match after.strip_prefix('.') {
                Some("") => return Err("the path ends with a dot".to_string()),
                Some(next) => next,
                None if after.starts_with('[') => after,
                None if after.is_empty() => return Ok(FieldPath(segments)),
                None => return Err(format!("unexpected {:?} after a name", after)),
            };
        }
    }

    /// A path of these names.
    pub fn from_segments(names: &[String]) -> FieldPath {
        FieldPath(names.to_vec())
    }

    pub fn segments(&self) -> &[String] {
        &self.0
    }

    /// The value at the path, if every segment is there.
    pub fn get<'v>(&self, object: &'v Value) -> Option<&'v Value> {
        self.0
            .iter()
            .try_fold(object, |v, name| v.as_object()?.get(name))
    }

    /// Removes the value at the path and returns it (parents are left as they are).
    pub fn take(&self, object: &mut Value) -> Option<Value> {
        let (last, parents) = self.0.split_last()?;
        let mut node = object;
        for name in parents {
            node = node.as_object_mut()?.get_mut(name)?;
        }
        node.as_object_mut()?.remove(last)
    }

    /// Sets the value at the path, making the missing parents (a parent that is not an
    /// object, such as `null`, becomes an empty object).
    pub fn set(&self, object: &mut Value, value: Value) {
        set_in(object, &self.0, value);
    }
}

fn set_in(node: &mut Value, path: &[String], value: Value) {
    let Some((first, rest)) = path.split_first() else {
        *node = value;
        return;
    };
    if !node.is_object() {
        *node = Value::Object(Map::new());
    }
    if let Value::Object(map) = node {
        set_in(map.entry(first.clone()).or_insert(Value::Null), rest, value);
    }
}

/// A name up to the next `.` or `[`.
fn plain(text: &str) -> Result<(String, &str), String> {
    let end = text.find(['.', '[', ']']).unwrap_or(text.len());
    if end == 0 {
        return Err(match text.chars().next() {
            Some('.') => "the path has an empty name (two dots)".to_string(),
            _ => format!("unexpected {:?}", text),
        });
    }
    if text[end..].starts_with(']') {
        return Err("unexpected \"]\"".to_string());
    }
    Ok((text[..end].to_string(), &text[end..]))
}

/// A bracketed name, `['x']`, `["x"]` or `[x]`, after its `[`.
fn bracketed(text: &str) -> Result<(String, &str), String> {
    let (name, after) = match text.chars().next() {
        Some(quote @ ('\'' | '"')) => {
            let inner = &text[1..];
            let close = inner
                .find(quote)
                .ok_or_else(|| format!("unterminated {quote} in brackets"))?;
            let after = inner[close + 1..]
                .strip_prefix(']')
                .ok_or_else(|| "expected \"]\" after the quoted name".to_string())?;
            (&inner[..close], after)
        }
        _ => {
            let close = text
                .find(']')
                .ok_or_else(|| "unterminated \"[\"".to_string())?;
            (&text[..close], &text[close + 1..])
        }
    };
    if name.is_empty() {
        return Err("the path has an empty name in brackets".to_string());
    }
    Ok((name.to_string(), after))
}

impl std::fmt::Display for FieldPath {
    /// The canonical spelling: plain names dotted, other names in `['...']`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, name) in self.0.iter().enumerate() {
            if name.contains('\'') {
                write!(f, "[\"{name}\"]")?;
            } else if name.contains(['.', '[', ']', '"', '/']) {
                write!(f, "['{name}']")?;
            } else if i == 0 {
                f.write_str(name)?;
            } else {
                write!(f, ".{name}")?;
            }
        }
        Ok(())
    }
}
