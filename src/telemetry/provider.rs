//! The exporting tracer, as component-base's `NewProvider` builds it: an OTLP gRPC
//! exporter to the configured endpoint (plain text, kube's `WithInsecure`), a batch span
//! processor, `ParentBased(TraceIDRatioBased(rate / 1e6))` (never sampling what starts
//! here when the rate is unset or 0), and the resource `service.name=apiserver`,
//! `service.instance.id=<APIServerID>`. Without `--tracing-config-file` there is no
//! tracer ([`Tracer::none`]) and no span is ever made.

use std::sync::Arc;

use opentelemetry::KeyValue;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{WithExportConfig, WithTonicConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::{BatchSpanProcessor, Sampler, SdkTracer, SdkTracerProvider};

use super::config::{DEFAULT_ENDPOINT, TracingConfiguration};
use super::endpoint::{self, Target};

/// The server span's instrumentation scope (kube's server span is otelhttp's).
const SERVER_SCOPE: &str = "go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp";
/// The filter spans' (kube's `filterlatency.TrackStarted`; its scope's `k8s.op` is kube's).
const FILTER_SCOPE: &str = "k8s.op/apiserver/pkg/endpoints/filterlatency";
/// Every other span's (component-base's `tracing.Start`).
const SPAN_SCOPE: &str = "k8s.io/component-base/tracing";
/// kube's `service.name` for every apiserver.
const SERVICE_NAME: &str = "apiserver";
/// How long shutdown waits for the last spans to be sent.
const FLUSH_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// The process's tracer: exporting, or none (cloned into the request path).
#[derive(Clone, Default)]
pub struct Tracer(Option<Arc<Exporting>>);

struct Exporting {
    provider: SdkTracerProvider,
    server: SdkTracer,
    filters: SdkTracer,
    spans: SdkTracer,
}

impl Tracer {
    /// No tracing: nothing is recorded or exported.
    pub fn none() -> Tracer {
        Tracer(None)
    }

    /// The exporting tracer of `config`; must run inside the Tokio runtime (the gRPC
    /// channel's worker is spawned there). The collector is connected lazily: a
    /// collector that is down loses spans, never requests.
    pub fn start(config: &TracingConfiguration) -> Result<Tracer, String> {
        let endpoint = config.endpoint.as_deref().unwrap_or(DEFAULT_ENDPOINT);
        let builder = opentelemetry_otlp::SpanExporter::builder().with_tonic();
        let exporter = match endpoint::target(endpoint)? {
            Target::Tcp(url) => builder.with_endpoint(url).build(),
            Target::Unix(path) => builder.with_channel(unix_channel(path)?).build(),
        }
        .map_err(|e| format!("creating the OTLP exporter for {endpoint:?}: {e}"))?;
        let ratio = config.sampling_ratio();
        let root = match ratio > 0.0 {
            true => Sampler::TraceIdRatioBased(ratio),
            false => Sampler::AlwaysOff,
        };
        let resource = Resource::builder_empty()
            .with_attributes([
                KeyValue::new("service.name", SERVICE_NAME),
                KeyValue::new("service.instance.id", super::identity::apiserver_id()),
            ])
            .build();
        let provider = SdkTracerProvider::builder()
            .with_sampler(Sampler::ParentBased(Box::new(root)))
            .with_span_processor(BatchSpanProcessor::builder(exporter).build())
            .with_resource(resource)
            .build();
        let server = provider.tracer(SERVER_SCOPE);
        let filters = provider.tracer(FILTER_SCOPE);
        let spans = provider.tracer(SPAN_SCOPE);
        Ok(Tracer(Some(Arc::new(Exporting {
            provider,
            server,
            filters,
            spans,
        }))))
    }

    /// Whether spans are made at all.
    pub fn is_exporting(&self) -> bool {
        self.0.is_some()
    }

    /// The server span's tracer.
    pub(super) fn server(&self) -> Option<&SdkTracer> {
        self.0.as_deref().map(|e| &e.server)
    }

    /// The filter spans' tracer.
    pub(super) fn filters(&self) -> Option<&SdkTracer> {
        self.0.as_deref().map(|e| &e.filters)
    }

    /// The child spans' tracer.
    pub(super) fn spans(&self) -> Option<&SdkTracer> {
        self.0.as_deref().map(|e| &e.spans)
    }

    /// Sends what is still batched and stops the exporter (at shutdown; kube's
    /// `TracerProvider.Shutdown`).
    pub async fn shutdown(&self) {
        let Some(exporting) = self.0.clone() else {
            return;
        };
        let flushed = tokio::task::spawn_blocking(move || {
            exporting.provider.shutdown_with_timeout(FLUSH_TIMEOUT)
        })
        .await;
        match flushed {
            Ok(Ok(())) => tracing::debug!("tracing: spans flushed"),
            Ok(Err(e)) => tracing::warn!(error = %e, "tracing: flushing spans failed"),
            Err(e) => tracing::warn!(error = %e, "tracing: flushing spans failed"),
        }
    }
}

/// A lazily connected gRPC channel over a unix socket (`unix:` endpoints).
fn unix_channel(path: std::path::PathBuf) -> Result<tonic::transport::Channel, String> {
    // The URI is required by the API and unused: every connection goes to the socket.
    let endpoint = tonic::transport::Endpoint::from_static("http://localhost:4317");
    let connector = tower::service_fn(move |_: http::Uri| {
        let path = path.clone();
        async move {
            let stream = tokio::net::UnixStream::connect(path).await?;
            Ok::<_, std::io::Error>(hyper_util::rt::TokioIo::new(stream))
        }
    });
    Ok(endpoint.connect_with_connector_lazy(connector))
}
