//! Request tracing, as k8s.io/apiserver traces: `--tracing-config-file`
//! (`TracingConfiguration`), OpenTelemetry spans exported over OTLP, W3C `traceparent`
//! continued from the aggregator and passed on to webhooks.
//!
//! - [`config`]: kube's `TracingConfiguration`, decoded and checked with kube's texts.
//! - [`provider`]: the exporting [`Tracer`] (OTLP gRPC, batch, `ParentBased` sampling),
//!   or none: then no span is ever made and an incoming `traceparent` is only passed on.
//! - [`server`]: the request's spans ([`RequestTrace`]): kube's `authentication`, the
//!   server span (otelhttp's, as kube's `WithTracing` names it), the filter spans.
//! - [`span`]: child spans ([`Span`]), carried across awaits in the OpenTelemetry
//!   [`Context`](opentelemetry::Context).
//! - [`propagation`]: W3C trace context and baggage in and out of HTTP headers.
//!
//! The `tracing` crate stays the log's; nothing here feeds it.

pub mod config;
pub mod endpoint;
pub mod identity;
pub mod propagation;
pub mod provider;
pub mod server;
pub mod span;

pub use config::TracingConfiguration;
pub use opentelemetry::KeyValue;
pub use provider::Tracer;
pub use server::RequestTrace;
pub use span::Span;
