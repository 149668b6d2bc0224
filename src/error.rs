//! The one API error type and its single conversion into a `metav1.Status` response.
//!
//! Every layer (storage, request decoding, admission, authorization) converts its own
//! error into [`ApiError`] once; [`ApiError::to_status`] is the only place that knows
//! kube's status codes, reasons and message wording.

use serde_json::{Value, json};

mod field;

pub(crate) use field::aggregate;
pub use field::{ErrorType, FieldError};

/// A resource as kube names it in messages: `crontabs.stable.example.com`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupResource {
    pub group: String,
    pub resource: String,
}

impl GroupResource {
    pub fn new(group: &str, resource: &str) -> Self {
        GroupResource {
            group: group.to_string(),
            resource: resource.to_string(),
        }
    }
}

impl std::fmt::Display for GroupResource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.group.is_empty() {
            write!(f, "{}", self.resource)
        } else {
            write!(f, "{}.{}", self.resource, self.group)
        }
    }
}

/// Every error a request can end with, named after kube's `StatusReason`.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// The named object does not exist.
    #[error("{resource} \"{name}\" not found")]
    NotFound {
        resource: GroupResource,
        name: String,
    },
    /// The path names no group, version or resource that is served.
    #[error("the server could not find the requested resource")]
    PathNotFound,
    /// Create of a name that is taken.
    #[error("{resource} \"{name}\" already exists")]
    AlreadyExists {
        resource: GroupResource,
        name: String,
    },
    /// Optimistic concurrency or precondition failure.
    #[error("Operation cannot be fulfilled on {resource} \"{name}\": {message}")]
    Conflict {
        resource: GroupResource,
        name: String,
        message: String,
    },
    /// The object failed validation (422 with causes).
    #[error(
        "{} \"{name}\" is invalid: {}",
        qualified_kind(kind, group),
        aggregate(causes)
    )]
    Invalid {
        group: String,
        kind: String,
        name: String,
        causes: Vec<FieldError>,
    },
    /// A 422 without field causes (e.g. a JSON patch that cannot be applied).
    #[error("{0}")]
    Unprocessable(String),
    /// Malformed request: bad query, undecodable body.
    #[error("{0}")]
    BadRequest(String),
    /// A verb the resource does not support; the text is kube's
    /// `<verb> is not supported on resources of kind "<resource>"`.
    #[error("{0}")]
    MethodNotAllowed(String),
    /// The Accept header asks for nothing we can produce.
    #[error("only the following media types are accepted: {0}")]
    NotAcceptable(String),
    /// A Content-Type we cannot decode (e.g. strategic merge patch).
    #[error("the body of the request was in an unknown format - accepted media types include: {0}")]
    UnsupportedMediaType(String),
    /// A revision that was compacted (watch, continue token).
    #[error("{message}")]
    Expired {
        message: String,
        /// A fresh continue token, when kube would offer one.
        continue_token: Option<String>,
    },
    /// The body (or a JSON patch's operation count) is over the limit; kube's text.
    #[error("{0}")]
    RequestEntityTooLarge(String),
    /// No credentials and anonymous access is off.
    #[error("Unauthorized")]
    Unauthorized,
    /// The authorizer said no; the message is kube's full sentence.
    #[error("{message}")]
    Forbidden {
        message: String,
        resource: Option<GroupResource>,
        name: String,
    },
    /// The storage backend cannot be reached.
    #[error("{0}")]
    ServiceUnavailable(String),
    /// The storage backend did not answer in time.
    #[error("{0}")]
    Timeout(String),
    /// A read at a revision the store has not reached yet (client-go retries on it).
    #[error("Timeout: Too large resource version: {requested}, current: {current}")]
    TooLargeResourceVersion { requested: i64, current: i64 },
    /// Past the in-flight limit; the client should retry after the given seconds.
    #[error("{message}")]
    TooManyRequests {
        message: String,
        retry_after_seconds: u32,
    },
    /// Anything else; the client sees a generic message, the log the full chain.
    #[error("Internal error occurred: {0}")]
    Internal(String),
    /// A field manager failure (apply conflicts, apply bodies it refuses), with kube's
    /// code, reason and texts.
    #[error("{0}")]
    FieldManager(crate::fieldmanager::manager::Error),
}

/// Details with `name` only when there is one (Go's `omitempty`).
fn named(name: &str, mut details: Value) -> Value {
    if !name.is_empty() {
        details["name"] = json!(name);
    }
    details
}

/// schema.GroupKind's String(): `Kind.group`, or `Kind` alone in the core (empty) group.
fn qualified_kind(kind: &str, group: &str) -> String {
    if group.is_empty() {
        kind.to_string()
    } else {
        format!("{kind}.{group}")
    }
}

pub type Result<T, E = ApiError> = std::result::Result<T, E>;

impl ApiError {
    /// An internal error whose detail is logged but not shown to the client.
    pub fn internal(context: &str, err: &dyn std::error::Error) -> Self {
        let mut chain = err.to_string();
        let mut source = err.source();
        while let Some(s) = source {
            chain.push_str(": ");
            chain.push_str(&s.to_string());
            source = s.source();
        }
        tracing::error!(context, error = %chain, "internal error");
        ApiError::Internal("an error on the server prevented the request from succeeding".into())
    }

    pub fn code(&self) -> u16 {
        match self {
            ApiError::NotFound { .. } | ApiError::PathNotFound => 404,
            ApiError::AlreadyExists { .. } | ApiError::Conflict { .. } => 409,
            ApiError::Invalid { .. } | ApiError::Unprocessable(_) => 422,
            ApiError::BadRequest(_) => 400,
            ApiError::MethodNotAllowed(_) => 405,
            ApiError::NotAcceptable(_) => 406,
            ApiError::UnsupportedMediaType(_) => 415,
            ApiError::Expired { .. } => 410,
            ApiError::RequestEntityTooLarge(_) => 413,
            ApiError::Unauthorized => 401,
            ApiError::Forbidden { .. } => 403,
            ApiError::TooManyRequests { .. } => 429,
            ApiError::ServiceUnavailable(_) => 503,
            ApiError::Timeout(_) | ApiError::TooLargeResourceVersion { .. } => 504,
            ApiError::Internal(_) => 500,
            ApiError::FieldManager(e) => e.code(),
        }
    }

    pub fn reason(&self) -> &'static str {
        match self {
            ApiError::NotFound { .. } | ApiError::PathNotFound => "NotFound",
            ApiError::AlreadyExists { .. } => "AlreadyExists",
            ApiError::Conflict { .. } => "Conflict",
            ApiError::Invalid { .. } | ApiError::Unprocessable(_) => "Invalid",
            ApiError::BadRequest(_) => "BadRequest",
            ApiError::MethodNotAllowed(_) => "MethodNotAllowed",
            ApiError::NotAcceptable(_) => "NotAcceptable",
            ApiError::UnsupportedMediaType(_) => "UnsupportedMediaType",
            ApiError::Expired { .. } => "Expired",
            ApiError::RequestEntityTooLarge(_) => "RequestEntityTooLarge",
            ApiError::Unauthorized => "Unauthorized",
            ApiError::Forbidden { .. } => "Forbidden",
            ApiError::TooManyRequests { .. } => "TooManyRequests",
            ApiError::ServiceUnavailable(_) => "ServiceUnavailable",
            ApiError::Timeout(_) | ApiError::TooLargeResourceVersion { .. } => "Timeout",
            ApiError::Internal(_) => "InternalError",
            // kube's StatusReasonUnknown ("", omitted) for plain errors.
            ApiError::FieldManager(e) => e.reason(),
        }
    }

    fn details(&self) -> Option<Value> {
        match self {
            ApiError::NotFound { resource, name }
            | ApiError::AlreadyExists { resource, name }
            | ApiError::Conflict { resource, name, .. } => Some(named(
                name,
                json!({"group": resource.group, "kind": resource.resource}),
            )),
            ApiError::TooLargeResourceVersion { .. } => Some(json!({
                "causes": [{"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}],
                "retryAfterSeconds": 1,
            })),
            ApiError::Forbidden {
                resource: Some(resource),
                name,
                ..
            } => {
                let mut d = json!({"kind": resource.resource});
                // omitempty: the core group (impersonating users, groups) has none
                if !resource.group.is_empty() {
                    d["group"] = json!(resource.group);
                }
                if !name.is_empty() {
                    d["name"] = json!(name);
                }
                Some(d)
            }
            ApiError::Invalid {
                group,
                kind,
                name,
                causes,
            } => Some(named(
                name,
                json!({
                    "group": group, "kind": kind,
                    "causes": causes.iter().map(|c| json!({
                        "reason": c.reason.reason(), "message": c.detail, "field": c.field,
                    })).collect::<Vec<_>>(),
                }),
            )),
            ApiError::TooManyRequests {
                retry_after_seconds,
                ..
            } => Some(json!({"retryAfterSeconds": retry_after_seconds})),
            ApiError::Internal(_) => Some(json!({"causes": [{"message": self.inner_message()}]})),
            ApiError::FieldManager(crate::fieldmanager::manager::Error::Conflict {
                causes,
                ..
            }) => Some(json!({"causes": causes.iter().map(|c| json!({
                "reason": "FieldManagerConflict", "message": c.message, "field": c.field,
            })).collect::<Vec<_>>()})),
            _ => None,
        }
    }

    fn inner_message(&self) -> String {
        match self {
            ApiError::Internal(m) => m.clone(),
            other => other.to_string(),
        }
    }

    /// The `metav1.Status` body kube sends for this error.
    pub fn to_status(&self) -> Value {
        let mut status = json!({
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.to_string(),
            "reason": self.reason(),
            "code": self.code(),
        });
        if self.reason().is_empty()
            && let Some(map) = status.as_object_mut()
        {
            map.remove("reason");
        }
        if let Some(details) = self.details() {
            status["details"] = details;
        }
        if let ApiError::Expired {
            continue_token: Some(token),
            ..
        } = self
        {
            status["metadata"]["continue"] = json!(token);
        }
        status
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn not_found_message_names_group_resource() {
        let err = ApiError::NotFound {
            resource: GroupResource::new("stable.example.com", "crontabs"),
            name: "x".into(),
        };
        let s = err.to_status();
        assert_eq!(s["message"], "crontabs.stable.example.com \"x\" not found");
        assert_eq!(s["code"], 404);
        assert_eq!(s["details"]["kind"], "crontabs");
    }

    #[test]
    fn invalid_with_many_causes_aggregates_in_brackets() {
        let err = ApiError::Invalid {
            group: "stable.example.com".into(),
            kind: "CronTab".into(),
            name: "x".into(),
            causes: vec![
                FieldError::required("spec.a", ""),
                FieldError::invalid("spec.b", &json!("v"), "bad"),
            ],
        };
        assert_eq!(
            err.to_string(),
            "CronTab.stable.example.com \"x\" is invalid: [spec.a: Required value, spec.b: Invalid value: \"v\": bad]"
        );
        assert_eq!(err.to_status()["details"]["causes"][1]["field"], "spec.b");
    }
}
