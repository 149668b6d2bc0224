//! ObjectMeta validation of an embedded resource's `metadata`, as apiextensions runs it:
//! decoded into ObjectMeta first (a type mismatch is one error on `metadata`), then
//! `ValidateObjectMeta` on create with path-segment name rules, a namespace only checked
//! when set, and an empty name allowed.

use serde_json::{Map, Value};

use super::embedded::invalid;
use super::sink::{Errors, LazyPath};
use crate::error::{ErrorType, FieldError};
use crate::gofmt::{field_value, marshal, quote};
use crate::selector::label::{label_key_errors, label_value_errors};
use crate::validation::is_dns1123_label;

/// kube's limit on the total size of annotations (keys plus values, in bytes).
const TOTAL_ANNOTATION_SIZE_LIMIT: usize = 256 * 1024;

/// Validates `meta` found at field path `path` (e.g. `spec.template.metadata`).
pub(super) fn check(path: &LazyPath, meta: &Value, out: &mut Errors) {
    let map = match meta {
        Value::Null => return,
        Value::Object(map) => map,
        other => {
            let detail = format!(
                "json: cannot unmarshal {} into Go value of type v1.ObjectMeta",
                json_kind(other)
            );
            out.push(invalid(
                path.get().to_string(),
                &field_value(other),
                &detail,
            ));
            return;
        }
    };
    if let Some(detail) = decode_error(map) {
        out.push(invalid(path.get().to_string(), &field_value(meta), &detail));
        return;
    }
    names(path, map, out);
    let text = |key: &str| map.get(key).and_then(Value::as_str).unwrap_or_default();
    let namespace = text("namespace");
    if !namespace.is_empty() {
        for msg in is_dns1123_label(namespace) {
            out.push(invalid(
                format!("{}.namespace", path.get()),
                &quote(namespace),
                &msg,
            ));
        }
    }
    if let Some(generation) = map.get("generation").and_then(Value::as_i64)
        && generation < 0
    {
        let detail = "must be greater than or equal to 0";
        out.push(invalid(
            format!("{}.generation", path.get()),
            &generation.to_string(),
            detail,
        ));
    }
    labels(path, map, out);
    annotations(path, map, out);
    if let Some(Value::Array(refs)) = map.get("ownerReferences") {
        let render = || format!("{}.ownerReferences", path.get());
        owner_references(&LazyPath::new(&render), refs, out);
    }
    finalizers(path, map, out);
}

fn json_kind(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(_) => "bool".into(),
        Value::Number(n) => match n.as_i64() {
            Some(_) => "number".into(),
            None => format!("number {}", marshal(value)),
        },
        Value::String(_) => "string".into(),
        Value::Array(_) => "array".into(),
        Value::Object(_) => "object".into(),
    }
}

/// The first decoding error (fields in JSON order, i.e. sorted), as Go's decoder words it.
fn decode_error(map: &Map<String, Value>) -> Option<String> {
    let mut keys: Vec<&String> = map.keys().collect();
    keys.sort();
    keys.into_iter().find_map(|key| {
        let value = &map[key.as_str()];
        let fail = |go_type: &str, v: &Value| {
            Some(format!(
                "json: cannot unmarshal {} into Go struct field ObjectMeta.{key} of type {go_type}",
                json_kind(v)
            ))
        };
        match (key.as_str(), value) {
            (_, Value::Null) => None,
            ("name" | "generateName" | "namespace" | "selfLink" | "uid" | "resourceVersion", v) => {
                (!v.is_string()).then(|| fail("string", v)).flatten()
            }
            ("creationTimestamp" | "deletionTimestamp", v) if !v.is_string() => Some(format!(
                "json: cannot unmarshal {} into Go value of type string",
                json_kind(v)
            )),
            ("generation" | "deletionGracePeriodSeconds", v) => {
                (!v.is_i64()).then(|| fail("int64", v)).flatten()
            }
            ("labels" | "annotations", Value::Object(m)) => m
                .values()
                .find(|v| !v.is_string() && !v.is_null())
                .and_then(|v| fail("string", v)),
            ("labels" | "annotations", v) => fail("map[string]string", v),
            ("finalizers", Value::Array(items)) => items
                .iter()
                .find(|v| !v.is_string() && !v.is_null())
                .and_then(|v| fail("string", v)),
            ("finalizers", v) => fail("[]string", v),
            ("ownerReferences", Value::Array(items)) => items
                .iter()
                .find(|v| !v.is_object() && !v.is_null())
                .and_then(|v| fail("v1.OwnerReference", v)),
            ("ownerReferences", v) => fail("[]v1.OwnerReference", v),
            _ => None,
        }
    })
}

/// `generateName` (path-segment prefix rules) and `name` (path-segment name rules).
fn names(path: &LazyPath, map: &Map<String, Value>, out: &mut Errors) {
    let text = |key: &str| map.get(key).and_then(Value::as_str).unwrap_or_default();
    let generate_name = text("generateName");
    if !generate_name.is_empty() {
        for msg in illegal_content(generate_name) {
            out.push(invalid(
                format!("{}.generateName", path.get()),
                &quote(generate_name),
                &msg,
            ));
        }
    }
    let name = text("name");
    let name_errors = if name == "." || name == ".." {
        vec![format!("may not be '{name}'")]
    } else {
        illegal_content(name)
    };
    for msg in name_errors {
        out.push(invalid(format!("{}.name", path.get()), &quote(name), &msg));
    }
}

/// `IsPathSegmentPrefix`.
fn illegal_content(name: &str) -> Vec<String> {
    ["/", "%"]
        .into_iter()
        .filter(|illegal| name.contains(illegal))
        .map(|illegal| format!("may not contain '{illegal}'"))
        .collect()
}

fn string_map<'m>(map: &'m Map<String, Value>, key: &str) -> Vec<(&'m String, &'m str)> {
    let mut pairs: Vec<(&String, &str)> = map
        .get(key)
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k, v.as_str().unwrap_or_default()))
                .collect()
        })
        .unwrap_or_default();
    pairs.sort();
    pairs
}

fn labels(path: &LazyPath, map: &Map<String, Value>, out: &mut Errors) {
    let field = || format!("{}.labels", path.get());
    for (key, value) in string_map(map, "labels") {
        if out.full() {
            return;
        }
        for msg in label_key_errors(key) {
            out.push(invalid(field(), &quote(key), &msg));
        }
        for msg in label_value_errors(value) {
            out.push(invalid(field(), &quote(value), &msg));
        }
    }
}

fn annotations(path: &LazyPath, map: &Map<String, Value>, out: &mut Errors) {
    let field = || format!("{}.annotations", path.get());
    let mut total = 0;
    for (key, value) in string_map(map, "annotations") {
        if out.full() {
            return;
        }
        for msg in label_key_errors(&key.to_lowercase()) {
            out.push(invalid(field(), &quote(key), &msg));
        }
        total += key.len() + value.len();
    }
    if total > TOTAL_ANNOTATION_SIZE_LIMIT {
        out.push(FieldError {
            reason: ErrorType::TooLong,
            field: field(),
            detail: format!("Too long: may not be more than {TOTAL_ANNOTATION_SIZE_LIMIT} bytes"),
        });
    }
}

/// `ValidateOwnerReferences`: required fields, a parsable apiVersion, no Event owner,
/// at most one controller.
fn owner_references(field: &LazyPath, refs: &[Value], out: &mut Errors) {
    let mut controllers = Controllers::default();
    for (i, owner) in refs.iter().enumerate() {
        if out.full() {
            return;
        }
        let at = || format!("{}[{i}]", field.get());
        let text = |key: &str| owner.get(key).and_then(Value::as_str).unwrap_or_default();
        let api_version = text("apiVersion");
        // `schema.ParseGroupVersion`: at most one slash, and a version after it.
        let slashes = api_version.matches('/').count();
        let version = api_version.rsplit('/').next().unwrap_or_default();
        if api_version.is_empty() {
            out.push(FieldError::required(
                &format!("{}.apiVersion", at()),
                "must not be empty",
            ));
        } else if slashes > 1 || version.is_empty() {
            let detail = "must be <group>/<version> or <version>";
            out.push(invalid(
                format!("{}.apiVersion", at()),
                &quote(api_version),
                detail,
            ));
        }
        for key in ["kind", "name", "uid"] {
            if text(key).is_empty() {
                out.push(FieldError::required(
                    &format!("{}.{key}", at()),
                    "must not be empty",
                ));
            }
        }
        if matches!(api_version, "v1" | "/v1") && text("kind") == "Event" {
            let detail = "/v1, Kind=Event is disallowed from being an owner";
            out.push(invalid(at(), &owner_json(owner), detail));
        }
        if owner.get("controller").and_then(Value::as_bool) == Some(true) {
            let current = format!("{}/{}", text("kind"), text("name"));
            controllers.found(field, refs, current, out);
        }
    }
}

/// Bytes of text the "only one controller" errors of one list may repeat. Each error
/// carries the whole list, so thousands of controller references would cost gigabytes:
/// past this budget further ones go unreported (a deliberate deviation from kube, which
/// reports every one, for pathological input only; at least one is always reported).
const CONTROLLER_ERRORS_BUDGET: usize = 1 << 20;

/// The controller references of one list: the first one, then an error per further one.
#[derive(Default)]
struct Controllers {
    first: Option<String>,
    /// The list as the errors print it, rendered once.
    all: Option<String>,
    spent: usize,
}

impl Controllers {
    fn found(&mut self, field: &LazyPath, refs: &[Value], current: String, out: &mut Errors) {
        let Some(first) = &self.first else {
            self.first = Some(current);
            return;
        };
        if self.spent >= CONTROLLER_ERRORS_BUDGET {
            return;
        }
        let all = self.all.get_or_insert_with(|| {
            let all: Vec<String> = refs.iter().map(owner_json).collect();
            format!("[{}]", all.join(","))
        });
        let detail = format!(
            "Only one reference can have Controller set to true. Found \"true\" in references for {first} and {current}"
        );
        self.spent += all.len() + detail.len();
        out.push(invalid(field.get().to_string(), all, &detail));
    }
}

/// An OwnerReference as Go marshals the struct (field order, empty pointers omitted).
fn owner_json(owner: &Value) -> String {
    let mut fields: Vec<String> = ["apiVersion", "kind", "name", "uid"]
        .iter()
        .map(|key| {
            let text = owner.get(*key).and_then(Value::as_str).unwrap_or_default();
            format!("\"{key}\":{}", marshal(&Value::from(text)))
        })
        .collect();
    for key in ["controller", "blockOwnerDeletion"] {
        if let Some(flag) = owner.get(key).and_then(Value::as_bool) {
            fields.push(format!("\"{key}\":{flag}"));
        }
    }
    format!("{{{}}}", fields.join(","))
}

fn finalizers(path: &LazyPath, map: &Map<String, Value>, out: &mut Errors) {
    let Some(Value::Array(items)) = map.get("finalizers") else {
        return;
    };
    let field = || format!("{}.finalizers", path.get());
    let names: Vec<&str> = items
        .iter()
        .map(|v| v.as_str().unwrap_or_default())
        .collect();
    for name in &names {
        if out.full() {
            return;
        }
        for msg in label_key_errors(name) {
            out.push(invalid(field(), &quote(name), &msg));
        }
    }
    if names.contains(&"orphan") && names.contains(&"foregroundDeletion") {
        let shown = marshal(&Value::from(names.clone()));
        let detail = "finalizer orphan and foregroundDeletion cannot be both set";
        out.push(invalid(field(), &shown, detail));
    }
}
