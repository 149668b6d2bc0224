//! The webhook converter (`conversion::WebhookConverter`, made by `conversion::Factory`)
//! against a real HTTPS converter over real TLS (tests/common/stub_converter.rs, the port of
//! the reference's converter.py): what is sent (one review per call, only the objects that
//! need it, kube's request bytes, User-Agent and `?timeout=30s`), what comes back (converted
//! objects with their original metadata), every broken answer's kube text, and the metrics.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

#[path = "common/stub_converter.rs"]
mod stub_converter;
#[path = "common/webhook.rs"]
mod webhook;

use std::sync::Arc;

use crd_apiserver::config::admission::AdmissionSettings;
use crd_apiserver::conversion::{ConversionMetrics, Factory};
use crd_apiserver::crd::conversion::{Conversion, Convert, ConverterFactory};
use crd_apiserver::metrics::Metrics;
use serde_json::{Value, json};
use stub_converter::StubConverter;

const V1: &str = "stable.example.com/v1";
const V2: &str = "stable.example.com/v2";
const GVK: &str = "stable.example.com/v1, Kind=CronTab";

/// The converter of a CronTab CRD whose `spec.conversion` is `conversion`, and the
/// metrics it counts into.
fn webhook_converter(conversion: Value) -> (Arc<dyn Convert>, Metrics) {
    let crd = serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "crontabs.stable.example.com"},
        "spec": {"group": "stable.example.com", "scope": "Namespaced",
            "names": {"plural": "crontabs", "kind": "CronTab"},
            "versions": [{"name": "v1", "served": true, "storage": true},
                {"name": "v2", "served": true, "storage": false}],
            "conversion": conversion}}))
    .unwrap();
    let mut metrics = Metrics::new();
    let settings = AdmissionSettings {
        max_response_bytes: 1 << 20,
        ..AdmissionSettings::default()
    };
    let factory = Factory::new(&settings, ConversionMetrics::register(&mut metrics));
    match factory.new_converter(&crd).unwrap() {
        Conversion::Converter(converter) => (converter, metrics),
        Conversion::None => panic!("a Webhook strategy gave no converter"),
    }
}

fn crontab(api_version: &str, name: &str, color: &str) -> Value {
    json!({"apiVersion": api_version, "kind": "CronTab",
        "metadata": {"name": name, "namespace": "default", "uid": format!("uid-{name}"),
            "resourceVersion": "12", "labels": {"app": "cron"}},
        "spec": {"color": color}})
}

fn metric_lines(metrics: &Metrics, prefix: &str) -> Vec<String> {
    let text = metrics.render();
    text.lines()
        .filter(|l| l.starts_with(prefix))
        .map(str::to_string)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn convert_over_tls_sends_only_objects_needing_it_in_one_review() {
    let stub = StubConverter::start();
    let (converter, metrics) = webhook_converter(stub.conversion("/convert", &["v1", "v1beta1"]));
    let objects = vec![
        crontab(V1, "a", "red"),
        crontab(V2, "b", "blue"),
        json!({"apiVersion": V1, "kind": "CronTab"}),
        crontab(V1, "d", "blue"),
    ];
    let got = converter.convert(objects.clone(), V2).await.unwrap();
    // Converted by the webhook, metadata as the original's (labels/annotations from the answer).
    assert_eq!(got[0]["apiVersion"], V2);
    assert_eq!(got[0]["spec"], json!({"color": "red", "shape": "round"}));
    assert_eq!(got[0]["metadata"], objects[0]["metadata"]);
    assert_eq!(got[3]["spec"], json!({"color": "blue", "shape": "square"}));
    // Already at v2: untouched; the empty object: only its apiVersion (kube's nop shortcut).
    assert_eq!(got[1], objects[1]);
    assert_eq!(got[2], json!({"apiVersion": V2, "kind": "CronTab"}));
    let reviews = stub.reviews();
    assert_eq!(reviews.len(), 1, "one review per call");
    let review = &reviews[0];
    let sent: Vec<&str> = review
        .objects()
        .iter()
        .map(|o| o["metadata"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(sent, ["a", "d"]);
    assert_eq!(review.query, "timeout=30s");
    assert_eq!(
        review.header("user-agent"),
        Some("kube-apiserver-admission")
    );
    assert_eq!(review.header("content-type"), Some("application/json"));
    let uid = review.request()["uid"].as_str().unwrap();
    assert!(
        review.raw.starts_with(&format!(
            "{{\"kind\":\"ConversionReview\",\"apiVersion\":\"apiextensions.k8s.io/v1\",\"request\":{{\"uid\":\"{uid}\",\"desiredAPIVersion\":\"{V2}\",\"objects\":[{{"
        )),
        "{}",
        review.raw
    );
    assert!(
        review.raw.ends_with(
            ",\"response\":{\"uid\":\"\",\"convertedObjects\":null,\"result\":{\"metadata\":{}}}}\n"
        ),
        "{}",
        review.raw
    );
    assert_eq!(
        metric_lines(&metrics, "apiserver_conversion_webhook_request_total"),
        [r#"apiserver_conversion_webhook_request_total{failure_type="",result="success"} 1"#]
    );
    let per_crd = metric_lines(
        &metrics,
        "apiserver_crd_conversion_webhook_duration_seconds_count",
    );
    assert_eq!(
        per_crd,
        [
            r#"apiserver_crd_conversion_webhook_duration_seconds_count{crd_name="crontabs.stable.example.com",from_version="v1",succeeded="true",to_version="v2"} 1"#
        ]
    );
    // Nothing to convert: no review (kube still counts a success).
    let same = converter
        .convert(vec![crontab(V2, "e", "red")], V2)
        .await
        .unwrap();
    assert_eq!(same, [crontab(V2, "e", "red")]);
    assert_eq!(stub.review_count(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn convert_v1beta1_first_in_crd_order_sends_v1beta1_review() {
    let stub = StubConverter::start();
    let (converter, _) = webhook_converter(stub.conversion("/convert-labels", &["v1beta1", "v1"]));
    let got = converter
        .convert(vec![crontab(V1, "a", "red")], V2)
        .await
        .unwrap();
    assert_eq!(
        stub.reviews()[0].body["apiVersion"],
        "apiextensions.k8s.io/v1beta1"
    );
    // An allowed label change from the converter is kept; the rest of metadata is restored.
    let labels = got[0]["metadata"]["labels"].as_object().unwrap();
    assert_eq!(labels.get("app"), Some(&json!("cron")));
    assert_eq!(labels.len(), 2, "{labels:?}");
    assert_eq!(got[0]["metadata"]["resourceVersion"], "12");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn convert_broken_converters_kube_texts_and_failure_types() {
    let stub = StubConverter::start();
    let url = |path: &str| stub.url(path);
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "/convert-fail",
            format!("conversion webhook for {GVK} failed: the test converter refuses"),
            "conversion_webhook_malformed_response_failure",
        ),
        (
            "/convert-garbage",
            format!(
                "conversion webhook for {GVK} failed: couldn't get version/kind; json parse error: json: cannot unmarshal string into Go value of type struct {{ APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; Kind string \"json:\\\"kind,omitempty\\\"\" }}"
            ),
            "conversion_webhook_call_failure",
        ),
        (
            "/convert-review-kind",
            format!(
                "conversion webhook for {GVK} failed: no kind \"ConversionResponse\" is registered for version \"apiextensions.k8s.io/v1\" in scheme \"pkg/util/webhook/client.go:71\""
            ),
            "conversion_webhook_call_failure",
        ),
        (
            "/convert-wrong-count",
            format!("conversion webhook for {GVK} returned 0 objects, expected 1"),
            "conversion_webhook_partial_response_failure",
        ),
        (
            "/convert-rename",
            format!(
                "conversion webhook for {GVK} returned invalid object: must have the same name: a != a-renamed"
            ),
            "conversion_webhook_invalid_converted_object_failure",
        ),
        (
            "/convert-wrong-kind",
            format!(
                "conversion webhook for {GVK} returned invalid object at index 0: invalid kind (expected CronTab, received WrongKind)"
            ),
            "conversion_webhook_invalid_converted_object_failure",
        ),
        (
            "/convert-wrong-apiversion",
            format!(
                "conversion webhook for {GVK} returned invalid object at index 0: invalid groupVersion (expected {V2}, received wrong.example.com/v2)"
            ),
            "conversion_webhook_invalid_converted_object_failure",
        ),
        (
            "/convert-bad-label",
            format!(
                "conversion webhook for {GVK} returned invalid metadata: metadata.labels: Invalid value: \"not a label value!\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
            ),
            "conversion_webhook_invalid_converted_object_failure",
        ),
        (
            "/convert-annotation-number",
            format!(
                "conversion webhook for {GVK} returned invalid metadata: metadata.annotations[converted-count] must be a string, but is int64 in converted object"
            ),
            "conversion_webhook_invalid_converted_object_failure",
        ),
    ];
    for (path, want, failure_type) in cases {
        let (converter, metrics) = webhook_converter(stub.conversion(path, &["v1"]));
        let error = converter
            .convert(vec![crontab(V1, "a", "red")], V2)
            .await
            .unwrap_err();
        assert_eq!(error.message, want, "{path} ({})", url(path));
        assert_eq!(
            metric_lines(&metrics, "apiserver_conversion_webhook_request_total"),
            [format!(
                "apiserver_conversion_webhook_request_total{{failure_type=\"{failure_type}\",result=\"failure\"}} 1"
            )],
            "{path}"
        );
        let per_crd = metric_lines(
            &metrics,
            "apiserver_crd_conversion_webhook_duration_seconds_count",
        );
        assert!(
            per_crd[0].contains(r#"succeeded="false""#),
            "{path}: {per_crd:?}"
        );
    }
    // The uid check names the uid sent.
    let (converter, _) = webhook_converter(stub.conversion("/convert-wrong-uid", &["v1"]));
    let error = converter
        .convert(vec![crontab(V1, "a", "red")], V2)
        .await
        .unwrap_err();
    let reviews = stub.reviews_at("/convert-wrong-uid");
    let uid = reviews[0].request()["uid"].as_str().unwrap();
    assert_eq!(
        error.message,
        format!(
            "conversion webhook for {GVK} failed: expected response.uid=\"{uid}\", got \"not-{uid}\""
        )
    );
    // A converter nobody listens on: client-go's text, without admission's prefix.
    let closed = json!({"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v1"],
        "clientConfig": {"url": format!("{}/convert", stub.closed), "caBundle": stub.ca_bundle()}}});
    let (converter, _) = webhook_converter(closed);
    let error = converter
        .convert(vec![crontab(V1, "a", "red")], V2)
        .await
        .unwrap_err();
    let authority = stub.closed.trim_start_matches("https://");
    assert_eq!(
        error.message,
        format!(
            "conversion webhook for {GVK} failed: Post \"{}/convert?timeout=30s\": dial tcp {authority}: connect: connection refused",
            stub.closed
        )
    );
}

/// kube sends one object per review, so a list fails with the text of its first failing
/// object converted alone: a batch whose answer fails a check is sent again an object at a
/// time, and answers that text; a failed call is not repeated.
#[tokio::test]
async fn convert_batch_failing_checks_answers_first_objects_own_text() {
    let stub = StubConverter::start();
    let batch = || vec![crontab(V1, "a", "red"), crontab(V1, "b", "blue")];
    let cases = [
        (
            "/convert-rename",
            format!(
                "conversion webhook for {GVK} returned invalid object: must have the same name: a != a-renamed"
            ),
        ),
        (
            "/convert-wrong-count",
            format!("conversion webhook for {GVK} returned 0 objects, expected 1"),
        ),
        (
            "/convert-wrong-kind",
            format!(
                "conversion webhook for {GVK} returned invalid object at index 0: invalid kind (expected CronTab, received WrongKind)"
            ),
        ),
    ];
    for (path, want) in cases {
        let (converter, _) = webhook_converter(stub.conversion(path, &["v1"]));
        let error = converter.convert(batch(), V2).await.unwrap_err();
        assert_eq!(error.message, want, "{path}");
        // The batch, then `a` alone, which fails: `b` is never sent alone.
        let sent: Vec<usize> = stub
            .reviews_at(path)
            .iter()
            .map(|r| r.objects().len())
            .collect();
        assert_eq!(sent, [2, 1], "{path}");
    }
    // A converter that fails only on batches is answered from the single reviews.
    let (converter, _) = webhook_converter(stub.conversion("/convert", &["v1"]));
    let converted = converter.convert(batch(), V2).await.unwrap();
    assert_eq!(converted[1]["spec"]["shape"], "square");
    // A failed call is not repeated per object.
    let closed = json!({"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v1"],
        "clientConfig": {"url": format!("{}/convert", stub.closed), "caBundle": stub.ca_bundle()}}});
    let (converter, metrics) = webhook_converter(closed);
    converter.convert(batch(), V2).await.unwrap_err();
    assert_eq!(
        metric_lines(&metrics, "apiserver_conversion_webhook_request_total"),
        [
            r#"apiserver_conversion_webhook_request_total{failure_type="conversion_webhook_call_failure",result="failure"} 1"#
        ]
    );
}
