//! What an event records about a request, as kube's `audit/request.go` fills it: the
//! request metadata (URI, verb, user, source IPs, user agent, object reference), objects
//! encoded as JSON (managed fields left out on request), and a Status answer as the
//! response status.

use std::net::IpAddr;

use serde_json::Value;
use serde_json::value::RawValue;

use super::event::{Event, Level, ObjectReference, Stage, UserInfo, time};
use crate::request::info::RequestInfo;

/// kube's `maxUserAgentLength` and the suffix a longer agent is cut to.
const MAX_USER_AGENT: usize = 1024;
const TRUNCATED: &str = "...TRUNCATED";

/// The request as an event records it before anything else (kube's `LogRequestMetadata`).
pub struct RequestMeta<'a> {
    pub audit_id: &'a str,
    pub uri: &'a str,
    pub info: &'a RequestInfo,
    pub user: Option<&'a crate::request::user::UserInfo>,
    pub source_ips: Vec<String>,
    pub user_agent: &'a str,
    pub received: jiff::Timestamp,
}

/// The event at RequestReceived with the request's metadata (its level set by the
/// context).
pub fn metadata_event(meta: RequestMeta<'_>) -> Event {
    let info = meta.info;
    let object_ref = info.is_resource_request.then(|| ObjectReference {
        resource: info.resource.clone(),
        namespace: info.namespace.clone(),
        name: info.name.clone(),
        api_group: info.api_group.clone(),
        api_version: info.api_version.clone(),
        subresource: info.subresource.as_str().to_owned(),
        ..ObjectReference::default()
    });
    let received = time::stamp(meta.received);
    Event {
        kind: "Event".into(),
        api_version: "audit.k8s.io/v1".into(),
        level: Level::None,
        audit_id: meta.audit_id.to_owned(),
        stage: Stage::RequestReceived,
        request_uri: meta.uri.to_owned(),
        verb: info.verb.as_str().to_owned(),
        user: meta.user.map(user_info).unwrap_or_default(),
        impersonated_user: None,
        source_ips: meta.source_ips,
        user_agent: user_agent(meta.user_agent),
        object_ref,
        response_status: None,
        request_object: None,
        response_object: None,
        stage_timestamp: received.clone(),
        request_received_timestamp: received,
        annotations: Default::default(),
    }
}

/// A user as `authentication.k8s.io/v1` UserInfo.
pub fn user_info(user: &crate::request::user::UserInfo) -> UserInfo {
    UserInfo {
        username: user.name.clone(),
        uid: user.uid.clone(),
        groups: user.groups.clone(),
        extra: user.extra.clone(),
    }
}

/// kube's `maybeTruncateUserAgent`.
fn user_agent(agent: &str) -> String {
    if agent.len() <= MAX_USER_AGENT {
        return agent.to_owned();
    }
    let mut cut = MAX_USER_AGENT;
    while !agent.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}{TRUNCATED}", &agent[..cut])
}

/// kube's `utilnet.SourceIPs`: every valid address of `X-Forwarded-For` in order, then
/// `X-Real-Ip` unless already there, then the peer's address unless it is the last one.
pub fn source_ips(forwarded_for: Option<&str>, real_ip: Option<&str>, peer: IpAddr) -> Vec<String> {
    let mut ips: Vec<IpAddr> = forwarded_for
        .into_iter()
        .flat_map(|h| h.split(','))
        .filter_map(parse_ip)
        .collect();
    if let Some(ip) = real_ip.and_then(parse_ip)
        && !ips.contains(&ip)
    {
        ips.push(ip);
    }
    let peer = peer.to_canonical();
    if ips.last() != Some(&peer) {
        ips.push(peer);
    }
    ips.iter().map(IpAddr::to_string).collect()
}

fn parse_ip(text: &str) -> Option<IpAddr> {
    text.trim()
        .parse::<IpAddr>()
        .ok()
        .map(|ip| ip.to_canonical())
}

/// `object` as JSON (keys sorted, as Go encodes an unstructured object), without its
/// managed fields when `omit_managed_fields` (kube's `copyWithoutManagedFields`: the
/// object's, a list's items', a table's rows' objects').
pub fn encode(object: &Value, omit_managed_fields: bool) -> Option<Box<RawValue>> {
    let text = match omit_managed_fields && has_managed_fields(object) {
        true => {
            let mut copy = object.clone();
            strip_managed_fields(&mut copy);
            serde_json::to_string(&copy)
        }
        false => serde_json::to_string(object),
    };
    text.ok().and_then(|t| RawValue::from_string(t).ok())
}

fn has_managed_fields(object: &Value) -> bool {
    let own = object.pointer("/metadata/managedFields").is_some();
    let items = object["items"]
        .as_array()
        .is_some_and(|items| items.iter().any(has_managed_fields));
    let rows = object["rows"].as_array().is_some_and(|rows| {
        rows.iter()
            .any(|r| has_managed_fields(r.get("object").unwrap_or(&Value::Null)))
    });
    own || items || rows
}

fn strip_managed_fields(object: &mut Value) {
    if let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.remove("managedFields");
    }
    if let Some(items) = object.get_mut("items").and_then(Value::as_array_mut) {
        items.iter_mut().for_each(strip_managed_fields);
    }
    if let Some(rows) = object.get_mut("rows").and_then(Value::as_array_mut) {
        for row in rows {
            if let Some(o) = row.get_mut("object") {
                strip_managed_fields(o);
            }
        }
    }
}

/// Bytes a client sent as JSON, compacted as Go's encoder compacts raw JSON (members
/// kept in their order); YAML (an apply patch) is turned into JSON, which is what kube's
/// event carries.
pub fn raw_json(bytes: &[u8]) -> Option<Box<RawValue>> {
    if let Ok(raw) = serde_json::from_slice::<Box<RawValue>>(bytes) {
        return RawValue::from_string(compact(raw.get())).ok();
    }
    let value: Value = serde_saphyr::from_str(std::str::from_utf8(bytes).ok()?).ok()?;
    RawValue::from_string(serde_json::to_string(&value).ok()?).ok()
}

/// Valid JSON without the whitespace between its tokens.
fn compact(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in json.chars() {
        match (in_string, escaped, c) {
            (true, true, _) => escaped = false,
            (true, false, '\\') => escaped = true,
            (true, false, '"') | (false, _, '"') => in_string = !in_string,
            (false, _, ' ' | '\n' | '\r' | '\t') => continue,
            _ => {}
        }
        out.push(c);
    }
    out
}

/// The fields kube copies from a `metav1.Status` answer into the response status.
pub fn status_of(object: &Value) -> Option<Value> {
    if object["kind"] != "Status" || object["apiVersion"] != "v1" {
        return None;
    }
    let mut status = serde_json::Map::new();
    status.insert("metadata".into(), Value::Object(Default::default()));
    for field in ["status", "message", "reason", "details", "code"] {
        match object.get(field) {
            Some(Value::String(s)) if s.is_empty() => {}
            Some(Value::Null) | None => {}
            Some(v) => {
                status.insert(field.into(), v.clone());
            }
        }
    }
    Some(Value::Object(status))
}

/// kube's `LogRequestObject`'s completion of the reference from the object's metadata:
/// namespace, name, uid and resourceVersion when the request did not name them.
pub fn complete_reference(reference: &mut ObjectReference, object: &Value) {
    let meta = |field: &str| {
        object["metadata"][field]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    };
    for (slot, field) in [
        (&mut reference.namespace, "namespace"),
        (&mut reference.name, "name"),
        (&mut reference.uid, "uid"),
        (&mut reference.resource_version, "resourceVersion"),
    ] {
        if slot.is_empty() {
            *slot = meta(field);
        }
    }
}

#[cfg(test)]
#[path = "request_tests.rs"]
mod tests;
