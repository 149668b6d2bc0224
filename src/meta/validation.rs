//! ObjectMeta validation of custom resources as apimachinery's objectmeta.go runs it:
//! `ValidateObjectMetaAccessor` on create and, on update, rest.BeforeUpdate's common
//! fields followed by the strategy's `ValidateObjectMetaAccessorUpdate` (so some causes
//! appear two or three times, as kube lists them); the finalizer-name warnings of the
//! custom resource strategy.

use serde_json::{Map, Value, json};

use super::object as obj;
use crate::error::{ErrorType, FieldError};
use crate::gofmt::{marshal, quote};
use crate::selector::label::{label_key_errors, label_value_errors};
use crate::validation::{is_dns1123_label, is_dns1123_subdomain};

/// kube's limit on the total size of an object's annotations.
const TOTAL_ANNOTATION_SIZE_LIMIT: usize = 256 * 1024;

/// The finalizers the garbage collector and namespace controller own; no warning for them.
const STANDARD_FINALIZERS: [&str; 3] = ["orphan", "foregroundDeletion", "kubernetes"];

/// Which `ValidateNameFunc` checks `name` and `generateName`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameRule {
    /// `NameIsDNSSubdomain`: the custom resource validator's rule on create.
    DnsSubdomain,
    /// `ValidatePathSegmentName`: rest's common-field rule on update.
    PathSegment,
}

impl NameRule {
    fn check(self, name: &str, prefix: bool) -> Vec<String> {
        match (self, prefix) {
            (NameRule::DnsSubdomain, false) => is_dns1123_subdomain(name),
            (NameRule::DnsSubdomain, true) => is_dns1123_subdomain(&mask_trailing_dash(name)),
            (NameRule::PathSegment, false) if name == "." || name == ".." => {
                vec![format!("may not be '{name}'")]
            }
            (NameRule::PathSegment, _) => ["/", "%"]
                .into_iter()
                .filter(|illegal| name.contains(illegal))
                .map(|illegal| format!("may not contain '{illegal}'"))
                .collect(),
        }
    }
}

/// apimachinery's `maskTrailingDash`: a prefix may end in `-` (the suffix follows); it
/// drops two bytes, not one, as upstream does.
fn mask_trailing_dash(name: &str) -> String {
    match name.strip_suffix('-') {
        Some(_) if name.len() > 1 => {
            let cut = name.len() - 2;
            let kept = name.get(..cut).unwrap_or_default();
            format!("{kept}a")
        }
        _ => name.to_string(),
    }
}

/// `ValidateObjectMetaAccessor`: generateName, name, namespace (the request's, which
/// the server set: `ValidateNamespaceName`, whatever the namespace lifecycle mode),
/// labels, annotations, ownerReferences and finalizers (generation is set by the server).
pub fn validate_create(object: &Value, rule: NameRule) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let generate_name = obj::meta_str(object, "generateName");
    if !generate_name.is_empty() {
        for msg in rule.check(generate_name, true) {
            errors.push(invalid_text("metadata.generateName", generate_name, &msg));
        }
    }
    let name = obj::name(object);
    if name.is_empty() {
        errors.push(FieldError::required(
            "metadata.name",
            "name or generateName is required",
        ));
    } else {
        for msg in rule.check(name, false) {
            errors.push(invalid_text("metadata.name", name, &msg));
        }
    }
    let namespace = obj::namespace(object);
    if !namespace.is_empty() {
        for msg in is_dns1123_label(namespace) {
            errors.push(invalid_text("metadata.namespace", namespace, &msg));
        }
    }
    errors.extend(labels_and_annotations(object));
    errors.extend(owner_references(object));
    errors.extend(finalizers(object));
    errors
}

/// What kube reports for an update's metadata: BeforeUpdate's common fields (the create
/// rules with path-segment names, then the update rules), then the strategy's update
/// rules once more.
pub fn validate_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errors = validate_create(new, NameRule::PathSegment);
    let update = update_rules(new, old);
    errors.extend(update.iter().cloned());
    errors.extend(update);
    errors
}

/// `ValidateObjectMetaAccessorUpdate` for what an update can still get wrong here: new
/// finalizers while deleting, a changed uid, labels, annotations and ownerReferences
/// (name, namespace, timestamps and generation are carried over from the stored object).
fn update_rules(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if obj::is_being_deleted(old) {
        let before = obj::finalizers(old);
        let mut added: Vec<String> = obj::finalizers(new)
            .into_iter()
            .filter(|f| !before.contains(f))
            .collect();
        added.sort();
        added.dedup();
        if !added.is_empty() {
            // Go prints the sorted set with %#v: []string{"a", "b"}.
            let quoted: Vec<String> = added.iter().map(|f| quote(f)).collect();
            errors.push(FieldError::forbidden(
                "metadata.finalizers",
                &format!(
                    "no new finalizers can be added if the object is being deleted, found new finalizers []string{{{}}}",
                    quoted.join(", ")
                ),
            ));
        }
    }
    let new_uid = obj::uid(new);
    if new_uid != obj::uid(old) {
        errors.push(invalid_text("metadata.uid", new_uid, "field is immutable"));
    }
    errors.extend(labels_and_annotations(new));
    errors.extend(owner_references(new));
    errors
}

/// `field.Invalid` on a string value (`Invalid value: "<value>": <detail>`).
fn invalid_text(field: &str, value: &str, detail: &str) -> FieldError {
    FieldError::invalid(field, &json!(value), detail)
}

/// `field.Invalid` whose value is already Go-printed (structs, lists).
fn invalid_printed(field: &str, printed: &str, detail: &str) -> FieldError {
    FieldError {
        reason: ErrorType::Invalid,
        field: field.to_string(),
        detail: format!("Invalid value: {printed}: {detail}"),
    }
}

/// `ValidateLabels` and `ValidateAnnotations` (keys in Go's map order, i.e. sorted).
fn labels_and_annotations(object: &Value) -> Vec<FieldError> {
    let mut errors = validate_labels(&obj::labels(object), "metadata.labels");
    let annotations = obj::metadata(object)
        .and_then(|m| m.get("annotations"))
        .and_then(Value::as_object);
    if let Some(annotations) = annotations {
        errors.extend(validate_annotations(annotations, "metadata.annotations"));
    }
    errors
}

/// apimachinery's `ValidateLabels` of `labels` at `path` (keys sorted, as Go's map order
/// is taken to be; a value that is no string is checked as empty).
pub fn validate_labels(labels: &Map<String, Value>, path: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    for (key, value) in labels {
        for message in label_key_errors(key) {
            errors.push(invalid_text(path, key, &message));
        }
        let value = value.as_str().unwrap_or_default();
        for message in label_value_errors(value) {
            errors.push(invalid_text(path, value, &message));
        }
    }
    errors
}

/// apimachinery's `ValidateAnnotations` of `annotations` at `path`: each key a qualified
/// name (lower-cased), the total size within kube's limit.
pub fn validate_annotations(annotations: &Map<String, Value>, path: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let mut total = 0;
    for (key, value) in annotations {
        for message in label_key_errors(&key.to_lowercase()) {
            errors.push(invalid_text(path, key, &message));
        }
        total += key.len() + value.as_str().map_or(0, str::len);
    }
    if total > TOTAL_ANNOTATION_SIZE_LIMIT {
        errors.push(FieldError {
            reason: ErrorType::TooLong,
            field: path.into(),
            detail: format!("Too long: may not be more than {TOTAL_ANNOTATION_SIZE_LIMIT} bytes"),
        });
    }
    errors
}

fn owner_references_of(object: &Value) -> &[Value] {
    obj::metadata(object)
        .and_then(|m| m.get("ownerReferences"))
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// `ValidateOwnerReferences`: every reference has a version, kind, name and uid, no Event
/// owns anything, and at most one is the controller. Paths carry no index, as upstream's.
fn owner_references(object: &Value) -> Vec<FieldError> {
    const FIELD: &str = "metadata.ownerReferences";
    let refs = owner_references_of(object);
    let mut errors = Vec::new();
    let mut first_controller: Option<String> = None;
    for owner in refs {
        let text = |key: &str| owner.get(key).and_then(Value::as_str).unwrap_or_default();
        let (api_version, kind) = (text("apiVersion"), text("kind"));
        let version = parsed_version(api_version);
        if version.is_empty() {
            let detail = "version must not be empty";
            errors.push(invalid_text(
                &format!("{FIELD}.apiVersion"),
                api_version,
                detail,
            ));
        }
        for key in ["kind", "name", "uid"] {
            if text(key).is_empty() {
                errors.push(invalid_text(
                    &format!("{FIELD}.{key}"),
                    "",
                    "must not be empty",
                ));
            }
        }
        if kind == "Event" && version == "v1" && parsed_group(api_version).is_empty() {
            let detail = "/v1, Kind=Event is disallowed from being an owner";
            errors.push(invalid_printed(FIELD, &owner_json(owner), detail));
        }
        if owner.get("controller").and_then(Value::as_bool) == Some(true) {
            let current = format!("{kind}/{}", text("name"));
            match &first_controller {
                None => first_controller = Some(current),
                Some(first) => {
                    let all: Vec<String> = refs.iter().map(owner_json).collect();
                    let detail = format!(
                        "Only one reference can have Controller set to true. Found \"true\" in references for {first} and {current}"
                    );
                    errors.push(invalid_printed(
                        FIELD,
                        &format!("[{}]", all.join(",")),
                        &detail,
                    ));
                }
            }
        }
    }
    errors
}

/// The version `schema.ParseGroupVersion` finds (empty when it fails or there is none).
fn parsed_version(api_version: &str) -> &str {
    match api_version.split('/').collect::<Vec<_>>().as_slice() {
        [version] => version,
        [_, version] => version,
        _ => "",
    }
}

fn parsed_group(api_version: &str) -> &str {
    match api_version.split_once('/') {
        Some((group, version)) if !version.contains('/') => group,
        _ => "",
    }
}

/// An OwnerReference as Go marshals the struct: field order, empty pointers omitted.
fn owner_json(owner: &Value) -> String {
    let mut fields: Vec<String> = ["apiVersion", "kind", "name", "uid"]
        .iter()
        .map(|key| {
            let text = owner.get(*key).and_then(Value::as_str).unwrap_or_default();
            format!("\"{key}\":{}", marshal(&json!(text)))
        })
        .collect();
    for key in ["controller", "blockOwnerDeletion"] {
        if let Some(flag) = owner.get(key).and_then(Value::as_bool) {
            fields.push(format!("\"{key}\":{flag}"));
        }
    }
    format!("{{{}}}", fields.join(","))
}

/// `ValidateFinalizers`: qualified names, and not both orphan and foregroundDeletion.
fn finalizers(object: &Value) -> Vec<FieldError> {
    let names = obj::finalizers(object);
    let mut errors = Vec::new();
    for name in &names {
        for message in label_key_errors(name) {
            errors.push(invalid_text("metadata.finalizers", name, &message));
        }
    }
    if names.iter().any(|f| f == "orphan") && names.iter().any(|f| f == "foregroundDeletion") {
        let detail = "finalizer orphan and foregroundDeletion cannot be both set";
        errors.push(invalid_printed(
            "metadata.finalizers",
            &marshal(&json!(names)),
            detail,
        ));
    }
    errors
}

/// The custom resource strategy's `WarningsOnCreate`/`WarningsOnUpdate`: for each finalizer
/// added (sorted, as a set), its name problems and a nudge towards a domain-qualified name.
pub fn finalizer_warnings(new: &Value, old: Option<&Value>) -> Vec<String> {
    let before = old.map(obj::finalizers).unwrap_or_default();
    let mut added: Vec<String> = obj::finalizers(new)
        .into_iter()
        .filter(|f| !before.contains(f))
        .collect();
    added.sort();
    added.dedup();
    let mut warnings = Vec::new();
    for name in added {
        let shown = quote(&name);
        for message in label_key_errors(&name) {
            warnings.push(format!("metadata.finalizers: {shown}: {message}"));
        }
        if name.contains('/') || STANDARD_FINALIZERS.contains(&name.as_str()) {
            continue;
        }
        let advice = if name.contains('.') {
            "prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers"
        } else {
            "prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers"
        };
        warnings.push(format!("metadata.finalizers: {shown}: {advice}"));
    }
    warnings
}

#[cfg(test)]
mod tests;
