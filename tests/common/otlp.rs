//! A small OTLP gRPC trace receiver for the tracing tests: opentelemetry-proto's
//! `TraceService` on 127.0.0.1:0 (tonic, plain text as kube's exporter sends), keeping
//! every span received with its resource, in the order received.
//!
//! Use with `#[path = "common/otlp.rs"] mod otlp;`.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use opentelemetry_proto::tonic::collector::trace::v1::trace_service_server::{
    TraceService, TraceServiceServer,
};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};

/// One span as received.
#[derive(Clone, Debug)]
pub struct Received {
    /// Lower-case hex, as a `traceparent` writes it.
    pub trace_id: String,
    pub span_id: String,
    /// Empty for a root span.
    pub parent_span_id: String,
    pub name: String,
    /// OTLP's `SpanKind` (2 = server).
    pub kind: i32,
    pub attributes: BTreeMap<String, String>,
    /// `(trace id, span id)` of each link.
    pub links: Vec<(String, String)>,
    pub events: Vec<String>,
    /// The resource's attributes.
    pub resource: BTreeMap<String, String>,
    pub start_unix_nano: u64,
    pub end_unix_nano: u64,
}

#[derive(Default)]
struct Store {
    spans: Mutex<Vec<Received>>,
    exports: Mutex<usize>,
}

struct Service(Arc<Store>);

#[tonic::async_trait]
impl TraceService for Service {
    async fn export(
        &self,
        request: tonic::Request<ExportTraceServiceRequest>,
    ) -> Result<tonic::Response<ExportTraceServiceResponse>, tonic::Status> {
        let mut received = Vec::new();
        for resource_spans in request.into_inner().resource_spans {
            let resource = resource_spans
                .resource
                .map(|r| attributes(&r.attributes))
                .unwrap_or_default();
            for scope in resource_spans.scope_spans {
                for span in scope.spans {
                    received.push(Received {
                        trace_id: hex(&span.trace_id),
                        span_id: hex(&span.span_id),
                        parent_span_id: hex(&span.parent_span_id),
                        name: span.name,
                        kind: span.kind,
                        attributes: attributes(&span.attributes),
                        links: span
                            .links
                            .iter()
                            .map(|l| (hex(&l.trace_id), hex(&l.span_id)))
                            .collect(),
                        events: span.events.into_iter().map(|e| e.name).collect(),
                        resource: resource.clone(),
                        start_unix_nano: span.start_time_unix_nano,
                        end_unix_nano: span.end_time_unix_nano,
                    });
                }
            }
        }
        self.0.spans.lock().unwrap().extend(received);
        *self.0.exports.lock().unwrap() += 1;
        Ok(tonic::Response::new(ExportTraceServiceResponse {
            partial_success: None,
        }))
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn attributes(kvs: &[KeyValue]) -> BTreeMap<String, String> {
    kvs.iter()
        .map(|kv| (kv.key.clone(), value(kv.value.as_ref())))
        .collect()
}

fn value(v: Option<&AnyValue>) -> String {
    match v.and_then(|v| v.value.as_ref()) {
        Some(any_value::Value::StringValue(s)) => s.clone(),
        Some(any_value::Value::IntValue(i)) => i.to_string(),
        Some(any_value::Value::BoolValue(b)) => b.to_string(),
        Some(any_value::Value::DoubleValue(d)) => d.to_string(),
        other => format!("{other:?}"),
    }
}

/// A running receiver; stopped on drop.
pub struct Collector {
    pub addr: SocketAddr,
    store: Arc<Store>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Collector {
    /// Listens on 127.0.0.1:0, served from a thread of its own.
    pub fn start() -> Collector {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let addr = listener.local_addr().unwrap();
        let store = Arc::new(Store::default());
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let service = TraceServiceServer::new(Service(store.clone()));
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).unwrap();
                let incoming = tonic::transport::server::TcpIncoming::from(listener);
                tonic::transport::Server::builder()
                    .add_service(service)
                    .serve_with_incoming_shutdown(incoming, async {
                        let _ = stopped.await;
                    })
                    .await
                    .unwrap();
            });
        });
        Collector {
            addr,
            store,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    /// Every span received so far.
    pub fn spans(&self) -> Vec<Received> {
        self.store.spans.lock().unwrap().clone()
    }

    /// How many export calls came.
    pub fn exports(&self) -> usize {
        *self.store.exports.lock().unwrap()
    }

    /// The spans once `done` holds of them, polled until `within` has passed (then the
    /// spans as they are, for the caller's assertion to show).
    pub fn wait_for(&self, within: Duration, done: impl Fn(&[Received]) -> bool) -> Vec<Received> {
        let deadline = Instant::now() + within;
        loop {
            let spans = self.spans();
            if done(&spans) || Instant::now() >= deadline {
                return spans;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// A `TracingConfiguration` file in `dir` sending here with `rate` samples per million
    /// (`None`: the field unset).
    pub fn config_file(&self, dir: &Path, rate: Option<i32>) -> PathBuf {
        let path = dir.join("tracing.yaml");
        let mut text = format!(
            "apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\nendpoint: {}\n",
            self.addr
        );
        if let Some(rate) = rate {
            text.push_str(&format!("samplingRatePerMillion: {rate}\n"));
        }
        std::fs::write(&path, text).unwrap();
        path
    }
}

impl Drop for Collector {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
