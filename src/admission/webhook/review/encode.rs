//! The AdmissionReview request body, as kube's JSON serializer writes it: its fields in
//! Go's struct order, `omitempty` as in `k8s.io/api/admission`, HTML-safe escapes.

use std::fmt::Write;

use serde_json::Value;

use super::{Gvk, Gvr, Request, ReviewVersion};
use crate::gofmt::{json_string, marshal};
use crate::request::user::UserInfo;

/// The body of an AdmissionReview of `version` carrying `request`.
pub fn encode(version: ReviewVersion, request: &Request) -> Vec<u8> {
    let mut out = String::with_capacity(512);
    out.push_str(r#"{"kind":"AdmissionReview","apiVersion":"#);
    out.push_str(&json_string(version.api_version()));
    out.push_str(r#","request":{"uid":"#);
    out.push_str(&json_string(request.uid));
    field(&mut out, "kind", &gvk(request.kind));
    field(&mut out, "resource", &gvr(request.resource));
    omit_empty(&mut out, "subResource", request.sub_resource);
    field(&mut out, "requestKind", &gvk(request.request_kind));
    field(&mut out, "requestResource", &gvr(request.request_resource));
    omit_empty(&mut out, "requestSubResource", request.request_sub_resource);
    omit_empty(&mut out, "name", request.name);
    omit_empty(&mut out, "namespace", request.namespace);
    field(&mut out, "operation", &json_string(request.operation));
    field(&mut out, "userInfo", &user_info(request.user));
    field(&mut out, "object", &raw(request.object));
    field(&mut out, "oldObject", &raw(request.old_object));
    field(
        &mut out,
        "dryRun",
        if request.dry_run { "true" } else { "false" },
    );
    field(&mut out, "options", &raw(request.options));
    out.push_str("}}");
    out.into_bytes()
}

fn field(out: &mut String, name: &str, value: &str) {
    let _ = write!(out, ",\"{name}\":{value}");
}

fn omit_empty(out: &mut String, name: &str, value: &str) {
    if !value.is_empty() {
        field(out, name, &json_string(value));
    }
}

fn gvk(g: Gvk) -> String {
    format!(
        r#"{{"group":{},"version":{},"kind":{}}}"#,
        json_string(g.group),
        json_string(g.version),
        json_string(g.kind)
    )
}

fn gvr(g: Gvr) -> String {
    format!(
        r#"{{"group":{},"version":{},"resource":{}}}"#,
        json_string(g.group),
        json_string(g.version),
        json_string(g.resource)
    )
}

/// `authenticationv1.UserInfo`: every field `omitempty`.
fn user_info(user: &UserInfo) -> String {
    let mut out = String::from("{");
    let mut sep = "";
    let mut put = |out: &mut String, name: &str, value: String| {
        let _ = write!(out, "{sep}\"{name}\":{value}");
        sep = ",";
    };
    if !user.name.is_empty() {
        put(&mut out, "username", json_string(&user.name));
    }
    if !user.uid.is_empty() {
        put(&mut out, "uid", json_string(&user.uid));
    }
    if !user.groups.is_empty() {
        put(&mut out, "groups", strings(&user.groups));
    }
    if !user.extra.is_empty() {
        let entries: Vec<String> = user
            .extra
            .iter()
            .map(|(k, v)| format!("{}:{}", json_string(k), strings(v)))
            .collect();
        put(&mut out, "extra", format!("{{{}}}", entries.join(",")));
    }
    out.push('}');
    out
}

fn strings(items: &[String]) -> String {
    let quoted: Vec<String> = items.iter().map(|s| json_string(s)).collect();
    format!("[{}]", quoted.join(","))
}

/// A `runtime.RawExtension`: the object's JSON, `null` when there is none.
fn raw(value: Option<&Value>) -> String {
    value.map_or_else(|| "null".into(), marshal)
}
