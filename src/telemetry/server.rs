//! The request's server span, as kube's `WithTracing` (otelhttp's handler) makes it:
//! named `<METHOD> /apis/<group>/<version>[/namespaces/{:namespace}]/<resource>[/{:name}][/<subresource>]`
//! (the method alone off the resource paths), started when the request arrived, with
//! otelhttp's attributes and kube's `http.target` and `audit-id`. The incoming
//! `traceparent` is its parent for `system:masters` and `system:monitoring` (kube's
//! `notSystemPrivilegedGroup` public-endpoint rule); for anyone else it is a link of a
//! new trace. Without a tracer the incoming context is only passed on to webhooks.
//! Around it, kube's filter spans ([`RequestTrace`]).

use std::time::SystemTime;

use http::HeaderMap;
use opentelemetry::trace::{Link, Span as _, SpanKind, Status, TraceContextExt, Tracer as _};
use opentelemetry::{Context, KeyValue};

use super::propagation;
use super::provider::Tracer;
use super::span::{ChildTracer, Span};

/// The groups whose trace context is continued (kube's privileged groups).
pub const PRIVILEGED_GROUPS: [&str; 2] = ["system:masters", "system:monitoring"];

/// What kube's spans below the server's read from the request (`SerializeObject`'s
/// method, url and protocol, `traceFields`' protocol, the `audit-id`), carried in the
/// context of a recorded request.
#[derive(Clone, Debug)]
pub struct Facts {
    pub method: String,
    /// The URL path.
    pub url: String,
    /// Go's `Request.Proto`: `HTTP/1.1`, `HTTP/2.0`.
    pub protocol: &'static str,
    pub audit_id: String,
    /// The connection's peer address.
    pub client: String,
    /// `<group>/<version>` of a resource request (the encoder's `encodeGV`).
    pub group_version: String,
}

impl Facts {
    /// The current request's facts, when it is recorded.
    pub fn current() -> Option<Facts> {
        Context::map_current(|cx| cx.get::<Facts>().cloned())
    }
}

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
    /// The request body's length, when it has one (`Content-Length`).
    pub body_size: Option<u64>,
    /// The connection's peer.
    pub peer: std::net::IpAddr,
    /// The connection's peer port (otelhttp's `network.peer.port`).
    pub peer_port: u16,
    /// kube's audit ID of the request.
    pub audit_id: &'a str,
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

/// The spans of one request, outermost first: kube's `authentication` filter span (a
/// root: the server span's parent when no `traceparent` came), the server span, the filter
/// spans and the handler's, each wrapping the rest of the request as kube's
/// `filterlatency.TrackStarted` spans do; ended together when the response is encoded.
/// Without a tracer, only an incoming trace context, passed on to webhooks.
#[must_use = "the spans end with `end`"]
pub struct RequestTrace {
    tracer: Tracer,
    authentication: Option<Context>,
    /// The server span, then each span entered (or the incoming context alone).
    stack: Vec<Context>,
    /// Whether the innermost span is a handler's that reports its response written.
    reports_written: bool,
}

impl RequestTrace {
    /// The trace of a request received at `received`: kube's `authentication` span, a
    /// root, when a tracer is configured.
    pub fn begin(tracer: &Tracer, received: SystemTime) -> RequestTrace {
        let authentication = tracer.filters().map(|filters| {
            let span = filters
                .span_builder("authentication")
                .with_start_time(received)
                .start_with_context(filters, &Context::new());
            Context::new().with_span(span)
        });
        RequestTrace {
            tracer: tracer.clone(),
            authentication,
            stack: Vec::new(),
            reports_written: false,
        }
    }

    /// No spans and no context.
    pub fn none() -> RequestTrace {
        RequestTrace::begin(&Tracer::none(), SystemTime::UNIX_EPOCH)
    }

    /// Starts the server span of `request` (see the module's text).
    pub fn serve(&mut self, request: &ServerRequest<'_>) {
        let remote = propagation::extract(request.headers);
        let (Some(server), Some(spans)) = (self.tracer.server(), self.tracer.spans()) else {
            // No tracer: the incoming trace context is passed on, as Go's no-op provider does.
            self.stack.extend(remote);
            return;
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
            (true, Some(remote)) => remote,
            (_, None) => self.authentication.clone().unwrap_or_default(),
        };
        let mut span = builder.start_with_context(server, &parent);
        let recording = span.is_recording();
        if recording {
            span.set_attributes(attributes(request));
        }
        let mut cx = parent
            .with_span(span)
            .with_value(ChildTracer(spans.clone()));
        if recording {
            cx = cx.with_value(facts(request));
        }
        self.stack.push(cx);
    }

    /// A filter span under the innermost (kube's `filterlatency.TrackStarted`): it lasts
    /// as long as the rest of the request.
    pub fn enter(&mut self, name: &'static str) {
        let (Some(filters), Some(inner)) = (self.tracer.filters(), self.stack.last()) else {
            return;
        };
        if !inner.span().span_context().is_sampled() {
            return;
        }
        let span = filters.start_with_context(name, inner);
        let cx = inner.with_span(span);
        self.stack.push(cx);
    }

    /// Makes `span` (the handler's, started under the innermost) the innermost; with
    /// `reports_written`, it gets kube's `Writing http response done` once a successful
    /// response is encoded.
    pub fn adopt(&mut self, span: Span, reports_written: bool) {
        if let Some(cx) = span.into_context() {
            self.stack.push(cx);
            self.reports_written = reports_written;
        }
    }

    /// Runs `future` with the innermost span current.
    pub async fn scope<F: std::future::Future>(&self, future: F) -> F::Output {
        use opentelemetry::trace::FutureExt as _;
        match self.stack.last() {
            Some(cx) => future.with_context(cx.clone()).await,
            None => future.await,
        }
    }

    /// Runs `work` with the innermost span current.
    pub fn in_scope<T>(&self, work: impl FnOnce() -> T) -> T {
        let _attached = self.stack.last().cloned().map(Context::attach);
        work()
    }

    /// Ends every span, innermost first, after the response (`code`, `size` bytes when
    /// known) was encoded; the server span records both (otelhttp: a 5xx is an error).
    pub fn end(mut self, code: u16, size: Option<u64>) {
        if let Some(inner) = self.stack.last()
            && self.reports_written
            && code < 400
        {
            inner
                .span()
                .add_event("Writing http response done", Vec::new());
        }
        if let Some(server) = self.stack.first().map(|cx| cx.span())
            && server.is_recording()
        {
            server.set_attribute(KeyValue::new("http.response.status_code", i64::from(code)));
            if let Some(size) = size {
                let size = i64::try_from(size).unwrap_or(i64::MAX);
                server.set_attribute(KeyValue::new("http.response.body.size", size));
            }
            if code >= 500 {
                server.set_status(Status::error(""));
            }
        }
        while let Some(cx) = self.stack.pop() {
            cx.span().end();
        }
        if let Some(cx) = self.authentication.take() {
            cx.span().end();
        }
    }
}

/// The facts of a recorded request.
fn facts(request: &ServerRequest<'_>) -> Facts {
    Facts {
        method: request.method.to_string(),
        url: request
            .uri
            .split('?')
            .next()
            .unwrap_or_default()
            .to_string(),
        protocol: match request.version {
            http::Version::HTTP_2 => "HTTP/2.0",
            http::Version::HTTP_10 => "HTTP/1.0",
            _ => "HTTP/1.1",
        },
        audit_id: request.audit_id.to_string(),
        client: request.peer.to_string(),
        group_version: request
            .route
            .as_ref()
            .map(|r| match r.api_group {
                "" => r.api_version.to_string(),
                group => format!("{group}/{}", r.api_version),
            })
            .unwrap_or_default(),
    }
}

/// `host[:port]` (brackets of an IPv6 address dropped) into its parts.
fn split_host_port(host: &str) -> (&str, Option<u16>) {
    let (address, port) = match host.rsplit_once(':') {
        Some((a, p)) if !p.contains(']') => (a, p.parse().ok()),
        _ => (host, None),
    };
    (address.trim_start_matches('[').trim_end_matches(']'), port)
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
        KeyValue::new("audit-id", request.audit_id.to_string()),
        KeyValue::new("client.address", request.peer.to_string()),
        KeyValue::new("network.peer.address", request.peer.to_string()),
        KeyValue::new("network.peer.port", i64::from(request.peer_port)),
    ];
    let path = request.uri.split('?').next().unwrap_or_default();
    attributes.push(KeyValue::new("url.path", path.to_string()));
    let host = header("host");
    let (address, port) = split_host_port(&host);
    if !address.is_empty() {
        attributes.push(KeyValue::new("server.address", address.to_string()));
    }
    if let Some(port) = port {
        attributes.push(KeyValue::new("server.port", i64::from(port)));
    }
    if let Some(size) = request.body_size.filter(|s| *s > 0) {
        let size = i64::try_from(size).unwrap_or(i64::MAX);
        attributes.push(KeyValue::new("http.request.body.size", size));
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
    fn serve_without_tracer_passes_incoming_context_only() {
        fn request(headers: &HeaderMap) -> ServerRequest<'_> {
            ServerRequest {
                method: "GET",
                uri: "/healthz",
                route: None,
                version: http::Version::HTTP_11,
                headers,
                privileged: false,
                received: SystemTime::now(),
                body_size: None,
                peer: std::net::Ipv4Addr::LOCALHOST.into(),
                peer_port: 40000,
                audit_id: "",
            }
        }
        let mut headers = HeaderMap::new();
        let mut trace = RequestTrace::begin(&Tracer::none(), SystemTime::now());
        trace.serve(&request(&headers));
        assert!(trace.stack.is_empty() && trace.authentication.is_none());
        headers.insert(
            propagation::TRACEPARENT,
            http::HeaderValue::from_static(
                "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
            ),
        );
        let mut trace = RequestTrace::begin(&Tracer::none(), SystemTime::now());
        trace.serve(&request(&headers));
        trace.enter("audit");
        assert_eq!(trace.stack.len(), 1, "the incoming context alone");
        let cx = &trace.stack[0];
        assert_eq!(
            cx.span().span_context().trace_id().to_string(),
            "0af7651916cd43dd8448eb211c80319c"
        );
        assert!(cx.get::<ChildTracer>().is_none());
        trace.end(200, None);
    }

    #[test]
    fn split_host_port_forms() {
        assert_eq!(split_host_port("127.0.0.1:8443"), ("127.0.0.1", Some(8443)));
        assert_eq!(split_host_port("[::1]:8443"), ("::1", Some(8443)));
        assert_eq!(split_host_port("[::1]"), ("::1", None));
        assert_eq!(split_host_port("example.com"), ("example.com", None));
    }
}
