//! The request's server span, as kube's `WithTracing` (otelhttp's handler) makes it:
//! named `<METHOD> /apis/<group>/<version>[/namespaces/{:namespace}]/<resource>[/{:name}][/<subresource>]`
//! (the method alone off the resource paths), started when the request arrived, with
//! otelhttp's attributes and kube's `http.target` and `audit-id`. The incoming
//! `traceparent` is its parent for `system:masters` and `system:monitoring` (kube's
//! `notSystemPrivilegedGroup` public-endpoint rule); for anyone else it is a link of a
//! new trace. Without a tracer the incoming context is only passed on to webhooks.

use std::time::SystemTime;

use http::HeaderMap;
use opentelemetry::trace::{Link, Span as _, SpanKind, Status, TraceContextExt, Tracer as _};
use opentelemetry::{Context, KeyValue};

use super::propagation;
use super::provider::Tracer;
use super::span::{ChildTracer, record_finished};

/// The groups whose trace context is continued (kube's privileged groups).
pub const PRIVILEGED_GROUPS: [&str; 2] = ["system:masters", "system:monitoring"];

/// A resource request's parts the span name is made of (kube's `RequestInfo`).
pub struct Route<'a> {
    pub api_prefix: &'a str,
    pub api_group: &'a str,
    pub api_version: &'a str,
    pub namespaced: bool,
    pub resource: &'a str,
    pub named: bool,
    pub subresource: &'a str,
}

/// What the server span is made from.
pub struct ServerRequest<'a> {
    pub method: &'a str,
    /// The request URI (path and query): kube's `http.target`.
    pub uri: &'a str,
    /// `None` off the resource paths.
    pub route: Option<Route<'a>>,
    pub version: http::Version,
    pub headers: &'a HeaderMap,
    /// Whether the user is in a [`PRIVILEGED_GROUPS`] group.
    pub privileged: bool,
    pub received: SystemTime,
}

/// kube's span name (`getSpanNameFromRequestInfo`).
pub fn span_name(method: &str, route: Option<&Route<'_>>) -> String {
    let Some(r) = route else {
        return method.to_string();
    };
    let mut name = format!("{method} /{}", r.api_prefix);
    if !r.api_group.is_empty() {
        name.push('/');
        name.push_str(r.api_group);
    }
    name.push('/');
    name.push_str(r.api_version);
    if r.namespaced {
        name.push_str("/namespaces/{:namespace}");
    }
    name.push('/');
    name.push_str(r.resource);
    if r.named {
        name.push_str("/{:name}");
    }
    if !r.subresource.is_empty() {
        name.push('/');
        name.push_str(r.subresource);
    }
    name
}

/// The request's span, or only the incoming context, or nothing.
#[must_use = "the span ends with `end`"]
pub struct ServerSpan {
    cx: Option<Context>,
}

impl ServerSpan {
    /// Starts the server span of `request` (see the module's text).
    pub fn start(tracer: &Tracer, request: &ServerRequest<'_>) -> ServerSpan {
        let remote = propagation::extract(request.headers);
        let (Some(server), Some(spans)) = (tracer.server(), tracer.spans()) else {
            // No tracer: the incoming trace context is passed on, as Go's no-op provider does.
            return ServerSpan { cx: remote };
        };
        let mut builder = server
            .span_builder(span_name(request.method, request.route.as_ref()))
            .with_kind(SpanKind::Server)
            .with_start_time(request.received);
        let parent = match (request.privileged, remote) {
            (false, Some(remote)) => {
                let linked = remote.span().span_context().clone();
                builder = builder.with_links(vec![Link::with_context(linked)]);
                Context::new()
            }
            (_, remote) => remote.unwrap_or_default(),
        };
        let span = builder.start_with_context(server, &parent);
        if span.is_recording() {
            let mut span = span;
            span.set_attributes(attributes(request));
            let cx = parent
                .with_span(span)
                .with_value(ChildTracer(spans.clone()));
            return ServerSpan { cx: Some(cx) };
        }
        ServerSpan {
            cx: Some(parent.with_span(span)),
        }
    }

    /// No span and no context.
    pub fn none() -> ServerSpan {
        ServerSpan { cx: None }
    }

    /// Records a stage that ran before this span existed (authentication).
    pub fn record_stage(&self, name: &'static str, started: SystemTime, ended: SystemTime) {
        if let Some(cx) = &self.cx {
            record_finished(cx, name, started, ended);
        }
    }

    /// Runs `future` with this span current.
    pub async fn scope<F: std::future::Future>(&self, future: F) -> F::Output {
        use opentelemetry::trace::FutureExt as _;
        match &self.cx {
            Some(cx) => future.with_context(cx.clone()).await,
            None => future.await,
        }
    }

    /// Runs `work` with this span current.
    pub fn in_scope<T>(&self, work: impl FnOnce() -> T) -> T {
        let _attached = self.cx.clone().map(Context::attach);
        work()
    }

    /// Ends the span with the response's status code (otelhttp: a 5xx is an error).
    pub fn end(self, code: u16) {
        let Some(cx) = self.cx else {
            return;
        };
        let span = cx.span();
        if !span.is_recording() {
            return;
        }
        span.set_attribute(KeyValue::new("http.response.status_code", i64::from(code)));
        if code >= 500 {
            span.set_status(Status::error(""));
        }
        span.end();
    }
}

/// otelhttp's server attributes, and kube's `http.target` and `audit-id`.
fn attributes(request: &ServerRequest<'_>) -> Vec<KeyValue> {
    let header = |name: &str| {
        request
            .headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string()
    };
    let protocol = match request.version {
        http::Version::HTTP_2 => "2",
        http::Version::HTTP_10 => "1.0",
        _ => "1.1",
    };
    let mut attributes = vec![
        KeyValue::new("http.request.method", request.method.to_string()),
        KeyValue::new("url.scheme", "https"),
        KeyValue::new("network.protocol.version", protocol),
        KeyValue::new("http.target", request.uri.to_string()),
        KeyValue::new("audit-id", header("audit-id")),
    ];
    let host = header("host");
    if !host.is_empty() {
        attributes.push(KeyValue::new("server.address", host));
    }
    let agent = header("user-agent");
    if !agent.is_empty() {
        attributes.push(KeyValue::new("user_agent.original", agent));
    }
    attributes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn span_name_as_kube_names_routes() {
        let route = |namespaced, named, subresource| Route {
            api_prefix: "apis",
            api_group: "stable.example.com",
            api_version: "v1",
            namespaced,
            resource: "crontabs",
            named,
            subresource,
        };
        let cases = [
            (
                route(false, false, ""),
                "GET /apis/stable.example.com/v1/crontabs",
            ),
            (
                route(true, false, ""),
                "GET /apis/stable.example.com/v1/namespaces/{:namespace}/crontabs",
            ),
            (
                route(true, true, "status"),
                "GET /apis/stable.example.com/v1/namespaces/{:namespace}/crontabs/{:name}/status",
            ),
        ];
        for (route, want) in cases {
            assert_eq!(span_name("GET", Some(&route)), want);
        }
        assert_eq!(span_name("GET", None), "GET");
    }

    #[test]
    fn start_without_tracer_passes_incoming_context_only() {
        fn request(headers: &HeaderMap) -> ServerRequest<'_> {
            ServerRequest {
                method: "GET",
                uri: "/healthz",
                route: None,
                version: http::Version::HTTP_11,
                headers,
                privileged: false,
                received: SystemTime::now(),
            }
        }
        let mut headers = HeaderMap::new();
        assert!(
            ServerSpan::start(&Tracer::none(), &request(&headers))
                .cx
                .is_none()
        );
        headers.insert(
            propagation::TRACEPARENT,
            http::HeaderValue::from_static(
                "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
            ),
        );
        let span = ServerSpan::start(&Tracer::none(), &request(&headers));
        let cx = span.cx.as_ref().expect("passed on");
        assert_eq!(
            cx.span().span_context().trace_id().to_string(),
            "0af7651916cd43dd8448eb211c80319c"
        );
        assert!(cx.get::<ChildTracer>().is_none());
    }
}
