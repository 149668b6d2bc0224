//! A webhook's answer read as kube reads it: client-go's decoder (the AdmissionReview
//! scheme of k8s.io/apiserver `pkg/util/webhook/client.go`: JSON, else YAML; apiVersion
//! and kind defaulted from the review sent; Go's type errors), then
//! `VerifyAdmissionResponse`.

use std::collections::BTreeMap;

use base64::Engine;
use serde_json::{Map, Value};

use super::{Phase, Response, ResultStatus, ReviewVersion};
use crate::gofmt::quote;
use crate::request::gojson::{self, GoType, METAV1_STATUS};
use crate::webhook::answer;

/// The name `runtime.NewScheme()` gives the webhook client's scheme (its call site).
const GROUP: &str = "admission.k8s.io";
const KIND: &str = "AdmissionReview";
/// The admission webhooks' client scheme.
const SCHEME: answer::Scheme = answer::Scheme {
    name: "pkg/util/webhook/client.go:74",
    group: GROUP,
    kind: KIND,
    also: &[],
};

/// Why an answer is refused; displays what follows `failed calling webhook "<name>": `.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InvalidResponse {
    /// The body does not decode into the AdmissionReview sent (client-go's error).
    #[error("failed to call webhook: {0}")]
    Undecodable(String),
    /// It decodes, but `VerifyAdmissionResponse` refuses it.
    #[error("received invalid webhook response: {0}")]
    Unverified(String),
}

/// A 2xx answer to a review of `version` whose request uid was `uid`, from a webhook of
/// `phase`.
pub fn decode(
    version: ReviewVersion,
    phase: Phase,
    uid: &str,
    body: &[u8],
) -> Result<Response, InvalidResponse> {
    let review = read(version, body).map_err(InvalidResponse::Undecodable)?;
    verify(version, phase, uid, &review).map_err(InvalidResponse::Unverified)
}

/// The body as the AdmissionReview of `version` (client-go's `Result.Into`).
fn read(version: ReviewVersion, body: &[u8]) -> Result<Map<String, Value>, String> {
    let (value, api_version) = answer::sniff(body)?;
    let kind = top_string(&value, "kind");
    let (group, version_read) = gojson::parse_group_version(&api_version)?;
    let actual = with_defaults(group, version_read, &kind, version);
    if actual != (GROUP, version.version(), KIND.to_string()) {
        let (group, v, kind) = &actual;
        return Err(answer::not_the_review(
            &SCHEME,
            (group, v, kind),
            version.version(),
            body,
        ));
    }
    check_types(&value, version)?;
    match value {
        Value::Object(map) => Ok(map),
        // `null` decodes to an empty review.
        _ => Ok(Map::new()),
    }
}

fn top_string(value: &Value, name: &str) -> String {
    value
        .as_object()
        .and_then(|map| {
            map.iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(name))
                .and_then(|(_, v)| v.as_str())
        })
        .unwrap_or_default()
        .to_string()
}

/// apimachinery's `gvkWithDefaults`, defaulted from the review sent.
fn with_defaults<'a>(
    group: &'a str,
    version: &'a str,
    kind: &str,
    sent: ReviewVersion,
) -> (&'a str, &'a str, String) {
    let kind = if kind.is_empty() { KIND } else { kind };
    let (group, version) = match (group, version) {
        ("", "") => (GROUP, sent.version()),
        (GROUP, "") => (GROUP, sent.version()),
        other => other,
    };
    (group, version, kind.to_string())
}

/// Go's type errors decoding the review (sigs.k8s.io/json: case-sensitive names, the
/// first type error), and `[]byte`'s base64.
fn check_types(review: &Value, version: ReviewVersion) -> Result<(), String> {
    let ty = match version {
        ReviewVersion::V1 => &V1_REVIEW,
        ReviewVersion::V1beta1 => &V1BETA1_REVIEW,
    };
    if let Some(text) = gojson::unmarshal_error(review, ty) {
        return Err(text);
    }
    match review.as_object().and_then(patch_text) {
        Some(text) => base64_bytes(text).map(drop),
        None => Ok(()),
    }
}

fn response(review: &Map<String, Value>) -> Option<&Map<String, Value>> {
    review.get("response").and_then(Value::as_object)
}

fn patch_text(review: &Map<String, Value>) -> Option<&str> {
    response(review)?.get("patch")?.as_str()
}

/// Go's `[]byte` from JSON: standard base64, `\r` and `\n` skipped.
fn base64_bytes(text: &str) -> Result<Vec<u8>, String> {
    let clean: String = text.chars().filter(|c| *c != '\r' && *c != '\n').collect();
    base64::engine::general_purpose::STANDARD
        .decode(clean.as_bytes())
        .map_err(|e| {
            let at = match e {
                base64::DecodeError::InvalidByte(at, _)
                | base64::DecodeError::InvalidLastSymbol(at, _) => at,
                _ => clean.len().saturating_sub(clean.len() % 4),
            };
            format!("illegal base64 data at input byte {at}")
        })
}

/// kube's `VerifyAdmissionResponse`.
fn verify(
    version: ReviewVersion,
    phase: Phase,
    uid: &str,
    review: &Map<String, Value>,
) -> Result<Response, String> {
    let Some(response) = response(review) else {
        return Err("webhook response was absent".into());
    };
    let text = |name: &str| {
        response
            .get(name)
            .and_then(Value::as_str)
            .unwrap_or_default()
    };
    let patch = match patch_text(review) {
        Some(t) => base64_bytes(t)?,
        None => Vec::new(),
    };
    let patch_type = response.get("patchType").and_then(Value::as_str);
    let (patch, patch_type) = match version {
        ReviewVersion::V1 => {
            let got_uid = text("uid");
            if got_uid != uid {
                return Err(format!(
                    "expected response.uid={}, got {}",
                    quote(uid),
                    quote(got_uid)
                ));
            }
            check_kind(review, version)?;
            v1_patch(phase, patch, patch_type)?
        }
        ReviewVersion::V1beta1 => match (phase, patch.is_empty()) {
            (Phase::Mutating, false) => (Some(patch), "JSONPatch".to_string()),
            _ => (None, String::new()),
        },
    };
    Ok(Response {
        allowed: response
            .get("allowed")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        result: response
            .get("status")
            .and_then(Value::as_object)
            .map(status),
        patch,
        patch_type,
        warnings: strings(response.get("warnings")),
        audit_annotations: annotations(response.get("auditAnnotations")),
    })
}

fn check_kind(review: &Map<String, Value>, version: ReviewVersion) -> Result<(), String> {
    let field = |name: &str| review.get(name).and_then(Value::as_str).unwrap_or_default();
    let (group, got_version) = gojson::parse_group_version(field("apiVersion")).unwrap_or_default();
    let kind = field("kind");
    if (group, got_version, kind) == (GROUP, version.version(), KIND) {
        return Ok(());
    }
    Err(format!(
        "expected webhook response of {GROUP}/{}, Kind={KIND}, got {group}/{got_version}, Kind={kind}",
        version.version()
    ))
}

fn v1_patch(
    phase: Phase,
    patch: Vec<u8>,
    patch_type: Option<&str>,
) -> Result<(Option<Vec<u8>>, String), String> {
    match (phase, patch.is_empty(), patch_type) {
        (Phase::Mutating, false, None) => {
            Err("webhook returned response.patch but not response.patchType".into())
        }
        (Phase::Mutating, true, Some(_)) => {
            Err("webhook returned response.patchType but not response.patch".into())
        }
        (Phase::Mutating, _, Some("")) => Err(format!(
            "webhook returned invalid response.patchType of {}",
            quote("")
        )),
        (Phase::Mutating, false, Some(t)) => Ok((Some(patch), t.to_string())),
        (Phase::Mutating, true, None) => Ok((None, String::new())),
        (Phase::Validating, false, _) => {
            Err("validating webhook may not return response.patch".into())
        }
        (Phase::Validating, true, Some(_)) => {
            Err("validating webhook may not return response.patchType".into())
        }
        (Phase::Validating, true, None) => Ok((None, String::new())),
    }
}

fn status(map: &Map<String, Value>) -> ResultStatus {
    let text = |name: &str| {
        map.get(name)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    ResultStatus {
        status: text("status"),
        code: map
            .get("code")
            .and_then(Value::as_i64)
            .and_then(|c| i32::try_from(c).ok())
            .unwrap_or(0),
        reason: text("reason"),
        message: text("message"),
        details: map.get("details").filter(|d| !d.is_null()).cloned(),
    }
}

fn strings(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .map(|v| v.as_str().unwrap_or_default().to_string())
                .collect()
        })
        .unwrap_or_default()
}

fn annotations(value: Option<&Value>) -> BTreeMap<String, String> {
    value
        .and_then(Value::as_object)
        .map(|map| {
            map.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                .collect()
        })
        .unwrap_or_default()
}

const RESPONSE_FIELDS: &[(&str, GoType)] = &[
    ("uid", GoType::Str("types.UID")),
    ("allowed", GoType::Bool),
    ("status", METAV1_STATUS),
    ("patch", GoType::Str("[]uint8")),
    ("patchType", GoType::Str("v1.PatchType")),
    (
        "auditAnnotations",
        GoType::Map("map[string]string", &GoType::Str("string")),
    ),
    (
        "warnings",
        GoType::Slice("[]string", &GoType::Str("string")),
    ),
];

const V1_REVIEW: GoType = GoType::Struct(
    "AdmissionReview",
    "v1.AdmissionReview",
    &[
        ("kind", GoType::Str("string")),
        ("apiVersion", GoType::Str("string")),
        (
            "response",
            GoType::Struct("AdmissionResponse", "v1.AdmissionResponse", RESPONSE_FIELDS),
        ),
    ],
);

const V1BETA1_REVIEW: GoType = GoType::Struct(
    "AdmissionReview",
    "v1beta1.AdmissionReview",
    &[
        ("kind", GoType::Str("string")),
        ("apiVersion", GoType::Str("string")),
        (
            "response",
            GoType::Struct(
                "AdmissionResponse",
                "v1beta1.AdmissionResponse",
                RESPONSE_FIELDS,
            ),
        ),
    ],
);
