//! The `audit.k8s.io/v1` Event as kube writes it: fields in Go's order, empty optional
//! fields omitted as Go's `omitempty` omits them, timestamps as `metav1.MicroTime`.

pub mod json;
pub mod legacy;
#[cfg(test)]
mod tests;
pub mod time;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// kube's audit `Level`, ordered: `None < Metadata < Request < RequestResponse`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Level {
    None,
    Metadata,
    Request,
    RequestResponse,
}

/// kube's audit `Stage`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Stage {
    RequestReceived,
    ResponseStarted,
    ResponseComplete,
    Panic,
}

/// `authentication.k8s.io/v1` UserInfo as an audit event carries it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct UserInfo {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub username: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub uid: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub extra: BTreeMap<String, Vec<String>>,
}

/// The object a request is aimed at (absent on non-resource requests).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectReference {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub resource: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub namespace: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub uid: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub api_group: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub api_version: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub resource_version: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub subresource: String,
}

/// One audit event. `request_object` and `response_object` hold JSON exactly as it is
/// written into the event (kube's `runtime.Unknown` raw bytes).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Event {
    /// `Event`; empty (and then left out, as Go's `omitempty` does) for the items of a
    /// webhook's EventList.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub kind: String,
    /// `audit.k8s.io/v1`; empty for EventList items, as `kind`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub api_version: String,
    pub level: Level,
    #[serde(rename = "auditID")]
    pub audit_id: String,
    pub stage: Stage,
    #[serde(rename = "requestURI")]
    pub request_uri: String,
    pub verb: String,
    pub user: UserInfo,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub impersonated_user: Option<UserInfo>,
    #[serde(default, rename = "sourceIPs", skip_serializing_if = "Vec::is_empty")]
    pub source_ips: Vec<String>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub user_agent: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object_ref: Option<ObjectReference>,
    /// A `metav1.Status` (kube fills `code`, and `status`/`message`/`reason` on errors),
    /// written in Go's field order with `metadata` always ([`json::serialize_status`]).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "json::serialize_status"
    )]
    pub response_status: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_object: Option<Box<RawValue>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_object: Option<Box<RawValue>>,
    /// RFC 3339 in UTC at any precision ([`time::stamp`] keeps nanoseconds): the json
    /// format writes it as `metav1.MicroTime` (six digits), the legacy format as Go's
    /// `RFC3339Nano`, each as kube does from its in-memory time.
    #[serde(serialize_with = "time::serialize_micro")]
    pub request_received_timestamp: String,
    /// As `request_received_timestamp`.
    #[serde(serialize_with = "time::serialize_micro")]
    pub stage_timestamp: String,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
}
