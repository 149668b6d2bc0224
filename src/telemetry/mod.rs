//! Request tracing, as k8s.io/apiserver traces: `--tracing-config-file`
//! (`TracingConfiguration`), OpenTelemetry spans exported over OTLP, W3C `traceparent`
//! continued from the aggregator and passed on to webhooks.
