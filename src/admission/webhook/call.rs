//! One call of one webhook (kube's `callHook` / `callAttrMutatingHook` up to the patch):
//! the dry-run check, the AdmissionReview for the invocation, the POST, the answer's
//! checks, its warnings and audit annotations recorded; a refusal or a failure in kube's
//! words, sorted as kube's dispatchers sort them.

use serde_json::Value;

use super::matching::Invocation;
use super::review::{self, Gvk, Gvr, Phase, Request, Response};
use crate::admission::Attributes;
use crate::admission::webhook::hook::{Hook, SideEffects};
use crate::error::ApiError;
use crate::webhook::Transport;
use crate::webhook::error::CallError;

/// How a call failed.
#[derive(Debug)]
pub enum CallFailure {
    /// kube's `ErrCallingWebhook` (the call, or its answer, failed): the webhook's
    /// failurePolicy decides. `reason` follows `failed calling webhook "<name>": `;
    /// `code` is what the metrics count it under.
    Calling { reason: String, code: u16 },
    /// kube's `ErrWebhookRejection`: the webhook denied the request with this Status.
    Rejected { error: ApiError, code: u16 },
    /// Anything else (a webhook that cannot run dry): answered as it is.
    Other(ApiError),
}

impl CallFailure {
    /// kube's `failed calling webhook "<name>": <reason>` as a 500 (failurePolicy Fail).
    pub fn failing_closed(name: &str, reason: &str) -> ApiError {
        ApiError::Internal(format!(
            "failed calling webhook {}: {reason}",
            crate::gofmt::quote(name)
        ))
    }
}

/// What a call sends besides the hook: the request and its objects in the version the
/// hook is called with.
pub struct Sent<'a> {
    pub attributes: &'a Attributes<'a>,
    pub object: Option<&'a Value>,
    pub old_object: Option<&'a Value>,
}

/// Calls `invocation`'s hook; its verified answer (allowed, maybe with a patch).
pub async fn call(
    transport: &Transport,
    invocation: &Invocation,
    sent: &Sent<'_>,
    phase: Phase,
) -> Result<Response, CallFailure> {
    let hook = &invocation.hook;
    let attributes = sent.attributes;
    if attributes.dry_run && !runs_dry(hook.side_effects) {
        return Err(CallFailure::Other(ApiError::BadRequest(format!(
            "admission webhook {} does not support dry run",
            crate::gofmt::quote(&hook.name)
        ))));
    }
    let version =
        review::pick_version(&hook.review_versions).map_err(|e| CallFailure::Calling {
            reason: format!("could not create admission objects: {e}"),
            code: 400,
        })?;
    let endpoint = hook.endpoint.as_ref().map_err(|e| CallFailure::Calling {
        reason: format!("could not get REST client: {e}"),
        code: 500,
    })?;
    let uid = uuid::Uuid::new_v4().to_string();
    let options = attributes.options.to_json();
    let body = review::encode(version, &request(&uid, invocation, sent, options.as_ref()));
    // The hook's timeout, within what the request has left (kube's context deadline).
    let left = attributes
        .deadline
        .map(|d| d.saturating_duration_since(std::time::Instant::now()));
    let timeout = left.map_or(hook.timeout, |left| left.min(hook.timeout));
    let span = call_span(hook, attributes, phase, &uid);
    let answer = span
        .scope(transport.post(endpoint, body, timeout))
        .await
        .map_err(|e| CallFailure::Calling {
            code: failure_code(&e),
            reason: e.to_string(),
        })?;
    span.event("Request completed");
    drop(span);
    let response =
        review::decode(version, phase, &uid, &answer).map_err(|e| CallFailure::Calling {
            reason: e.to_string(),
            code: 503,
        })?;
    record(hook, &response, attributes);
    if !response.allowed {
        let (error, code) = denial(&hook.name, response.result.as_ref());
        return Err(CallFailure::Rejected { error, code });
    }
    Ok(response)
}

/// kube's dispatchers' span of one call (`Call mutating webhook` / `Call validating
/// webhook`); the call's `traceparent` is this span's.
fn call_span(
    hook: &Hook,
    attributes: &Attributes<'_>,
    phase: Phase,
    uid: &str,
) -> crate::telemetry::Span {
    use crate::telemetry::KeyValue;
    let name = match phase {
        Phase::Mutating => "Call mutating webhook",
        Phase::Validating => "Call validating webhook",
    };
    crate::telemetry::Span::start(name, || {
        vec![
            KeyValue::new("configuration", hook.configuration.clone()),
            KeyValue::new("webhook", hook.name.clone()),
            KeyValue::new(
                "resource",
                format!(
                    "{}/{}, Resource={}",
                    attributes.group, attributes.version, attributes.resource
                ),
            ),
            KeyValue::new("subresource", attributes.subresource.to_string()),
            KeyValue::new("operation", attributes.operation.as_str()),
            KeyValue::new("UID", uid.to_string()),
        ]
    })
}

/// The code kube counts a failed call under: the answer's (client-go's StatusError),
/// else 500 for a client that cannot be built, else 503 (`error calling webhook`).
fn failure_code(error: &CallError) -> u16 {
    match error {
        CallError::Status { code, .. } => *code,
        CallError::Client(_) => 500,
        _ => 503,
    }
}

/// Whether a hook may be called for a dry run (sideEffects None or NoneOnDryRun).
fn runs_dry(side_effects: SideEffects) -> bool {
    matches!(side_effects, SideEffects::None | SideEffects::NoneOnDryRun)
}

/// The review's request for `invocation` (kube's `CreateAdmissionObjects`): kind and
/// resource as the hook is called, requestKind/Resource as the request was made.
fn request<'a>(
    uid: &'a str,
    invocation: &'a Invocation,
    sent: &'a Sent<'a>,
    options: Option<&'a Value>,
) -> Request<'a> {
    let a = sent.attributes;
    Request {
        uid,
        kind: called_kind(invocation),
        resource: Gvr {
            group: &invocation.resource.group,
            version: &invocation.resource.version,
            resource: &invocation.resource.resource,
        },
        sub_resource: &invocation.subresource,
        request_kind: request_kind(a),
        request_resource: request_resource(a),
        request_sub_resource: a.subresource,
        name: a.name,
        namespace: a.namespace,
        operation: a.operation.as_str(),
        user: a.user,
        object: sent.object,
        old_object: sent.old_object,
        dry_run: a.dry_run,
        options,
    }
}

/// The kind a hook is called with (under `matchPolicy: Equivalent`, another version's).
pub fn called_kind(invocation: &Invocation) -> Gvk<'_> {
    Gvk {
        group: &invocation.kind.group,
        version: &invocation.kind.version,
        kind: &invocation.kind.kind,
    }
}

/// The kind the request was made for.
pub fn request_kind<'a>(a: &Attributes<'a>) -> Gvk<'a> {
    Gvk {
        group: a.kind.group,
        version: a.kind.version,
        kind: a.kind.kind,
    }
}

/// The resource the request was made for.
pub fn request_resource<'a>(a: &Attributes<'a>) -> Gvr<'a> {
    Gvr {
        group: a.group,
        version: a.version,
        resource: a.resource,
    }
}

/// The answer's audit annotations (as `<webhook>/<key>`) and warnings, recorded whether
/// or not it allows the request, as kube records them.
fn record(hook: &Hook, response: &Response, attributes: &Attributes<'_>) {
    for (key, value) in &response.audit_annotations {
        let key = format!("{}/{key}", hook.name);
        attributes.recorder.annotate(key, value.clone());
    }
    for warning in &response.warnings {
        attributes.recorder.warn(warning.clone());
    }
}

/// kube's `ToStatusErr`: the webhook's Status, its message prefixed with who denied,
/// its code at least 400 and its status Failure; the code for the metrics.
pub fn denial(name: &str, result: Option<&review::ResultStatus>) -> (ApiError, u16) {
    let denied_by = format!(
        "admission webhook {} denied the request",
        crate::gofmt::quote(name)
    );
    let empty = review::ResultStatus::default();
    let result = result.unwrap_or(&empty);
    let code = match u16::try_from(result.code) {
        Ok(code) if code >= 400 => code,
        _ => 400,
    };
    let message = match (result.message.as_str(), result.reason.as_str()) {
        ("", "") => format!("{denied_by} without explanation"),
        ("", reason) => format!("{denied_by}: {reason}"),
        (message, _) => format!("{denied_by}: {message}"),
    };
    let status = match result.status.as_str() {
        "" | "Success" => "Failure",
        other => other,
    };
    let mut body = serde_json::json!({
        "kind": "Status", "apiVersion": "v1", "metadata": {},
        "status": status, "message": message, "code": code,
    });
    if !result.reason.is_empty() {
        body["reason"] = Value::from(result.reason.clone());
    }
    if let Some(details) = result.details.as_ref().filter(|d| !is_empty(d)) {
        body["details"] = details.clone();
    }
    (ApiError::Rejected(Box::new(body)), code)
}

fn is_empty(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Object(map) => map.is_empty(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn status(name: &str, result: Option<review::ResultStatus>) -> (Value, u16) {
        let (error, code) = denial(name, result.as_ref());
        (error.to_status(), code)
    }

    #[test]
    fn denial_texts_codes_and_reasons_are_kubes() {
        let forbidden = review::ResultStatus {
            code: 403,
            reason: "Forbidden".into(),
            message: "denied by the test webhook".into(),
            ..Default::default()
        };
        let (body, code) = status("deny.example.com", Some(forbidden));
        assert_eq!(
            body,
            json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                "message": "admission webhook \"deny.example.com\" denied the request: denied by the test webhook",
                "reason": "Forbidden", "code": 403})
        );
        assert_eq!(code, 403);
        let (body, code) = status("w", None);
        assert_eq!(
            body["message"],
            "admission webhook \"w\" denied the request without explanation"
        );
        assert_eq!((body["code"].clone(), code), (json!(400), 400));
        assert!(body.get("reason").is_none());
        let reason_only = review::ResultStatus {
            code: 200,
            reason: "NoWay".into(),
            status: "Success".into(),
            ..Default::default()
        };
        let (body, _) = status("w", Some(reason_only));
        assert_eq!(
            body["message"],
            "admission webhook \"w\" denied the request: NoWay"
        );
        assert_eq!(body["code"], 400, "a code under 400 becomes 400");
        assert_eq!(body["status"], "Failure");
    }

    #[test]
    fn record_keeps_audit_annotations_under_the_webhook_and_warnings_in_order() {
        use crate::admission::{Kind, Operation, Options, Recorder};
        use crate::request::user::UserInfo;
        use k8s_openapi::api::admissionregistration::v1::ValidatingWebhookConfiguration;
        let config: ValidatingWebhookConfiguration = serde_json::from_value(json!({
            "metadata": {"name": "cfg"},
            "webhooks": [{"name": "v.example.com", "clientConfig": {"url": "https://h"},
                "sideEffects": "None", "admissionReviewVersions": ["v1"]}]}))
        .unwrap();
        let hook = crate::admission::webhook::hook::validating(&config).remove(0);
        let (user, recorder) = (UserInfo::anonymous(), Recorder::default());
        let kind = Kind {
            group: "stable.example.com",
            version: "v1",
            kind: "CronTab",
        };
        let attributes = Attributes {
            operation: Operation::Create,
            namespace: "default",
            name: "c1",
            group: "stable.example.com",
            resource: "crontabs",
            version: "v1",
            kind,
            subresource: "",
            dry_run: false,
            user: &user,
            options: Options::None,
            old_object: None,
            served: None,
            recorder: &recorder,
            deadline: None,
        };
        let response = Response {
            allowed: false,
            warnings: vec!["first".into(), "second".into()],
            audit_annotations: [("seen".to_string(), "CREATE".to_string())].into(),
            ..Response::default()
        };
        recorder.annotate("v.example.com/seen".into(), "earlier".into());
        record(&hook, &response, &attributes);
        assert_eq!(recorder.take_warnings(), ["first", "second"]);
        assert_eq!(
            recorder.annotations(),
            [("v.example.com/seen".to_string(), "earlier".to_string())].into(),
            "a key set once keeps its first value, as kube's AddAnnotation"
        );
        let fresh = Recorder::default();
        let attributes = Attributes {
            recorder: &fresh,
            ..attributes
        };
        record(&hook, &response, &attributes);
        assert_eq!(
            fresh.annotations(),
            [("v.example.com/seen".to_string(), "CREATE".to_string())].into()
        );
    }

    #[test]
    fn failing_closed_names_the_webhook_as_kube() {
        let e = CallFailure::failing_closed(
            "w.example.com",
            "failed to call webhook: Post \"https://x/?timeout=1s\": context deadline exceeded",
        );
        assert_eq!(
            e.to_string(),
            "Internal error occurred: failed calling webhook \"w.example.com\": failed to call webhook: Post \"https://x/?timeout=1s\": context deadline exceeded"
        );
        assert_eq!(e.code(), 500);
    }
}
