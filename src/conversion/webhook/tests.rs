//! Table tests of the review sent and the answer's checks (texts verbatim from
//! apiextensions-apiserver `webhook_converter.go` and client-go's decoder), and of the
//! metrics' names, labels and buckets.

use serde_json::{Value, json};

use super::metrics::{ConversionMetrics, Failure};
use super::response::{Refused, decode};
use super::review::{self, ReviewVersion};

fn obj(api_version: &str, name: &str) -> Value {
    json!({"apiVersion": api_version, "kind": "CronTab",
        "metadata": {"name": name, "namespace": "default", "uid": format!("uid-{name}")},
        "spec": {"color": "red"}})
}

#[test]
fn pick_version_first_known_in_crd_order_else_kube_text() {
    let cases: &[(&[&str], Result<ReviewVersion, &str>)] = &[
        (&["v1", "v1beta1"], Ok(ReviewVersion::V1)),
        (&["v1beta1", "v1"], Ok(ReviewVersion::V1beta1)),
        (&["v2", "v1beta1"], Ok(ReviewVersion::V1beta1)),
        (&["v2"], Err("no supported conversion review versions")),
        (&[], Err("no supported conversion review versions")),
    ];
    for (accepted, want) in cases {
        let accepted: Vec<String> = accepted.iter().map(|s| s.to_string()).collect();
        assert_eq!(
            review::pick_version(&accepted),
            want.map_err(str::to_string),
            "{accepted:?}"
        );
    }
}

#[test]
fn to_send_skips_desired_version_and_empty_objects() {
    let objects = vec![
        obj("stable.example.com/v1", "a"),
        obj("stable.example.com/v2", "b"),
        json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab"}),
        obj("stable.example.com/v1", "d"),
    ];
    assert_eq!(review::to_send(&objects, "stable.example.com/v2"), [0, 3]);
    assert!(review::is_empty_object(&objects[2]));
    assert!(!review::is_empty_object(
        &json!({"apiVersion": "x", "kind": "y", "spec": {}})
    ));
    assert!(!review::is_empty_object(
        &json!({"apiVersion": "x", "metadata": {}})
    ));
}

#[test]
fn encode_request_json_as_kube_sends_it_v1_and_v1beta1() {
    let object = json!({"kind": "CronTab", "apiVersion": "stable.example.com/v1",
        "metadata": {"name": "a"}, "spec": {"note": "<b>"}});
    for (version, api_version) in [
        (ReviewVersion::V1, "apiextensions.k8s.io/v1"),
        (ReviewVersion::V1beta1, "apiextensions.k8s.io/v1beta1"),
    ] {
        let body = review::encode(version, "u-1", "stable.example.com/v2", &[&object]);
        let want = format!(
            "{{\"kind\":\"ConversionReview\",\"apiVersion\":\"{api_version}\",\"request\":{{\"uid\":\"u-1\",\
             \"desiredAPIVersion\":\"stable.example.com/v2\",\"objects\":[{{\"apiVersion\":\"stable.example.com/v1\",\
             \"kind\":\"CronTab\",\"metadata\":{{\"name\":\"a\"}},\"spec\":{{\"note\":\"\\u003cb\\u003e\"}}}}]}},\
             \"response\":{{\"uid\":\"\",\"convertedObjects\":null,\"result\":{{\"metadata\":{{}}}}}}}}\n"
        );
        assert_eq!(String::from_utf8(body).unwrap(), want);
    }
}

fn v1_answer(response: Value) -> Vec<u8> {
    serde_json::to_vec(
        &json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
        "response": response}),
    )
    .unwrap()
}

#[test]
fn decode_valid_answers_give_converted_objects() {
    let objects = json!([{"apiVersion": "g/v2", "kind": "K"}, null]);
    let ok = json!({"uid": "x", "convertedObjects": objects, "result": {"status": "Success"}});
    assert_eq!(
        decode(ReviewVersion::V1, "x", &v1_answer(ok)),
        Ok(vec![
            json!({"apiVersion": "g/v2", "kind": "K"}),
            Value::Null
        ])
    );
    // v1beta1 checks neither the review's kind nor the uid ("for compatibility").
    let beta = br#"{"apiVersion":"apiextensions.k8s.io/v1beta1","kind":"ConversionReview","response":{"uid":"other","convertedObjects":[],"result":{"status":"Success"}}}"#;
    assert_eq!(decode(ReviewVersion::V1beta1, "x", beta), Ok(vec![]));
    let no_kind = br#"{"response":{"uid":"y","result":{"status":"Success"}}}"#;
    assert_eq!(decode(ReviewVersion::V1beta1, "x", no_kind), Ok(vec![]));
    // YAML answers decode too (client-go's universal decoder).
    let yaml = b"apiVersion: apiextensions.k8s.io/v1\nkind: ConversionReview\nresponse:\n  uid: x\n  result:\n    status: Success\n";
    assert_eq!(decode(ReviewVersion::V1, "x", yaml), Ok(vec![]));
}

#[test]
fn decode_bad_answers_kube_texts() {
    use Refused::{Malformed as M, Undecodable as U};
    let cases: Vec<(ReviewVersion, Vec<u8>, Refused)> = vec![
        (ReviewVersion::V1, v1_answer(json!({"uid": "y", "result": {"status": "Success"}})),
            M(r#"expected response.uid="x", got "y""#.into())),
        (ReviewVersion::V1, br#"{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview"}"#.to_vec(),
            M("no response provided".into())),
        (ReviewVersion::V1beta1, br#"{"apiVersion":"apiextensions.k8s.io/v1beta1","kind":"ConversionReview","response":null}"#.to_vec(),
            M("no response provided".into())),
        (ReviewVersion::V1, br#"{"response":{"uid":"x","result":{"status":"Success"}}}"#.to_vec(),
            M("expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got /, Kind=".into())),
        (ReviewVersion::V1, v1_answer(json!({"uid": "x", "result": {"status": "Failure", "message": "the test converter refuses"}})),
            M("the test converter refuses".into())),
        (ReviewVersion::V1, v1_answer(json!({"uid": "x", "result": {"status": "Failure"}})),
            M("response.result.status was 'Failure', not 'Success'".into())),
        (ReviewVersion::V1, v1_answer(json!({"uid": "x"})),
            M("response.result.status was '', not 'Success'".into())),
        (ReviewVersion::V1, v1_answer(json!({"uid": "x", "convertedObjects": "no", "result": {"status": "Success"}})),
            U("json: cannot unmarshal string into Go struct field ConversionResponse.response.convertedObjects of type []runtime.RawExtension".into())),
        (ReviewVersion::V1, v1_answer(json!({"uid": 7, "result": {"status": "Success"}})),
            U("json: cannot unmarshal number into Go struct field ConversionResponse.response.uid of type types.UID".into())),
        (ReviewVersion::V1, b"{not json".to_vec(),
            U("couldn't get version/kind; json parse error: invalid character 'n' looking for beginning of object key string".into())),
        (ReviewVersion::V1, b"not a ConversionReview".to_vec(),
            U(r#"couldn't get version/kind; json parse error: json: cannot unmarshal string into Go value of type struct { APIVersion string "json:\"apiVersion,omitempty\""; Kind string "json:\"kind,omitempty\"" }"#.into())),
        (ReviewVersion::V1, br#"{"apiVersion":"v1","kind":"Pod"}"#.to_vec(),
            U(r#"no kind "Pod" is registered for version "v1" in scheme "pkg/util/webhook/client.go:71""#.into())),
        (ReviewVersion::V1, br#"{"apiVersion":"apiextensions.k8s.io/v1beta1","kind":"ConversionReview","response":{}}"#.to_vec(),
            U("converting (v1beta1.ConversionReview) to (v1.ConversionReview): unknown conversion".into())),
        (ReviewVersion::V1, br#"{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionResponse"}"#.to_vec(),
            U(r#"no kind "ConversionResponse" is registered for version "apiextensions.k8s.io/v1" in scheme "pkg/util/webhook/client.go:71""#.into())),
    ];
    for (version, body, want) in cases {
        let got = decode(version, "x", &body);
        assert_eq!(got, Err(want), "{}", String::from_utf8_lossy(&body));
    }
}

#[test]
fn metrics_kube_names_labels_and_buckets() {
    let mut registry = crate::metrics::Metrics::new();
    let m = ConversionMetrics::register(&mut registry);
    m.success(std::time::Duration::from_millis(3));
    m.failure(
        Failure::PartialResponse,
        std::time::Duration::from_millis(30),
    );
    let crd: std::sync::Arc<str> = "crontabs.stable.example.com".into();
    m.crd_conversion(&crd, "v1", "v2", true, std::time::Duration::from_millis(2));
    m.crd_conversion(&crd, "v2", "v2", true, std::time::Duration::from_millis(2));
    let text = registry.render();
    for line in [
        "# HELP apiserver_conversion_webhook_request [ALPHA] Counter for conversion webhook requests with success/failure and failure error type.",
        "# TYPE apiserver_conversion_webhook_request counter",
        r#"apiserver_conversion_webhook_request_total{failure_type="",result="success"} 1"#,
        r#"apiserver_conversion_webhook_request_total{failure_type="conversion_webhook_partial_response_failure",result="failure"} 1"#,
        "# HELP apiserver_conversion_webhook_duration_seconds [ALPHA] Conversion webhook request latency.",
        r#"apiserver_conversion_webhook_duration_seconds_bucket{le="0.005",failure_type="",result="success"} 1"#,
        r#"apiserver_conversion_webhook_duration_seconds_bucket{le="60.0",failure_type="",result="success"} 1"#,
        r#"apiserver_conversion_webhook_duration_seconds_bucket{le="0.02",failure_type="conversion_webhook_partial_response_failure",result="failure"} 0"#,
        r#"apiserver_conversion_webhook_duration_seconds_bucket{le="0.05",failure_type="conversion_webhook_partial_response_failure",result="failure"} 1"#,
        "# HELP apiserver_crd_conversion_webhook_duration_seconds [ALPHA] CRD webhook conversion duration in seconds.",
        r#"apiserver_crd_conversion_webhook_duration_seconds_bucket{le="0.001",crd_name="crontabs.stable.example.com",from_version="v1",succeeded="true",to_version="v2"} 0"#,
        r#"apiserver_crd_conversion_webhook_duration_seconds_bucket{le="0.002",crd_name="crontabs.stable.example.com",from_version="v1",succeeded="true",to_version="v2"} 1"#,
        r#"apiserver_crd_conversion_webhook_duration_seconds_bucket{le="16.384",crd_name="crontabs.stable.example.com",from_version="v1",succeeded="true",to_version="v2"} 1"#,
    ] {
        assert!(
            text.lines().any(|l| l == line),
            "missing {line}\nin\n{text}"
        );
    }
    assert!(
        !text.contains(r#"from_version="v2""#),
        "same version observed:\n{text}"
    );
}
