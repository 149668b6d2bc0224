//! The one API error type and its single conversion into a `metav1.Status` response.
//!
//! Every layer (storage, request decoding, admission, authorization) converts its own
//! error into [`ApiError`] once; [`ApiError::to_status`] is the only place that knows
//! kube's status codes, reasons and message wording.

use serde_json::{Value, json};

use crate::gofmt::quote;

mod field;

/// The body of kube's mux NotFound handler (Go's `http.NotFound`), sent as
/// `text/plain; charset=utf-8` for [`ApiError::PathNotFound`].
pub const PAGE_NOT_FOUND: &str = "404 page not found\n";

pub use field::{ErrorType, FieldError};
pub(crate) use field::{aggregate, aggregate_messages};

/// A resource as kube names it in messages: `crontabs.stable.example.com`.
/// kube's timeout filter's 504 text (`apierrors.NewTimeoutError`), when a request that
/// is not long-running outlives its deadline.
const REQUEST_TIMEOUT_MESSAGE: &str =
    "Timeout: request did not complete within the allotted timeout";

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
    #[error("{resource} {} not found", quote(name))]
    NotFound {
        resource: GroupResource,
        name: String,
    },
    /// The path names no group, version or resource that is served (or not in this scope):
    /// kube hands such requests to its mux's NotFound handler, which answers the plain-text
    /// page [`PAGE_NOT_FOUND`], not a Status.
    #[error("the server could not find the requested resource")]
    PathNotFound,
    /// Create of a name that is taken.
    #[error("{resource} {} already exists", quote(name))]
    AlreadyExists {
        resource: GroupResource,
        name: String,
    },
    /// Optimistic concurrency or precondition failure.
    #[error(
        "Operation cannot be fulfilled on {resource} {}: {message}",
        quote(name)
    )]
    Conflict {
        resource: GroupResource,
        name: String,
        message: String,
    },
    /// The object failed validation (422 with causes).
    #[error(
        "{} {} is invalid: {}",
        qualified_kind(kind, group),
        quote(name),
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
    /// kube's `NewMethodNotSupported`: a verb the resource (or its subresource) does not
    /// serve, named by the resource alone, with details `{group, kind: <plural>}`.
    #[error("{verb} is not supported on resources of kind {}", quote(&resource.to_string()))]
    MethodNotSupported {
        resource: GroupResource,
        verb: String,
    },
    /// The Accept header asks for nothing we can produce.
    #[error("only the following media types are accepted: {0}")]
    NotAcceptable(String),
    /// A conversion the Accept header asked for that does not fit the answer (upstream's
    /// handlers' errNotAcceptable: the message as it is, e.g. PartialObjectMetadata of a list).
    #[error("{0}")]
    NotAcceptableConversion(String),
    /// A plain error kube does not classify: 500 with no reason (`StatusReasonUnknown`).
    #[error("{0}")]
    Unknown(String),
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
    /// NamespaceLifecycle's refusal of a create in a namespace being deleted.
    #[error(
        "{resource} {} is forbidden: unable to create new content in namespace {namespace} because it is being terminated",
        quote(name)
    )]
    NamespaceTerminating {
        resource: GroupResource,
        name: String,
        namespace: String,
    },
    /// The storage backend cannot be reached.
    #[error("{0}")]
    ServiceUnavailable(String),
    /// The storage backend did not answer in time.
    #[error("{0}")]
    Timeout(String),
    /// kube's timeout filter's 504 for a request that outlived its deadline (or its
    /// body's arrival): `apierrors.NewTimeoutError(..., 0)`'s Status encoded bare, with
    /// no apiVersion or kind and empty details, as `text/plain` (Go sniffs the type).
    #[error("{REQUEST_TIMEOUT_MESSAGE}")]
    RequestTimeout,
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
    /// A refusal whose Status another party chose (an admission webhook's denial, as
    /// kube's `ToStatusErr` forms it): sent as it is, its code at least 400.
    #[error("{}", .0["message"].as_str().unwrap_or_default())]
    Rejected(Box<Value>),
}

/// Details `{group, kind}` of a resource, `group` only when there is one (Go's
/// `omitempty`: the core group's `namespaces` has none).
fn grouped(resource: &GroupResource) -> Value {
    let mut details = json!({"kind": resource.resource});
    if !resource.group.is_empty() {
        details["group"] = json!(resource.group);
    }
    details
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
    /// kube's 504 for a request that outlived its deadline (or its body's arrival).
    pub fn request_timeout() -> ApiError {
        ApiError::RequestTimeout
    }

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
            ApiError::MethodNotAllowed(_) | ApiError::MethodNotSupported { .. } => 405,
            ApiError::NotAcceptable(_) | ApiError::NotAcceptableConversion(_) => 406,
            ApiError::UnsupportedMediaType(_) => 415,
            ApiError::Expired { .. } => 410,
            ApiError::RequestEntityTooLarge(_) => 413,
            ApiError::Unauthorized => 401,
            ApiError::Forbidden { .. } | ApiError::NamespaceTerminating { .. } => 403,
            ApiError::TooManyRequests { .. } => 429,
            ApiError::ServiceUnavailable(_) => 503,
            ApiError::Timeout(_)
            | ApiError::RequestTimeout
            | ApiError::TooLargeResourceVersion { .. } => 504,
            ApiError::Internal(_) | ApiError::Unknown(_) => 500,
            ApiError::FieldManager(e) => e.code(),
            ApiError::Rejected(status) => status["code"]
                .as_u64()
                .and_then(|c| u16::try_from(c).ok())
                .filter(|c| (400..=599).contains(c))
                .unwrap_or(400),
        }
    }

    pub fn reason(&self) -> &'static str {
        match self {
            ApiError::NotFound { .. } | ApiError::PathNotFound => "NotFound",
            ApiError::AlreadyExists { .. } => "AlreadyExists",
            ApiError::Conflict { .. } => "Conflict",
            ApiError::Invalid { .. } | ApiError::Unprocessable(_) => "Invalid",
            ApiError::BadRequest(_) => "BadRequest",
            ApiError::MethodNotAllowed(_) | ApiError::MethodNotSupported { .. } => {
                "MethodNotAllowed"
            }
            ApiError::NotAcceptable(_) | ApiError::NotAcceptableConversion(_) => "NotAcceptable",
            ApiError::UnsupportedMediaType(_) => "UnsupportedMediaType",
            ApiError::Expired { .. } => "Expired",
            ApiError::RequestEntityTooLarge(_) => "RequestEntityTooLarge",
            ApiError::Unauthorized => "Unauthorized",
            ApiError::Forbidden { .. } | ApiError::NamespaceTerminating { .. } => "Forbidden",
            ApiError::TooManyRequests { .. } => "TooManyRequests",
            ApiError::ServiceUnavailable(_) => "ServiceUnavailable",
            ApiError::Timeout(_)
            | ApiError::RequestTimeout
            | ApiError::TooLargeResourceVersion { .. } => "Timeout",
            ApiError::Internal(_) => "InternalError",
            ApiError::Unknown(_) => "",
            // kube's StatusReasonUnknown ("", omitted) for plain errors.
            ApiError::FieldManager(e) => e.reason(),
            // Its own reason is in its body ([`ApiError::to_status`]).
            ApiError::Rejected(_) => "",
        }
    }

    fn details(&self) -> Option<Value> {
        match self {
            ApiError::NotFound { resource, name }
            | ApiError::AlreadyExists { resource, name }
            | ApiError::Conflict { resource, name, .. } => Some(named(name, grouped(resource))),
            ApiError::NamespaceTerminating {
                resource,
                name,
                namespace,
            } => {
                let mut d = named(name, grouped(resource));
                d["causes"] = json!([{"reason": "NamespaceTerminating",
                    "message": format!("namespace {namespace} is being terminated"),
                    "field": "metadata.namespace"}]);
                Some(d)
            }
            ApiError::MethodNotSupported { resource, .. } => Some(grouped(resource)),
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
            } => {
                let mut details = named(
                    name,
                    json!({
                        "group": group, "kind": kind,
                        "causes": causes.iter().map(|c| json!({
                            "reason": c.reason.reason(), "message": c.detail, "field": c.field,
                        })).collect::<Vec<_>>(),
                    }),
                );
                // omitempty: a patch that does not decode names no group or kind.
                if let Some(map) = details.as_object_mut() {
                    map.retain(|k, v| !(["group", "kind"].contains(&k.as_str()) && v == ""));
                }
                Some(details)
            }
            ApiError::TooManyRequests {
                retry_after_seconds,
                ..
            } => Some(json!({"retryAfterSeconds": retry_after_seconds})),
            ApiError::Internal(_) => Some(json!({"causes": [{"message": self.inner_message()}]})),
            ApiError::RequestTimeout => Some(json!({})),
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
        if let ApiError::Rejected(status) = self {
            return status.as_ref().clone();
        }
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
        if let (ApiError::RequestTimeout, Some(map)) = (self, status.as_object_mut()) {
            map.remove("kind");
            map.remove("apiVersion");
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
mod tests;
