//! The handlers' spans, as kube's handlers start them (`tracing.Start(ctx, "Create",
//! traceFields(req)...)`): the span name of a verb and kube's `traceFields` attributes.

use crate::request::info::{RequestInfo, Verb};
use crate::telemetry::span::current_event;
use crate::telemetry::{KeyValue, Span};

use super::Call;

/// kube's handler span name of a verb; `None` where kube's handler starts none (a watch
/// is served by the watch server, not a handler span).
pub fn span_name(verb: &Verb) -> Option<&'static str> {
    match verb {
        Verb::Get => Some("Get"),
        Verb::List => Some("List"),
        Verb::Create => Some("Create"),
        Verb::Update => Some("Update"),
        Verb::Patch => Some("Patch"),
        Verb::Delete | Verb::DeleteCollection => Some("Delete"),
        _ => None,
    }
}

/// Whether kube's handler of `verb` adds `Writing http response done` once it wrote
/// its response (every one of [`span_name`]'s but the list's).
pub fn reports_written(verb: &Verb) -> bool {
    !matches!(verb, Verb::List)
}

/// The handler span of `call` (a resource request's), under the current span.
pub fn start(call: &Call) -> Span {
    if !call.info.is_resource_request {
        return Span::none();
    }
    match span_name(&call.info.verb) {
        Some(name) => Span::start(name, || trace_fields(call)),
        None => Span::none(),
    }
}

/// An event on the handler's span (kube's `span.AddEvent` in its handlers).
pub fn event(name: &'static str) {
    current_event(name, Vec::new);
}

/// `limitedReadBody succeeded` with the body's length.
pub fn body_read(call: &Call) {
    current_event("limitedReadBody succeeded", || vec![body_len(call)]);
}

/// `Write to database call succeeded`, or `… failed` with the error.
pub fn written<T>(call: &Call, result: &Result<T, crate::error::ApiError>) {
    match result {
        Ok(_) => current_event("Write to database call succeeded", || vec![body_len(call)]),
        Err(e) => current_event("Write to database call failed", || {
            vec![body_len(call), KeyValue::new("err", e.to_string())]
        }),
    }
}

fn body_len(call: &Call) -> KeyValue {
    KeyValue::new("len", i64::try_from(call.body.len()).unwrap_or(i64::MAX))
}

/// kube's `traceFields`.
fn trace_fields(call: &Call) -> Vec<KeyValue> {
    let info = &call.info;
    let header = |name: &str| call.header(name).unwrap_or_default().to_string();
    let facts = crate::telemetry::server::Facts::current();
    let protocol = facts.as_ref().map_or("", |f| f.protocol);
    let audit_id = facts
        .as_ref()
        .map(|f| f.audit_id.clone())
        .unwrap_or_default();
    let peer = facts.map(|f| f.client).unwrap_or_default();
    vec![
        KeyValue::new("protocol", protocol),
        KeyValue::new("audit-id", audit_id),
        KeyValue::new("accept", header("accept")),
        KeyValue::new("client", client_ip(call).unwrap_or(peer)),
        KeyValue::new("api-group", info.api_group.clone()),
        KeyValue::new("api-version", info.api_version.clone()),
        KeyValue::new("name", info.name.clone()),
        KeyValue::new("subresource", info.subresource.as_str().to_string()),
        KeyValue::new("namespace", info.namespace.clone()),
        KeyValue::new("resource", info.resource.clone()),
        KeyValue::new("scope", clean_scope(info)),
        KeyValue::new("url", info.path.clone()),
        KeyValue::new("user-agent", truncated_user_agent(&header("user-agent"))),
        KeyValue::new("verb", lazy_verb(call)),
    ]
}

/// kube's `lazyVerb`: the HTTP method, `LIST` for a list, `WATCH` for a watch.
fn lazy_verb(call: &Call) -> String {
    match call.info.verb {
        Verb::List => "LIST".into(),
        Verb::Watch => "WATCH".into(),
        _ => call.method.as_str().to_string(),
    }
}

/// utilnet's `GetClientIP` as far as the headers tell: the first `X-Forwarded-For`
/// address, else `X-Real-Ip` (else the peer's, which the caller has).
fn client_ip(call: &Call) -> Option<String> {
    let forwarded = call
        .header("x-forwarded-for")
        .and_then(|v| v.split(',').next())
        .map(str::trim)
        .filter(|ip| ip.parse::<std::net::IpAddr>().is_ok());
    let real = || {
        call.header("x-real-ip")
            .map(str::trim)
            .filter(|ip| ip.parse::<std::net::IpAddr>().is_ok())
    };
    forwarded.or_else(real).map(str::to_string)
}

/// kube's `CleanScope`.
fn clean_scope(info: &RequestInfo) -> &'static str {
    if !info.name.is_empty() || info.verb == Verb::Create {
        return "resource";
    }
    if !info.namespace.is_empty() {
        return "namespace";
    }
    match info.is_resource_request {
        true => "cluster",
        false => "",
    }
}

/// kube's `lazyTruncatedUserAgent`: at most 256 bytes, then `...TRUNCATED`.
fn truncated_user_agent(agent: &str) -> String {
    const MAX: usize = 256;
    if agent.len() <= MAX {
        return agent.to_string();
    }
    let mut cut = MAX;
    while !agent.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}...TRUNCATED", &agent[..cut])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::query::Query;

    #[test]
    fn clean_scope_as_kube_scopes() {
        let cases = [
            ("GET", "/apis/g/v/namespaces/ns/foos/a", "resource"),
            ("POST", "/apis/g/v/namespaces/ns/foos", "resource"),
            ("GET", "/apis/g/v/namespaces/ns/foos", "namespace"),
            ("GET", "/apis/g/v/foos", "cluster"),
            ("GET", "/healthz", ""),
        ];
        for (method, path, want) in cases {
            let info = crate::request::info::parse(method, path, &Query::default());
            assert_eq!(clean_scope(&info), want, "{method} {path}");
        }
    }

    #[test]
    fn truncated_user_agent_long_cut() {
        assert_eq!(truncated_user_agent("kubectl/v1.36"), "kubectl/v1.36");
        let long = "a".repeat(300);
        assert_eq!(
            truncated_user_agent(&long),
            format!("{}...TRUNCATED", "a".repeat(256))
        );
    }

    #[test]
    fn span_name_verbs_kube_handlers() {
        assert_eq!(span_name(&Verb::Create), Some("Create"));
        assert_eq!(span_name(&Verb::DeleteCollection), Some("Delete"));
        assert_eq!(span_name(&Verb::Watch), None);
    }
}
