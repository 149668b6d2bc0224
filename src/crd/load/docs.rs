//! Manifest text into documents (a YAML stream split as kubectl splits it, or a JSON
//! stream), and documents into typed definitions with field paths in every message.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use serde_json::Value;

use super::FileError;

/// Deserialization attempts spent on finding where a type error sits.
const LOCATE_BUDGET: usize = 500;

/// The documents of one file in order; empty documents come back as `Value::Null`.
///
/// Like kubectl's `YAMLOrJSONDecoder`, text whose first non-space character is `{` is a
/// JSON stream (falling back to YAML when it is not valid JSON); anything else is YAML
/// split on lines starting with `---`.
pub(super) fn documents(text: &str) -> Vec<Result<Value, FileError>> {
    if text.trim_start().starts_with('{') {
        let json = json_documents(text);
        let first_failed = matches!(json.first(), Some(Err(_)));
        if !first_failed {
            return json;
        }
        let yaml = yaml_documents(text);
        if yaml.iter().all(Result::is_ok) {
            return yaml;
        }
        return json;
    }
    yaml_documents(text)
}

fn json_documents(text: &str) -> Vec<Result<Value, FileError>> {
    let mut out = Vec::new();
    for item in serde_json::Deserializer::from_str(text).into_iter::<Value>() {
        match item {
            Ok(value) => out.push(Ok(value)),
            Err(err) => {
                out.push(Err(FileError::Json(err)));
                break;
            }
        }
    }
    out
}

fn yaml_documents(text: &str) -> Vec<Result<Value, FileError>> {
    let mut out = Vec::new();
    for chunk in yaml_chunks(text) {
        match chunk {
            Ok((first_line, body)) => out.push(parse_yaml(first_line, &body)),
            Err(err) => {
                out.push(Err(err));
                break;
            }
        }
    }
    out
}

/// Splits a YAML stream as apimachinery's `YAMLReader` does: a line starting with `---`
/// ends a document; only spaces or a comment may follow the marker; separators with no
/// content before them start no document. Each chunk carries its first line number.
fn yaml_chunks(text: &str) -> Vec<Result<(usize, String), FileError>> {
    let mut chunks = Vec::new();
    let mut body = String::new();
    let mut first_line = 1;
    for (index, line) in text.split_inclusive('\n').enumerate() {
        if let Some(rest) = line.strip_prefix("---") {
            if !body.is_empty() {
                chunks.push(Ok((first_line, std::mem::take(&mut body))));
            }
            let rest = rest.trim();
            if !rest.is_empty() && !rest.starts_with('#') {
                chunks.push(Err(FileError::Separator {
                    line: index + 1,
                    rest: rest.to_string(),
                }));
                return chunks;
            }
            continue;
        }
        if body.is_empty() {
            first_line = index + 1;
        }
        body.push_str(line);
    }
    if !body.is_empty() {
        chunks.push(Ok((first_line, body)));
    }
    chunks
}

/// One YAML document; blank lines are prepended so that messages give file line numbers.
fn parse_yaml(first_line: usize, body: &str) -> Result<Value, FileError> {
    let mut padded = "\n".repeat(first_line.saturating_sub(1));
    padded.push_str(body);
    let options = serde_saphyr::options! {
        with_snippet: false,
        legacy_octal_numbers: true,
    };
    serde_saphyr::from_str_with_options::<Option<Value>>(&padded, options)
        .map(Option::unwrap_or_default)
        .map_err(FileError::Yaml)
}

/// The typed definition, or one message per problem: a type error at its field path, or
/// each field outside `status` the type does not know (kube's strict decoding rejects those).
pub(super) fn decode_crd(value: Value) -> Result<CustomResourceDefinition, Vec<String>> {
    let crd = match serde_json::from_value::<CustomResourceDefinition>(value.clone()) {
        Ok(crd) => crd,
        Err(err) => {
            let message = err.to_string();
            let path = locate(&value, &message);
            return Err(vec![with_path(&path, &message)]);
        }
    };
    let round_trip = serde_json::to_value(&crd).map_err(|e| vec![e.to_string()])?;
    let mut unknown = Vec::new();
    unknown_fields(&value, &round_trip, &mut Vec::new(), &mut unknown);
    // kube resets status on create, so fields of newer versions there are harmless.
    unknown.retain(|path| !path.starts_with("status."));
    if unknown.is_empty() {
        return Ok(crd);
    }
    Err(unknown
        .iter()
        .map(|path| with_path(path, &format!("unknown field {path:?}")))
        .collect())
}

fn with_path(path: &str, message: &str) -> String {
    if path.is_empty() {
        message.to_string()
    } else {
        format!("{path}: {message}")
    }
}

#[derive(Clone, Debug)]
enum Segment {
    Key(String),
    Index(usize),
}

fn render(path: &[Segment]) -> String {
    let mut out = String::new();
    for segment in path {
        match segment {
            Segment::Key(key) if out.is_empty() => out.push_str(key),
            Segment::Key(key) => {
                out.push('.');
                out.push_str(key);
            }
            Segment::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// Fields present (and not null) in the input that did not survive a typed round trip.
fn unknown_fields(input: &Value, typed: &Value, path: &mut Vec<Segment>, out: &mut Vec<String>) {
    match (input, typed) {
        (Value::Object(input), Value::Object(typed)) => {
            for (key, value) in input.iter().filter(|(_, v)| !v.is_null()) {
                path.push(Segment::Key(key.clone()));
                match typed.get(key) {
                    Some(kept) => unknown_fields(value, kept, path, out),
                    None => out.push(render(path)),
                }
                path.pop();
            }
        }
        (Value::Array(input), Value::Array(typed)) => {
            for (i, (value, kept)) in input.iter().zip(typed).enumerate() {
                path.push(Segment::Index(i));
                unknown_fields(value, kept, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

/// Finds the field a type error belongs to: descend into the child whose removal makes
/// the same error go away. serde reports no path for `from_value` errors.
fn locate(value: &Value, message: &str) -> String {
    let mut path: Vec<Segment> = Vec::new();
    let mut budget = LOCATE_BUDGET;
    while let Some(child) = culprit_child(value, &path, message, &mut budget) {
        path.push(child);
    }
    render(&path)
}

/// The child of the node at `path` whose removal makes the error go away, if any.
fn culprit_child(
    value: &Value,
    path: &[Segment],
    message: &str,
    budget: &mut usize,
) -> Option<Segment> {
    for child in children(node_at(value, path)?) {
        if *budget == 0 {
            return None;
        }
        *budget -= 1;
        let mut trial = value.clone();
        remove_child(&mut trial, path, &child);
        if !fails_with(trial, message) {
            return Some(child);
        }
    }
    None
}

fn fails_with(value: Value, message: &str) -> bool {
    matches!(
        serde_json::from_value::<CustomResourceDefinition>(value),
        Err(err) if err.to_string() == message
    )
}

fn children(node: &Value) -> Vec<Segment> {
    match node {
        Value::Object(map) => map.keys().cloned().map(Segment::Key).collect(),
        Value::Array(items) => (0..items.len()).map(Segment::Index).collect(),
        _ => Vec::new(),
    }
}

fn node_at<'a>(value: &'a Value, path: &[Segment]) -> Option<&'a Value> {
    path.iter().try_fold(value, |node, segment| match segment {
        Segment::Key(key) => node.get(key),
        Segment::Index(i) => node.get(i),
    })
}

fn node_at_mut<'a>(value: &'a mut Value, path: &[Segment]) -> Option<&'a mut Value> {
    path.iter().try_fold(value, |node, segment| match segment {
        Segment::Key(key) => node.get_mut(key),
        Segment::Index(i) => node.get_mut(i),
    })
}

fn remove_child(value: &mut Value, path: &[Segment], child: &Segment) {
    match (node_at_mut(value, path), child) {
        (Some(Value::Object(map)), Segment::Key(key)) => {
            map.remove(key);
        }
        (Some(Value::Array(items)), Segment::Index(i)) if *i < items.len() => {
            items.remove(*i);
        }
        _ => {}
    }
}
