//! Child spans, as component-base's `tracing.Start` makes them: only under a recording
//! span of the current [`Context`] (the request's), so a request that is not sampled,
//! and a server without a tracer, make none and pay one context read.

use std::future::Future;

use opentelemetry::trace::{FutureExt as _, TraceContextExt, Tracer as _};
use opentelemetry::{Context, KeyValue};
use opentelemetry_sdk::trace::SdkTracer;

/// The tracer child spans are made with, carried in the request's context (Go's
/// `SpanFromContext(ctx).TracerProvider()`).
#[derive(Clone)]
pub(super) struct ChildTracer(pub(super) SdkTracer);

/// A span of the request path; ended when dropped.
#[must_use = "a span ends when dropped"]
pub struct Span {
    cx: Option<Context>,
}

impl Span {
    /// A span named `name` under the current context's span, with the attributes
    /// `attributes` makes (only called when the span is recorded).
    pub fn start(name: &'static str, attributes: impl FnOnce() -> Vec<KeyValue>) -> Span {
        let parent = Context::current();
        if !parent.span().span_context().is_sampled() {
            // ParentBased: the child of an unsampled (or absent) span is never sampled.
            return Span::none();
        }
        let Some(ChildTracer(tracer)) = parent.get::<ChildTracer>() else {
            return Span::none();
        };
        let span = tracer
            .span_builder(name)
            .with_attributes(attributes())
            .start_with_context(tracer, &parent);
        Span {
            cx: Some(parent.with_span(span)),
        }
    }

    /// No span.
    pub fn none() -> Span {
        Span { cx: None }
    }

    /// The span's context, the span not ended (its new owner ends it).
    pub(super) fn into_context(mut self) -> Option<Context> {
        self.cx.take()
    }

    /// Whether this span is recorded.
    pub fn is_recording(&self) -> bool {
        self.cx.is_some()
    }

    /// A point-in-time event (kube's `span.AddEvent`).
    pub fn event(&self, name: &'static str) {
        if let Some(cx) = &self.cx {
            cx.span().add_event(name, Vec::new());
        }
    }

    /// An event with attributes, made only when recorded.
    pub fn event_with(&self, name: &'static str, attributes: impl FnOnce() -> Vec<KeyValue>) {
        if let Some(cx) = &self.cx {
            cx.span().add_event(name, attributes());
        }
    }

    /// Sets attributes, made only when recorded.
    pub fn set(&self, attributes: impl FnOnce() -> Vec<KeyValue>) {
        if let Some(cx) = &self.cx {
            cx.span().set_attributes(attributes());
        }
    }

    /// Runs `future` with this span current (its child spans and the `traceparent`
    /// sent to webhooks are this span's); as is without a span.
    pub async fn scope<F: Future>(&self, future: F) -> F::Output {
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
}

impl Drop for Span {
    fn drop(&mut self) {
        if let Some(cx) = self.cx.take() {
            cx.span().end();
        }
    }
}

/// Runs `future` in a span named `name` (attributes made only when recorded).
pub async fn traced<F: Future>(
    name: &'static str,
    attributes: impl FnOnce() -> Vec<KeyValue>,
    future: F,
) -> F::Output {
    let span = Span::start(name, attributes);
    span.scope(future).await
}

/// An event on the current span, when it is recorded (kube's
/// `tracing.SpanFromContext(ctx).AddEvent`); attributes made only then.
pub fn current_event(name: &'static str, attributes: impl FnOnce() -> Vec<KeyValue>) {
    Context::map_current(|cx| {
        let span = cx.span();
        if span.is_recording() {
            span.add_event(name, attributes());
        }
    });
}
