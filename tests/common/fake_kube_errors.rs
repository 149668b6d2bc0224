//! The fake kube-apiserver's error answers: kube's `metav1.Status` bodies (k8s.io/apimachinery
//! `pkg/api/errors`) with their reason, code, message and details, for a [`Resource`].

use axum::body::Body;
use http::{Response, StatusCode};
use serde_json::{Value, json};

use super::collections::Resource;
use super::wire::reply;

/// kube's `OptimisticLockErrorMsg` (k8s.io/apiserver `registry/generic/registry/store.go`).
pub const OPTIMISTIC_LOCK: &str =
    "the object has been modified; please apply your changes to the latest version and try again";

/// A failed write or read: the Status body and its code.
#[derive(Clone, Debug, PartialEq)]
pub struct Failure {
    pub code: u16,
    pub body: Value,
}

impl Failure {
    pub fn with_message(mut self, message: &str) -> Failure {
        self.body["message"] = json!(message);
        self
    }

    pub fn response(&self) -> Response<Body> {
        reply(
            StatusCode::from_u16(self.code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
            &self.body,
        )
    }
}

/// `plural.group` (`plural` for the core group), as `schema.GroupResource.String()`.
pub fn qualified(resource: &Resource) -> String {
    match resource.group {
        "" => resource.plural.to_string(),
        group => format!("{}.{group}", resource.plural),
    }
}

fn failure(code: u16, reason: &str, message: String, details: Option<Value>) -> Failure {
    let mut body = json!({"kind": "Status", "apiVersion": "v1", "metadata": {},
        "status": "Failure", "message": message, "reason": reason, "code": code});
    if let Some(details) = details {
        body["details"] = details;
    }
    Failure { code, body }
}

/// A failure Status without details.
pub fn failure_of(code: u16, reason: &str, message: &str) -> Failure {
    failure(code, reason, message.to_string(), None)
}

/// `StatusDetails` naming an object of `resource` (kube puts the resource in `kind`).
fn details(resource: &Resource, name: &str) -> Value {
    let mut details = json!({"name": name, "kind": resource.plural});
    if !resource.group.is_empty() {
        details["group"] = json!(resource.group);
    }
    details
}

pub fn not_found(resource: &Resource, name: &str) -> Failure {
    let message = format!("{} \"{name}\" not found", qualified(resource));
    failure(404, "NotFound", message, Some(details(resource, name)))
}

pub fn already_exists(resource: &Resource, name: &str) -> Failure {
    let message = format!("{} \"{name}\" already exists", qualified(resource));
    failure(409, "AlreadyExists", message, Some(details(resource, name)))
}

/// `NewConflict`: `Operation cannot be fulfilled on <resource> "<name>": <why>`.
pub fn conflict(resource: &Resource, name: &str, why: &str) -> Failure {
    let message = format!(
        "Operation cannot be fulfilled on {} \"{name}\": {why}",
        qualified(resource)
    );
    failure(409, "Conflict", message, Some(details(resource, name)))
}

/// `NewForbidden` with a reason and code of the caller's choosing (a policy's denial).
pub fn forbidden(resource: &Resource, name: &str, why: &str, reason: &str, code: u16) -> Failure {
    let message = format!("{} \"{name}\" is forbidden: {why}", qualified(resource));
    let mut details = details(resource, name);
    details["causes"] = json!([{"message": why}]);
    failure(code, reason, message, Some(details))
}

/// One `field.Error`: its type (`FieldValueRequired`, ...), field path and body
/// (`Required value: ...`).
pub struct Cause<'a> {
    pub kind: &'a str,
    pub field: &'a str,
    pub body: String,
}

/// `NewInvalid` for the kind `Kind[.group]`, 422.
pub fn invalid(kind: &str, group: &str, name: &str, causes: &[Cause]) -> Failure {
    let group_kind = match group {
        "" => kind.to_string(),
        g => format!("{kind}.{g}"),
    };
    let listed: Vec<String> = causes
        .iter()
        .map(|c| format!("{}: {}", c.field, c.body))
        .collect();
    let aggregate = match listed.as_slice() {
        [one] => one.clone(),
        many => format!("[{}]", many.join(", ")),
    };
    let message = format!("{group_kind} \"{name}\" is invalid: {aggregate}");
    let causes: Vec<Value> = causes
        .iter()
        .map(|c| json!({"type": c.kind, "message": c.body, "field": c.field}))
        .collect();
    let mut details = json!({"name": name, "kind": kind, "causes": causes});
    if !group.is_empty() {
        details["group"] = json!(group);
    }
    failure(422, "Invalid", message, Some(details))
}

pub fn bad_request(message: &str) -> Failure {
    failure(400, "BadRequest", message.to_string(), None)
}

/// `negotiation.NewUnsupportedMediaTypeError` for a patch of a kind served from a CRD.
pub fn unsupported_media_type() -> Failure {
    let message = "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml".to_string();
    failure(415, "UnsupportedMediaType", message, None)
}

/// kube's apply conflict (`managedfields/internal/conflict.go`): 409 Conflict with a
/// `FieldManagerConflict` cause per field.
pub fn apply_conflict(conflicts: &[super::fields::Conflict]) -> Failure {
    let message = match conflicts {
        [one] => format!(
            "Apply failed with 1 conflict: conflict with {}: {}",
            one.manager, one.field
        ),
        many => {
            let mut managers: Vec<&str> = many.iter().map(|c| c.manager.as_str()).collect();
            managers.sort();
            managers.dedup();
            let mut lines = Vec::new();
            for manager in managers {
                lines.push(format!("conflicts with {manager}:"));
                let fields = many.iter().filter(|c| c.manager == manager);
                lines.extend(fields.map(|c| format!("- {}", c.field)));
            }
            format!(
                "Apply failed with {} conflicts: {}",
                many.len(),
                lines.join("\n")
            )
        }
    };
    let causes: Vec<Value> = conflicts
        .iter()
        .map(|c| json!({"type": "FieldManagerConflict", "message": format!("conflict with {}", c.manager), "field": c.field}))
        .collect();
    Failure {
        code: 409,
        body: json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": message, "reason": "Conflict", "details": {"causes": causes}, "code": 409}),
    }
}

/// kube's Success Status for a deleted object.
pub fn deleted_status(resource: &Resource, object: &Value) -> Value {
    let mut details = json!({"name": object["metadata"]["name"], "kind": resource.plural,
        "uid": object["metadata"]["uid"]});
    if !resource.group.is_empty() {
        details["group"] = json!(resource.group);
    }
    json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
        "details": details})
}
