//! A small OTLP/gRPC trace receiver (tonic, opentelemetry-proto) on 127.0.0.1:0 that keeps
//! every span exported to it, and the spans of one trace as trees in the shape
//! hack/audit-oracle/tracing.py recorded the reference's: name, instrumentation scope, kind,
//! attributes, event names and attributes, status, children in start order, and for a root
//! where its parent is (the client's span, none, or another trace's span).

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use opentelemetry_proto::tonic::collector::trace::v1::trace_service_server::{
    TraceService, TraceServiceServer,
};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use opentelemetry_proto::tonic::trace::v1::Span;
use serde_json::{Map, Value, json};

/// A span as received, with its scope's name.
#[derive(Clone)]
pub struct Received {
    pub scope: String,
    pub span: Span,
}

#[derive(Clone, Default)]
struct Store {
    spans: Arc<Mutex<Vec<Received>>>,
    resources: Arc<Mutex<Vec<Value>>>,
}

#[tonic::async_trait]
impl TraceService for Store {
    async fn export(
        &self,
        request: tonic::Request<ExportTraceServiceRequest>,
    ) -> Result<tonic::Response<ExportTraceServiceResponse>, tonic::Status> {
        for resource_spans in request.into_inner().resource_spans {
            let attributes = resource_spans
                .resource
                .map(|r| r.attributes)
                .unwrap_or_default();
            self.resources
                .lock()
                .unwrap()
                .push(attributes_of(&attributes));
            for scope_spans in resource_spans.scope_spans {
                let scope = scope_spans.scope.map(|s| s.name).unwrap_or_default();
                let mut spans = self.spans.lock().unwrap();
                spans.extend(scope_spans.spans.into_iter().map(|span| Received {
                    scope: scope.clone(),
                    span,
                }));
            }
        }
        Ok(tonic::Response::new(ExportTraceServiceResponse::default()))
    }
}

/// The running receiver; stopped on drop.
pub struct Otlp {
    pub addr: SocketAddr,
    store: Store,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Otlp {
    pub async fn start() -> Otlp {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let store = Store::default();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let service = TraceServiceServer::new(store.clone());
        let incoming = tonic::transport::server::TcpIncoming::from(listener);
        tokio::spawn(async move {
            let shutdown = async {
                let _ = stopped.await;
            };
            tonic::transport::Server::builder()
                .add_service(service)
                .serve_with_incoming_shutdown(incoming, shutdown)
                .await
                .unwrap();
        });
        Otlp {
            addr,
            store,
            stop: Some(stop),
        }
    }

    pub fn spans(&self) -> Vec<Received> {
        self.store.spans.lock().unwrap().clone()
    }

    pub fn resources(&self) -> Vec<Value> {
        self.store.resources.lock().unwrap().clone()
    }
}

impl Drop for Otlp {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn value_of(value: &AnyValue) -> Value {
    match &value.value {
        Some(any_value::Value::StringValue(s)) => json!(s),
        Some(any_value::Value::BoolValue(b)) => json!(b),
        Some(any_value::Value::IntValue(i)) => json!(i),
        Some(any_value::Value::DoubleValue(d)) => json!(d),
        Some(any_value::Value::ArrayValue(a)) => a.values.iter().map(value_of).collect(),
        Some(other) => json!(format!("{other:?}")),
        None => Value::Null,
    }
}

pub fn attributes_of(attributes: &[KeyValue]) -> Value {
    let map: Map<String, Value> = attributes
        .iter()
        .map(|kv| {
            (
                kv.key.clone(),
                kv.value.as_ref().map_or(Value::Null, value_of),
            )
        })
        .collect();
    Value::Object(map)
}

/// kube's (Go's) names of the span kinds and status codes, as the recorder wrote them.
fn kind_name(kind: i32) -> &'static str {
    match kind {
        1 => "SPAN_KIND_INTERNAL",
        2 => "SPAN_KIND_SERVER",
        3 => "SPAN_KIND_CLIENT",
        4 => "SPAN_KIND_PRODUCER",
        5 => "SPAN_KIND_CONSUMER",
        _ => "SPAN_KIND_UNSPECIFIED",
    }
}

fn status_name(code: i32) -> &'static str {
    match code {
        1 => "STATUS_CODE_OK",
        2 => "STATUS_CODE_ERROR",
        _ => "STATUS_CODE_UNSET",
    }
}

fn node(all: &[&Received], r: &Received) -> Value {
    let mut children: Vec<&&Received> = all
        .iter()
        .filter(|c| c.span.parent_span_id == r.span.span_id && !r.span.span_id.is_empty())
        .collect();
    children.sort_by_key(|c| (c.span.start_time_unix_nano, c.span.name.clone()));
    let status = r.span.status.clone().unwrap_or_default();
    let events: Vec<Value> = r
        .span
        .events
        .iter()
        .map(|e| json!({"name": e.name, "attributes": attributes_of(&e.attributes)}))
        .collect();
    json!({
        "name": r.span.name,
        "scope": r.scope,
        "kind": kind_name(r.span.kind),
        "attributes": attributes_of(&r.span.attributes),
        "events": events,
        "status": {"code": status_name(status.code), "message": status.message},
        "children": children.iter().map(|c| node(all, c)).collect::<Vec<_>>(),
    })
}

/// The spans of `trace_id` (hex) as trees, roots in start order; a root's `parent` is
/// `<the client span>` when it is `client_parent` (hex), `<none>` or `<unknown …>`.
pub fn trees(spans: &[Received], trace_id: &str, client_parent: &str) -> Vec<Value> {
    let mine: Vec<&Received> = spans
        .iter()
        .filter(|r| hex(&r.span.trace_id) == trace_id)
        .collect();
    let ids: Vec<&Vec<u8>> = mine.iter().map(|r| &r.span.span_id).collect();
    let mut roots: Vec<&&Received> = mine
        .iter()
        .filter(|r| !ids.contains(&&r.span.parent_span_id))
        .collect();
    roots.sort_by_key(|r| r.span.start_time_unix_nano);
    roots
        .iter()
        .map(|r| {
            let parent = hex(&r.span.parent_span_id);
            let mut tree = node(&mine, r);
            tree["parent"] = json!(match parent.as_str() {
                "" => "<none>".to_string(),
                p if p == client_parent => "<the client span>".to_string(),
                p => format!("<unknown {p}>"),
            });
            tree
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn receiver_builds_trees_of_exported_spans() {
    use opentelemetry::trace::{Tracer, TracerProvider};
    use opentelemetry_otlp::WithExportConfig;
    let receiver = Otlp::start().await;
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_tonic()
        .with_endpoint(format!("http://{}", receiver.addr))
        .build()
        .unwrap();
    let provider = opentelemetry_sdk::trace::SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .build();
    let tracer = provider.tracer("receiver-test");
    tracer.in_span("outer", |_| tracer.in_span("inner", |_| {}));
    let flushed = tokio::task::spawn_blocking(move || provider.force_flush())
        .await
        .unwrap();
    assert!(flushed.is_ok(), "{flushed:?}");
    let spans = receiver.spans();
    assert_eq!(spans.len(), 2);
    let trace = hex(&spans[0].span.trace_id);
    let trees = trees(&spans, &trace, "");
    assert_eq!(trees.len(), 1, "{trees:?}");
    assert_eq!(trees[0]["name"], "outer");
    assert_eq!(trees[0]["parent"], "<none>");
    assert_eq!(trees[0]["scope"], "receiver-test");
    assert_eq!(trees[0]["children"][0]["name"], "inner");
}
