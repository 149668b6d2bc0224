//! Loading CustomResourceDefinition manifests (YAML or JSON files and directories) at start-up,
//! with every problem of every file reported at once.

use std::io::Read;
use std::path::{Path, PathBuf};

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use serde_json::Value;

mod docs;
#[cfg(test)]
mod tests;

/// Files larger than this are refused.
pub const MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;

/// File extensions picked up from a directory, as `kubectl apply -f <dir>` does.
const EXTENSIONS: [&str; 3] = ["json", "yaml", "yml"];

const CRD_API_VERSION: &str = "apiextensions.k8s.io/v1";
const CRD_KIND: &str = "CustomResourceDefinition";

/// One definition and where it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadedCrd {
    /// `path/file.yaml (document 2)`; list items add `, items[0]`.
    pub source: String,
    pub crd: CustomResourceDefinition,
}

/// One problem with a manifest, printed `<source> <object name>: <message>`.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    /// The file, with the document when the problem is inside one.
    pub source: String,
    /// `metadata.name` of the object, empty when unknown.
    pub object: String,
    /// `<field path>: <problem>` or a file-level problem.
    pub message: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.object.is_empty() {
            write!(f, "{}: {}", self.source, self.message)
        } else {
            write!(f, "{} {}: {}", self.source, self.object, self.message)
        }
    }
}

/// Every problem found while loading or checking definitions, one per line.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LoadErrors {
    pub problems: Vec<Problem>,
}

impl LoadErrors {
    fn push(&mut self, source: &str, object: &str, message: impl Into<String>) {
        self.problems.push(Problem {
            source: source.to_string(),
            object: object.to_string(),
            message: message.into(),
        });
    }
}

impl std::fmt::Display for LoadErrors {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let lines: Vec<String> = self.problems.iter().map(Problem::to_string).collect();
        f.write_str(&lines.join("\n"))
    }
}

impl std::error::Error for LoadErrors {}

/// A file that yields no further documents; becomes a file-level [`Problem`].
#[derive(Debug, thiserror::Error)]
enum FileError {
    /// The file could not be opened or read.
    #[error("{0}")]
    Read(std::io::Error),
    /// The file is over [`MAX_FILE_BYTES`].
    #[error("file is larger than the limit of {MAX_FILE_BYTES} bytes")]
    TooLarge,
    /// The file's bytes are not UTF-8 text.
    #[error("file is not valid UTF-8")]
    NotUtf8,
    /// A JSON stream stops being valid JSON; documents before it were read.
    #[error("invalid JSON: {0}")]
    Json(serde_json::Error),
    /// A line starting with `---` has more than a comment after the marker.
    #[error("invalid YAML document separator at line {line}: {rest}")]
    Separator { line: usize, rest: String },
    /// A YAML document does not parse.
    #[error("invalid YAML: {0}")]
    Yaml(serde_saphyr::Error),
}

/// Loads every definition from files and directories (a directory contributes its
/// `*.json`, `*.yaml` and `*.yml` files, sorted by name, not recursing).
pub fn load_paths(paths: &[PathBuf]) -> Result<Vec<LoadedCrd>, LoadErrors> {
    let mut crds = Vec::new();
    let mut errors = LoadErrors::default();
    for path in paths {
        for file in expand(path, &mut errors) {
            let source = file.display().to_string();
            match read_bounded(&file) {
                Ok(text) => load_text(&source, &text, &mut crds, &mut errors),
                Err(err) => errors.push(&source, "", err.to_string()),
            }
        }
    }
    finish(crds, errors)
}

/// Loads every definition from one file's text; `source` names it in problems.
pub fn load_str(source: &str, text: &str) -> Result<Vec<LoadedCrd>, LoadErrors> {
    let mut crds = Vec::new();
    let mut errors = LoadErrors::default();
    load_text(source, text, &mut crds, &mut errors);
    finish(crds, errors)
}

fn finish(crds: Vec<LoadedCrd>, errors: LoadErrors) -> Result<Vec<LoadedCrd>, LoadErrors> {
    if errors.problems.is_empty() {
        Ok(crds)
    } else {
        Err(errors)
    }
}

/// A path as the files it stands for.
fn expand(path: &Path, errors: &mut LoadErrors) -> Vec<PathBuf> {
    let source = path.display().to_string();
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            errors.push(&source, "", format!("the path {source:?} does not exist"));
            return Vec::new();
        }
        Err(err) => {
            errors.push(&source, "", err.to_string());
            return Vec::new();
        }
    };
    if !meta.is_dir() {
        return vec![path.to_path_buf()];
    }
    let entries = match std::fs::read_dir(path) {
        Ok(entries) => entries,
        Err(err) => {
            errors.push(&source, "", err.to_string());
            return Vec::new();
        }
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && has_manifest_extension(p))
        .collect();
    files.sort();
    if files.is_empty() {
        errors.push(
            &source,
            "",
            "no manifests found: recognized file extensions are [.json .yaml .yml]",
        );
    }
    files
}

fn has_manifest_extension(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| EXTENSIONS.contains(&e))
}

fn read_bounded(path: &Path) -> Result<String, FileError> {
    let file = std::fs::File::open(path).map_err(FileError::Read)?;
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(FileError::Read)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(FileError::TooLarge);
    }
    String::from_utf8(bytes).map_err(|_| FileError::NotUtf8)
}

fn load_text(file: &str, text: &str, crds: &mut Vec<LoadedCrd>, errors: &mut LoadErrors) {
    for (index, document) in docs::documents(text).into_iter().enumerate() {
        let source = format!("{file} (document {})", index + 1);
        match document {
            Ok(value) => collect(&source, value, true, crds, errors),
            Err(err) => errors.push(&source, "", err.to_string()),
        }
    }
}

/// One document: a definition, a list of them, or nothing.
fn collect(
    source: &str,
    value: Value,
    allow_list: bool,
    crds: &mut Vec<LoadedCrd>,
    errors: &mut LoadErrors,
) {
    if value.is_null() {
        return;
    }
    let name = object_name(&value);
    let Value::Object(fields) = &value else {
        errors.push(
            source,
            "",
            format!("expected an object, found {}", type_name(&value)),
        );
        return;
    };
    let api_version = fields
        .get("apiVersion")
        .and_then(Value::as_str)
        .unwrap_or("");
    let kind = fields.get("kind").and_then(Value::as_str).unwrap_or("");
    match (api_version, kind) {
        (CRD_API_VERSION, CRD_KIND) => match docs::decode_crd(value) {
            Ok(crd) => crds.push(LoadedCrd {
                source: source.to_string(),
                crd,
            }),
            Err(messages) => {
                for message in messages {
                    errors.push(source, &name, message);
                }
            }
        },
        ("v1", "List") | (CRD_API_VERSION, "CustomResourceDefinitionList") if allow_list => {
            collect_items(source, &name, &value, crds, errors);
        }
        _ => errors.push(source, &name, unexpected_kind(api_version, kind)),
    }
}

fn collect_items(
    source: &str,
    name: &str,
    list: &Value,
    crds: &mut Vec<LoadedCrd>,
    errors: &mut LoadErrors,
) {
    match list.get("items") {
        None | Some(Value::Null) => {}
        Some(Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                let stem = source.strip_suffix(')').unwrap_or(source);
                let item_source = format!("{stem}, items[{i}])");
                collect(&item_source, item.clone(), false, crds, errors);
            }
        }
        Some(other) => errors.push(
            source,
            name,
            format!("items: expected an array, found {}", type_name(other)),
        ),
    }
}

fn unexpected_kind(api_version: &str, kind: &str) -> String {
    let hint = if api_version == "apiextensions.k8s.io/v1beta1" {
        " (apiextensions.k8s.io/v1beta1 was removed in Kubernetes 1.22; use apiextensions.k8s.io/v1)"
    } else {
        ""
    };
    format!(
        "expected apiVersion {CRD_API_VERSION:?} kind {CRD_KIND:?}, found apiVersion {api_version:?} kind {kind:?}{hint}"
    )
}

fn object_name(value: &Value) -> String {
    value
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string()
}

/// How a JSON value's type is named in messages.
pub(crate) fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
