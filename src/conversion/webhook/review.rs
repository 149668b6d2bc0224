//! The ConversionReview a converter is sent (apiextensions-apiserver
//! `webhook_converter.go`): the review version (the first of the CRD's
//! `conversionReviewVersions` this server speaks), the objects that need converting
//! (kube's `getObjectsToConvert`: those not at the desired version; an object with only
//! `apiVersion` and `kind` is never sent), and the request bytes as kube's JSON
//! serializer writes them, with the empty `response` kube sends too.

use serde_json::Value;

use crate::gofmt::{json_string, marshal};

/// The group of ConversionReview.
pub const GROUP: &str = "apiextensions.k8s.io";
/// Its kind.
pub const KIND: &str = "ConversionReview";

/// The ConversionReview version a converter is called with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReviewVersion {
    V1,
    V1beta1,
}

impl ReviewVersion {
    /// `v1` or `v1beta1`.
    pub fn version(self) -> &'static str {
        match self {
            ReviewVersion::V1 => "v1",
            ReviewVersion::V1beta1 => "v1beta1",
        }
    }

    /// `apiextensions.k8s.io/<version>`.
    pub fn api_version(self) -> String {
        format!("{GROUP}/{}", self.version())
    }
}

/// kube's `createConversionReviewObjects`: the first of `accepted` that is `v1beta1` or
/// `v1`, in the CRD's order.
pub fn pick_version(accepted: &[String]) -> Result<ReviewVersion, String> {
    accepted
        .iter()
        .find_map(|v| match v.as_str() {
            "v1" => Some(ReviewVersion::V1),
            "v1beta1" => Some(ReviewVersion::V1beta1),
            _ => None,
        })
        .ok_or_else(|| "no supported conversion review versions".to_string())
}

/// kube's `isEmptyUnstructuredObject`: exactly the two members `apiVersion` and `kind`.
pub fn is_empty_object(object: &Value) -> bool {
    object
        .as_object()
        .is_some_and(|m| m.len() == 2 && m.contains_key("apiVersion") && m.contains_key("kind"))
}

/// The `apiVersion` of an object as unstructured reads it (not a string: empty).
pub fn api_version(object: &Value) -> &str {
    object
        .get("apiVersion")
        .and_then(Value::as_str)
        .unwrap_or_default()
}

/// The indices of the objects to send: not empty (kube's nop shortcut) and not at
/// `desired` already (kube's `getObjectsToConvert`, sparse).
pub fn to_send(objects: &[Value], desired: &str) -> Vec<usize> {
    objects
        .iter()
        .enumerate()
        .filter(|(_, o)| !is_empty_object(o) && api_version(o) != desired)
        .map(|(i, _)| i)
        .collect()
}

/// The review's bytes: `kind`, `apiVersion`, `request {uid, desiredAPIVersion,
/// objects}`, and kube's empty `response {uid: "", convertedObjects: null, result:
/// {metadata: {}}}` (no `omitempty` on those fields), each object as Go's encoder writes
/// an unstructured object (keys sorted), ending in a newline as kube's encoder does.
pub fn encode(version: ReviewVersion, uid: &str, desired: &str, objects: &[&Value]) -> Vec<u8> {
    let objects: Vec<String> = objects.iter().map(|o| marshal(o)).collect();
    format!(
        "{{\"kind\":\"{KIND}\",\"apiVersion\":{},\"request\":{{\"uid\":{},\"desiredAPIVersion\":{},\"objects\":[{}]}},\"response\":{{\"uid\":\"\",\"convertedObjects\":null,\"result\":{{\"metadata\":{{}}}}}}}}\n",
        json_string(&version.api_version()),
        json_string(uid),
        json_string(desired),
        objects.join(",")
    )
    .into_bytes()
}
