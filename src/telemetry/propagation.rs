//! kube's propagators (component-base `tracing.Propagators`): W3C trace context and
//! baggage, read from a request's headers and written into a webhook call's.

use http::{HeaderMap, HeaderName, HeaderValue};
use opentelemetry::Context;
use opentelemetry::propagation::{Extractor, Injector, TextMapPropagator};
use opentelemetry::trace::TraceContextExt;
use opentelemetry_sdk::propagation::{BaggagePropagator, TraceContextPropagator};

/// The header a W3C trace context arrives in.
pub const TRACEPARENT: &str = "traceparent";

struct Headers<'a>(&'a HeaderMap);

impl Extractor for Headers<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(|v| v.to_str().ok())
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(HeaderName::as_str).collect()
    }
}

struct HeadersMut<'a>(&'a mut HeaderMap);

impl Injector for HeadersMut<'_> {
    fn set(&mut self, key: &str, value: String) {
        if let (Ok(name), Ok(value)) = (
            HeaderName::from_bytes(key.as_bytes()),
            HeaderValue::from_str(&value),
        ) {
            self.0.insert(name, value);
        }
    }
}

/// The remote context of a request: its `traceparent` (with `tracestate`) and
/// `baggage`; `None` without a valid `traceparent` (the common case costs one lookup).
pub fn extract(headers: &HeaderMap) -> Option<Context> {
    headers.get(TRACEPARENT)?;
    let extractor = Headers(headers);
    let cx = TraceContextPropagator::new().extract_with_context(&Context::new(), &extractor);
    if !cx.span().span_context().is_valid() {
        return None;
    }
    Some(BaggagePropagator::new().extract_with_context(&cx, &extractor))
}

/// Writes the current context's trace context and baggage into `headers` (otelhttp's
/// transport does so even with a no-op provider); nothing without a current span.
pub fn inject(headers: &mut HeaderMap) {
    let cx = Context::current();
    if !cx.span().span_context().is_valid() {
        return;
    }
    let mut injector = HeadersMut(headers);
    TraceContextPropagator::new().inject_context(&cx, &mut injector);
    BaggagePropagator::new().inject_context(&cx, &mut injector);
}

#[cfg(test)]
mod tests {
    use super::*;

    const PARENT: &str = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

    #[test]
    fn extract_then_inject_passes_traceparent_on() {
        let mut incoming = HeaderMap::new();
        incoming.insert(TRACEPARENT, HeaderValue::from_static(PARENT));
        let cx = extract(&incoming).expect("valid traceparent");
        assert!(cx.span().span_context().is_remote());
        let _attached = cx.attach();
        let mut outgoing = HeaderMap::new();
        inject(&mut outgoing);
        assert_eq!(outgoing[TRACEPARENT], PARENT);
    }

    #[test]
    fn extract_missing_or_invalid_is_none() {
        assert!(extract(&HeaderMap::new()).is_none());
        for bad in [
            "garbage",
            "00-00000000000000000000000000000000-b7ad6b7169203331-01",
        ] {
            let mut headers = HeaderMap::new();
            headers.insert(TRACEPARENT, HeaderValue::from_static(bad));
            assert!(extract(&headers).is_none(), "{bad}");
        }
        let mut outgoing = HeaderMap::new();
        inject(&mut outgoing);
        assert!(outgoing.is_empty());
    }
}
