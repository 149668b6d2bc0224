//! The tests' stub conversion webhook (tests/common/stub_converter.rs) answers as
//! ../shared/reference/stub/converter.py (and its extension hack/conversion-oracle/converter.py)
//! does, over real HTTPS, and records every review received with its headers.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;
#[path = "common/stub_converter.rs"]
mod stub_converter;
#[path = "common/webhook.rs"]
mod webhook;

use std::time::Duration;

use serde_json::{Value, json};
use stub_converter::answer::{Answer, answer};
use stub_converter::{ANNOTATION, StubConverter};

fn client(converter: &StubConverter) -> reqwest::Client {
    let ca = reqwest::Certificate::from_pem(converter.ca_pem.as_bytes()).unwrap();
    reqwest::Client::builder()
        .tls_built_in_root_certs(false)
        .add_root_certificate(ca)
        .http1_only()
        .build()
        .unwrap()
}

fn crontab(api_version: &str, name: &str, spec: Value) -> Value {
    json!({"apiVersion": api_version, "kind": "CronTab",
        "metadata": {"name": name, "namespace": "default", "uid": format!("uid-{name}")},
        "spec": spec})
}

fn review(version: &str, desired: &str, objects: Vec<Value>) -> Value {
    json!({"kind": "ConversionReview", "apiVersion": format!("apiextensions.k8s.io/{version}"),
        "request": {"uid": "review-1", "desiredAPIVersion": desired, "objects": objects},
        "response": {"uid": "", "convertedObjects": null, "result": {"metadata": {}}}})
}

/// POSTs `body` to `path`; the answer's JSON (or its text as a JSON string).
async fn post(converter: &StubConverter, path: &str, body: &Value) -> Value {
    let resp = client(converter)
        .post(converter.url(path))
        .header("User-Agent", "test-client/1.0")
        .json(body)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let text = resp.text().await.unwrap();
    serde_json::from_str(&text).unwrap_or(Value::String(text))
}

#[tokio::test]
async fn convert_to_v2_derives_shape_and_records_the_review() {
    let converter = StubConverter::start();
    let objects = vec![
        crontab("stable.example.com/v1", "red", json!({"color": "red"})),
        crontab("stable.example.com/v1", "blue", json!({"color": "blue"})),
    ];
    let sent = review("v1", "stable.example.com/v2", objects);
    let got = post(&converter, "/convert?x=1", &sent).await;
    assert_eq!(got["apiVersion"], "apiextensions.k8s.io/v1");
    assert_eq!(got["kind"], "ConversionReview");
    assert_eq!(got["response"]["uid"], "review-1");
    assert_eq!(got["response"]["result"], json!({"status": "Success"}));
    let converted = got["response"]["convertedObjects"].as_array().unwrap();
    assert_eq!(converted[0]["apiVersion"], "stable.example.com/v2");
    assert_eq!(
        converted[0]["spec"],
        json!({"color": "red", "shape": "round"})
    );
    assert_eq!(
        converted[1]["spec"],
        json!({"color": "blue", "shape": "square"})
    );
    assert!(converted[0]["metadata"].get("annotations").is_none());
    let reviews = converter.reviews_at("/convert");
    assert_eq!(reviews.len(), 1);
    assert_eq!(reviews[0].query, "x=1");
    assert_eq!(reviews[0].body, sent);
    assert_eq!(
        serde_json::from_str::<Value>(&reviews[0].raw).unwrap(),
        sent
    );
    assert_eq!(reviews[0].header("user-agent"), Some("test-client/1.0"));
    assert_eq!(
        reviews[0].line(),
        json!({"path": "/convert?x=1", "desired": "stable.example.com/v2", "count": 2})
    );
    assert_eq!(converter.objects_converted(), 2);
    assert_eq!(converter.take_reviews().len(), 1);
    assert_eq!(converter.review_count(), 0);
}

#[tokio::test]
async fn convert_v2_to_v1_and_back_is_lossless() {
    let converter = StubConverter::start();
    let v2 = crontab(
        "stable.example.com/v2",
        "a",
        json!({"color": "red", "shape": "star"}),
    );
    let sent = review("v1beta1", "stable.example.com/v1", vec![v2.clone()]);
    let got = post(&converter, "/convert", &sent).await;
    assert_eq!(got["apiVersion"], "apiextensions.k8s.io/v1beta1");
    let v1 = got["response"]["convertedObjects"][0].clone();
    assert_eq!(v1["spec"], json!({"color": "red"}));
    assert_eq!(v1["metadata"]["annotations"], json!({ANNOTATION: "star"}));
    let back = post(
        &converter,
        "/convert",
        &review("v1", "stable.example.com/v2", vec![v1]),
    )
    .await;
    assert_eq!(back["response"]["convertedObjects"][0], v2);
}

#[tokio::test]
async fn same_version_objects_get_empty_annotations_as_converter_py() {
    let converter = StubConverter::start();
    let v2 = crontab("stable.example.com/v2", "a", json!({"color": "red"}));
    let got = post(
        &converter,
        "/convert",
        &review("v1", "stable.example.com/v2", vec![v2]),
    )
    .await;
    let object = &got["response"]["convertedObjects"][0];
    assert_eq!(object["metadata"]["annotations"], json!({}));
    assert_eq!(object["spec"], json!({"color": "red"}));
}

/// Each broken path's answer to one v1 object converted to v2.
#[tokio::test]
async fn broken_paths_answer_as_documented() {
    let converter = StubConverter::start();
    let one = || {
        let object = crontab("stable.example.com/v1", "a", json!({"color": "red"}));
        review("v1", "stable.example.com/v2", vec![object])
    };
    let got = post(&converter, "/convert-fail", &one()).await;
    let refused = json!({"status": "Failure", "message": "the test converter refuses"});
    assert_eq!(
        got["response"],
        json!({"uid": "review-1", "result": refused})
    );
    let got = post(&converter, "/convert-garbage", &one()).await;
    assert_eq!(got, json!("not a ConversionReview"));
    let got = post(&converter, "/convert-wrong-count", &one()).await;
    assert_eq!(got["response"]["convertedObjects"], json!([]));
    let got = post(&converter, "/convert-rename", &one()).await;
    assert_eq!(
        got["response"]["convertedObjects"][0]["metadata"]["name"],
        "a-renamed"
    );
    let got = post(&converter, "/convert-wrong-uid", &one()).await;
    assert_eq!(got["response"]["uid"], "not-review-1");
    let got = post(&converter, "/convert-wrong-kind", &one()).await;
    assert_eq!(got["response"]["convertedObjects"][0]["kind"], "WrongKind");
    let got = post(&converter, "/convert-wrong-apiversion", &one()).await;
    let object = &got["response"]["convertedObjects"][0];
    assert_eq!(object["apiVersion"], "wrong.example.com/v2");
    let got = post(&converter, "/convert-review-kind", &one()).await;
    assert_eq!(got["kind"], "ConversionResponse");
    let got = post(&converter, "/convert-labels", &one()).await;
    let metadata = &got["response"]["convertedObjects"][0]["metadata"];
    assert_eq!(metadata["labels"], json!({"converted-to": "v2"}));
    let got = post(&converter, "/convert-bad-label", &one()).await;
    let metadata = &got["response"]["convertedObjects"][0]["metadata"];
    assert_eq!(
        metadata["labels"],
        json!({"converted-to": "not a label value!"})
    );
    let got = post(&converter, "/convert-annotation-number", &one()).await;
    let metadata = &got["response"]["convertedObjects"][0]["metadata"];
    assert_eq!(metadata["annotations"], json!({"converted-count": 1}));
    assert_eq!(converter.review_count(), 11);
}

#[tokio::test]
async fn slow_path_never_answers_but_is_recorded() {
    let converter = StubConverter::start();
    let sent = review("v1", "stable.example.com/v2", vec![]);
    let request = client(&converter)
        .post(converter.url("/convert-slow"))
        .json(&sent)
        .send();
    let waited = tokio::time::timeout(Duration::from_millis(500), request).await;
    assert!(waited.is_err(), "/convert-slow answered");
    assert_eq!(converter.reviews_at("/convert-slow").len(), 1);
}

#[tokio::test]
async fn request_converter_py_would_crash_on_closes_the_connection() {
    let converter = StubConverter::start();
    let resp = client(&converter)
        .post(converter.url("/convert"))
        .body("not json")
        .send()
        .await;
    assert!(resp.is_err(), "answered: {resp:?}");
    assert_eq!(converter.reviews()[0].body, Value::Null);
    assert_eq!(converter.reviews()[0].raw, "not json");
}

#[test]
fn answer_crashes_where_converter_py_raises() {
    let no_version = json!({"request": {"uid": "u", "desiredAPIVersion": "g/v2",
        "objects": [{"kind": "CronTab", "metadata": {"name": "a"}}]}});
    let null_request = json!({"request": null});
    let nameless = json!({"request": {"uid": "u", "desiredAPIVersion": "g/v2",
        "objects": [{"apiVersion": "g/v1", "kind": "CronTab"}]}});
    let (no_version, null_request) = (no_version.to_string(), null_request.to_string());
    let nameless = nameless.to_string();
    let cases: [(&str, &[u8], bool); 6] = [
        ("/convert", b"", false),
        ("/convert", b"[]", true),
        ("/convert", no_version.as_bytes(), true),
        ("/convert", null_request.as_bytes(), true),
        ("/convert", nameless.as_bytes(), false),
        ("/convert-rename", nameless.as_bytes(), true),
    ];
    for (path, body, crashes) in cases {
        let got = answer(path, body);
        assert_eq!(
            got == Answer::Crash,
            crashes,
            "{path} {:?}",
            String::from_utf8_lossy(body)
        );
    }
    let Answer::Body(empty) = answer("/convert", b"") else {
        panic!("no body")
    };
    let empty: Value = serde_json::from_slice(&empty).unwrap();
    let want = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
        "response": {"uid": "", "result": {"status": "Success"}, "convertedObjects": []}});
    assert_eq!(empty, want);
}
