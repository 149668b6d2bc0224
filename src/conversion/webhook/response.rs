//! A converter's answer read and checked as kube reads it: client-go's decoder into the
//! ConversionReview sent (the webhook client's scheme, Go's type errors), then
//! `getConvertedObjectsFromResponse` (v1: kind and `response.uid`; both versions: a
//! response, `result.status` Success). Texts verbatim; the caller wraps them in
//! `conversion webhook for <gvk> failed: …`.

use serde_json::{Map, Value};

use super::review::{GROUP, KIND, ReviewVersion};
use crate::gofmt::quote;
use crate::request::gojson::{self, GoType, METAV1_STATUS};
use crate::webhook::answer;

/// The name `runtime.NewScheme()` gives the webhook client's scheme: its call site in
/// k8s.io/apiserver `pkg/util/webhook/client.go`, as the reference's conversion answers
/// name it (hack/conversion-oracle/FINDINGS.md §1; admission's recordings say `:74`).
/// The conversion webhooks' client scheme (apiextensions' types registered).
const SCHEME: answer::Scheme = answer::Scheme {
    name: "pkg/util/webhook/client.go:71",
    group: GROUP,
    kind: KIND,
    also: &["CustomResourceDefinition", "CustomResourceDefinitionList"],
};

/// Why an answer is refused, sorted as kube's metrics sort it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refused {
    /// The body does not decode into the ConversionReview sent (a call failure to kube).
    Undecodable(String),
    /// It decodes, but the review's checks refuse it (a malformed response).
    Malformed(String),
}

/// A 2xx answer to a review of `version` whose request uid was `uid`: the
/// `convertedObjects` (a `null` item stays `Value::Null`).
pub fn decode(version: ReviewVersion, uid: &str, body: &[u8]) -> Result<Vec<Value>, Refused> {
    let review = read(version, body).map_err(Refused::Undecodable)?;
    converted_objects(version, uid, &review).map_err(Refused::Malformed)
}

/// The body as the ConversionReview of `version` (client-go's `Result.Into`).
fn read(version: ReviewVersion, body: &[u8]) -> Result<Map<String, Value>, String> {
    let (value, api_version) = answer::sniff(body)?;
    let kind = top_string(&value, "kind");
    let (group, read_version) = gojson::parse_group_version(&api_version)?;
    let actual = with_defaults(group, read_version, &kind, version);
    if actual != (GROUP, version.version(), KIND.to_string()) {
        let (group, v, kind) = &actual;
        return Err(answer::not_the_review(
            &SCHEME,
            (group, v, kind),
            version.version(),
            body,
        ));
    }
    let ty = match version {
        ReviewVersion::V1 => &V1_REVIEW,
        ReviewVersion::V1beta1 => &V1BETA1_REVIEW,
    };
    if let Some(text) = gojson::unmarshal_error(&value, ty) {
        return Err(text);
    }
    match value {
        Value::Object(map) => Ok(map),
        // `null` decodes to an empty review.
        _ => Ok(Map::new()),
    }
}

fn top_string(value: &Value, name: &str) -> String {
    let found = value.as_object().and_then(|map| {
        map.iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .and_then(|(_, v)| v.as_str())
    });
    found.unwrap_or_default().to_string()
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
        ("", "") | (GROUP, "") => (GROUP, sent.version()),
        other => other,
    };
    (group, version, kind.to_string())
}

/// kube's `getConvertedObjectsFromResponse`.
fn converted_objects(
    version: ReviewVersion,
    uid: &str,
    review: &Map<String, Value>,
) -> Result<Vec<Value>, String> {
    if version == ReviewVersion::V1 {
        check_kind(review)?;
    }
    let Some(response) = review.get("response").and_then(Value::as_object) else {
        return Err("no response provided".into());
    };
    let text = |map: &Map<String, Value>, name: &str| {
        let found = map.get(name).and_then(Value::as_str);
        found.unwrap_or_default().to_string()
    };
    if version == ReviewVersion::V1 {
        let got = text(response, "uid");
        if got != uid {
            return Err(format!(
                "expected response.uid={}, got {}",
                quote(uid),
                quote(&got)
            ));
        }
    }
    let empty = Map::new();
    let result = response
        .get("result")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let status = text(result, "status");
    if status != "Success" {
        let message = text(result, "message");
        return Err(match message.is_empty() {
            false => message,
            true => format!("response.result.status was '{status}', not 'Success'"),
        });
    }
    let objects = response.get("convertedObjects").and_then(Value::as_array);
    Ok(objects.cloned().unwrap_or_default())
}

/// v1 only: the decoded review's own kind must be v1 ConversionReview.
fn check_kind(review: &Map<String, Value>) -> Result<(), String> {
    let field = |name: &str| review.get(name).and_then(Value::as_str).unwrap_or_default();
    let (group, version) = gojson::parse_group_version(field("apiVersion")).unwrap_or_default();
    let kind = field("kind");
    if (group, version, kind) == (GROUP, "v1", KIND) {
        return Ok(());
    }
    Err(format!(
        "expected webhook response of {GROUP}/v1, Kind={KIND}, got {group}/{version}, Kind={kind}"
    ))
}

const RAW_EXTENSIONS: GoType = GoType::Slice("[]runtime.RawExtension", &GoType::Any);

const REQUEST_FIELDS: &[(&str, GoType)] = &[
    ("uid", GoType::Str("types.UID")),
    ("desiredAPIVersion", GoType::Str("string")),
    ("objects", RAW_EXTENSIONS),
];

const RESPONSE_FIELDS: &[(&str, GoType)] = &[
    ("uid", GoType::Str("types.UID")),
    ("convertedObjects", RAW_EXTENSIONS),
    ("result", METAV1_STATUS),
];

const V1_REVIEW: GoType = GoType::Struct(
    KIND,
    "v1.ConversionReview",
    &[
        ("kind", GoType::Str("string")),
        ("apiVersion", GoType::Str("string")),
        (
            "request",
            GoType::Struct("ConversionRequest", "v1.ConversionRequest", REQUEST_FIELDS),
        ),
        (
            "response",
            GoType::Struct(
                "ConversionResponse",
                "v1.ConversionResponse",
                RESPONSE_FIELDS,
            ),
        ),
    ],
);

const V1BETA1_REVIEW: GoType = GoType::Struct(
    KIND,
    "v1beta1.ConversionReview",
    &[
        ("kind", GoType::Str("string")),
        ("apiVersion", GoType::Str("string")),
        (
            "request",
            GoType::Struct(
                "ConversionRequest",
                "v1beta1.ConversionRequest",
                REQUEST_FIELDS,
            ),
        ),
        (
            "response",
            GoType::Struct(
                "ConversionResponse",
                "v1beta1.ConversionResponse",
                RESPONSE_FIELDS,
            ),
        ),
    ],
);
