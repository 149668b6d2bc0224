//! An event in the log backend's `legacy` format: kube's one-line `EventString`
//! (k8s.io/apiserver pkg/audit/format.go), Go's `%q` quoting included.

use serde_json::Value;

use super::Event;
use super::time::rfc3339_nano;
use crate::gofmt::quote;

/// kube's `EventString`: `<time> AUDIT: id="…" stage="…" ip="…" method="…" user="…"
/// groups="…" as="…" asgroups="…" user-agent="…" namespace="…" uri="…" response="…"`.
/// The log backend writes it followed by `\n`.
pub fn event_string(ev: &Event) -> String {
    let (user, groups) = match ev.user.username.as_str() {
        "" => ("<none>", "<none>".to_owned()),
        name if ev.user.groups.is_empty() => (name, "<none>".to_owned()),
        name => (name, quoted_list(&ev.user.groups)),
    };
    // Go tells a nil group list (`<lookup>`) from an empty one; an empty list is nil here.
    let (as_user, as_groups) = match &ev.impersonated_user {
        None => ("<self>", "<lookup>".to_owned()),
        Some(u) if u.groups.is_empty() => (u.username.as_str(), "<lookup>".to_owned()),
        Some(u) => (u.username.as_str(), quoted_list(&u.groups)),
    };
    let namespace = match &ev.object_ref {
        Some(r) if !r.namespace.is_empty() => r.namespace.as_str(),
        _ => "<none>",
    };
    let response = match &ev.response_status {
        Some(status) => status
            .get("code")
            .and_then(Value::as_i64)
            .unwrap_or(0)
            .to_string(),
        None => "<deferred>".to_owned(),
    };
    let ip = ev.source_ips.first().map_or("<unknown>", String::as_str);
    format!(
        "{} AUDIT: id={} stage={} ip={} method={} user={} groups={} as={} asgroups={} user-agent={} namespace={} uri={} response=\"{response}\"",
        rfc3339_nano(&ev.request_received_timestamp),
        quote(&ev.audit_id),
        quote(stage_name(ev.stage)),
        quote(ip),
        quote(&ev.verb),
        quote(user),
        quote(&groups),
        quote(as_user),
        quote(&as_groups),
        quote(&ev.user_agent),
        quote(namespace),
        quote(&ev.request_uri),
    )
}

/// kube's `auditStringSlice`: each element `%q`, joined by commas.
fn quoted_list(items: &[String]) -> String {
    items.iter().map(|s| quote(s)).collect::<Vec<_>>().join(",")
}

fn stage_name(stage: super::Stage) -> &'static str {
    match stage {
        super::Stage::RequestReceived => "RequestReceived",
        super::Stage::ResponseStarted => "ResponseStarted",
        super::Stage::ResponseComplete => "ResponseComplete",
        super::Stage::Panic => "Panic",
    }
}
