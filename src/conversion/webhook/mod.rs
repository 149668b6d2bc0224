//! kube's webhook converter (apiextensions-apiserver `webhook_converter.go` with its
//! `converterMetric`): a CRD's `spec.conversion.webhook` called through the shared
//! webhook transport, one ConversionReview per [`Convert::convert`] call.
//!
//! - [`review`]: the review version, the objects sent, the request bytes.
//! - [`response`]: the answer decoded and checked.
//! - [`objects`]: each converted object checked, its metadata restored.
//! - [`metrics`]: kube's three conversion metrics.
//!
//! Calls are made as kube's conversion client makes them: `User-Agent:
//! kube-apiserver-admission` and `?timeout=30s` (the default webhook client config of
//! k8s.io/apiserver, `rest.Config.Timeout` 30 s), each bounded by those 30 s (Go's
//! `Client.Timeout exceeded` text). A request whose own deadline comes first drops the
//! call with it (its future is dropped). Recorded from the reference
//! (hack/conversion-oracle/FINDINGS.md §2).
//!
//! Texts name the input's GroupVersionKind as kube's per-object conversion does (kube
//! decodes list items one by one: `stable.example.com/v1, Kind=CronTab`); a batch of
//! several objects in one review is checked with kube's list-branch texts (`at index i`,
//! `i` counting the objects sent).

pub mod metrics;
pub mod objects;
pub mod response;
pub mod review;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_objects;

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::future::BoxFuture;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceDefinition, WebhookClientConfig,
};
use serde_json::Value;

use crate::crd::conversion::{Convert, ConvertError};
use crate::webhook::endpoint::ServiceRef;
use crate::webhook::{Bound, Call, Endpoint, Transport, USER_AGENT};
use metrics::{ConversionMetrics, Failure};
use objects::Shape;
use response::Refused;

/// client-go's timeout of kube's webhook clients (`setGlobalDefaults`): sent as
/// `?timeout=30s` and bounding each call.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(30);

/// One CRD's webhook converter.
pub struct WebhookConverter {
    crd_name: Arc<str>,
    endpoint: Endpoint,
    review_versions: Vec<String>,
    transport: Arc<Transport>,
    metrics: ConversionMetrics,
}

impl WebhookConverter {
    /// The converter of `crd` (strategy `Webhook`), calling through `transport`.
    pub fn new(
        crd: &CustomResourceDefinition,
        transport: Arc<Transport>,
        metrics: ConversionMetrics,
    ) -> Result<WebhookConverter, String> {
        let webhook = crd
            .spec
            .conversion
            .as_ref()
            .and_then(|c| c.webhook.as_ref())
            .ok_or("spec.conversion.webhook is required when strategy is Webhook")?;
        let config = webhook
            .client_config
            .as_ref()
            .ok_or("spec.conversion.webhook.clientConfig is required when strategy is Webhook")?;
        Ok(WebhookConverter {
            crd_name: crd.metadata.name.as_deref().unwrap_or_default().into(),
            endpoint: endpoint(config)?,
            review_versions: webhook.conversion_review_versions.clone(),
            transport,
            metrics,
        })
    }

    async fn convert_all(
        &self,
        mut objects: Vec<Value>,
        desired: &str,
    ) -> Result<Vec<Value>, ConvertError> {
        // kube's nop shortcut: an object with only apiVersion and kind gets the version.
        for object in objects.iter_mut().filter(|o| review::is_empty_object(o)) {
            object["apiVersion"] = Value::String(desired.to_string());
        }
        let sent = review::to_send(&objects, desired);
        let Some(&first) = sent.first() else {
            if objects.iter().any(|o| !review::is_empty_object(o)) {
                self.metrics.success(Duration::ZERO);
            }
            return Ok(objects);
        };
        let from = review::api_version(&objects[first]).to_string();
        let started = Instant::now();
        let answer = match self.exchange(&objects, &sent, desired, started).await {
            // kube sends one object per review: a batch whose answer fails a check is
            // sent again an object at a time, so that the answer (and its text) is the
            // one kube gives for the first object that fails alone. A failed call is
            // not repeated (a converter that is down or hangs would cost it per object).
            Err((failure, _)) if sent.len() > 1 && failure != Failure::Call => {
                self.one_at_a_time(&objects, &sent, desired).await
            }
            answer => answer.map_err(|(_, error)| error),
        };
        let ok = answer.is_ok();
        self.metrics.crd_conversion(
            &self.crd_name,
            version_of(&from),
            version_of(desired),
            ok,
            started.elapsed(),
        );
        for (i, converted) in sent.into_iter().zip(answer?) {
            objects[i] = converted;
        }
        Ok(objects)
    }

    /// The objects at `sent`, one review each, in order; the first failure ends it.
    async fn one_at_a_time(
        &self,
        objects: &[Value],
        sent: &[usize],
        desired: &str,
    ) -> Result<Vec<Value>, ConvertError> {
        let mut out = Vec::with_capacity(sent.len());
        for &at in sent {
            let started = Instant::now();
            let mut converted = (self.exchange(objects, &[at], desired, started).await)
                .map_err(|(_, error)| error)?;
            out.append(&mut converted);
        }
        Ok(out)
    }

    /// apiextensions' span of one review (`Call conversion webhook`); the call's
    /// `traceparent` is this span's.
    fn call_span(&self, desired: &str, count: usize, uid: &str) -> crate::telemetry::Span {
        use crate::telemetry::KeyValue;
        crate::telemetry::Span::start("Call conversion webhook", || {
            vec![
                KeyValue::new("custom-resource-definition", self.crd_name.to_string()),
                KeyValue::new("desired-api-version", desired.to_string()),
                KeyValue::new("object-count", i64::try_from(count).unwrap_or(i64::MAX)),
                KeyValue::new("UID", uid.to_string()),
            ]
        })
    }

    /// One review for the objects at `sent`: the converted objects, in that order.
    async fn exchange(
        &self,
        objects: &[Value],
        sent: &[usize],
        desired: &str,
        started: Instant,
    ) -> Result<Vec<Value>, (Failure, ConvertError)> {
        let gvk = objects::gvk(&objects[sent[0]]);
        let fail = |failure: Failure, text: String| {
            self.metrics.failure(failure, started.elapsed());
            (failure, ConvertError::new(text))
        };
        let version = review::pick_version(&self.review_versions)
            .map_err(|text| (Failure::Call, ConvertError::new(text)))?;
        let uid = uuid::Uuid::new_v4().to_string();
        let items: Vec<&Value> = sent.iter().map(|&i| &objects[i]).collect();
        let body = review::encode(version, &uid, desired, &items);
        // One object's answer fits the plain bound, as kube's; a batch's may be as long as
        // the objects sent.
        let returned_bytes = match sent.len() {
            1 => 0,
            _ => body.len(),
        };
        let failed = |cause: String| format!("conversion webhook for {gvk} failed: {cause}");
        let span = self.call_span(desired, sent.len(), &uid);
        let answer = span
            .scope(
                self.transport
                    .call(&self.endpoint, body, call(returned_bytes)),
            )
            .await
            .map_err(|e| fail(Failure::Call, failed(e.cause())))?;
        span.event("Request completed");
        drop(span);
        let converted = response::decode(version, &uid, &answer).map_err(|e| match e {
            Refused::Undecodable(text) => fail(Failure::Call, failed(text)),
            Refused::Malformed(text) => fail(Failure::MalformedResponse, failed(text)),
        })?;
        if converted.len() != sent.len() {
            let text = format!(
                "conversion webhook for {gvk} returned {} objects, expected {}",
                converted.len(),
                sent.len()
            );
            return Err(fail(Failure::PartialResponse, text));
        }
        let shape = |i: usize| match sent.len() {
            1 => Shape::Object,
            _ => Shape::Item(i),
        };
        let mut out = Vec::with_capacity(sent.len());
        for (i, (item, &at)) in converted.into_iter().zip(sent).enumerate() {
            let original = &objects[at];
            let checked = objects::converted(original, item, desired, shape(i), &gvk)
                .map_err(|text| fail(Failure::InvalidConvertedObject, text))?;
            out.push(checked);
        }
        self.metrics.success(started.elapsed());
        Ok(out)
    }
}

/// kube's call: its client's User-Agent and 30 s timeout, sent as `?timeout=30s`; the
/// answer may carry back the `returned_bytes` of objects sent (kube sends one object per
/// review, under the plain bound; a batch's answer is as long as its objects).
fn call(returned_bytes: usize) -> Call {
    Call {
        bound: CALL_TIMEOUT,
        query_timeout: Some(CALL_TIMEOUT),
        user_agent: USER_AGENT,
        bound_by: Bound::ClientTimeout,
        returned_bytes,
    }
}

/// The version of `group/version`.
fn version_of(api_version: &str) -> &str {
    api_version.rsplit('/').next().unwrap_or_default()
}

impl Convert for WebhookConverter {
    fn convert<'a>(
        &'a self,
        objects: Vec<Value>,
        to_api_version: &'a str,
    ) -> BoxFuture<'a, Result<Vec<Value>, ConvertError>> {
        Box::pin(self.convert_all(objects, to_api_version))
    }
}

/// kube's `webhookClientConfigForCRD`: url or service (port 443 by default), the
/// caBundle (whitespace only: none).
pub fn endpoint(config: &WebhookClientConfig) -> Result<Endpoint, String> {
    let ca_bundle = config
        .ca_bundle
        .as_ref()
        .map(|b| b.0.clone())
        .filter(|b| !b.trim_ascii().is_empty());
    let service = config.service.as_ref().map(|s| ServiceRef {
        namespace: &s.namespace,
        name: &s.name,
        path: s.path.as_deref(),
        port: s.port,
    });
    let missing = "exactly one of url or service is required";
    Endpoint::from_client_config(service, config.url.as_deref(), ca_bundle, missing)
}
