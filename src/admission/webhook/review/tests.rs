#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::json;

use super::*;
use crate::request::user::UserInfo;

fn user() -> UserInfo {
    let mut user = UserInfo::new("alice".into(), vec!["dev".into(), "<ops>".into()]);
    user.uid = "u-1".into();
    user.extra.insert("scopes".into(), vec!["a".into()]);
    user
}

#[test]
fn pick_version_first_known_else_kube_error() {
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    let cases: &[(&[&str], Result<ReviewVersion, &str>)] = &[
        (&["v1", "v1beta1"], Ok(ReviewVersion::V1)),
        (&["v2", "v1beta1", "v1"], Ok(ReviewVersion::V1beta1)),
        (
            &["v3"],
            Err("webhook does not accept known AdmissionReview versions (v1, v1beta1)"),
        ),
        (
            &[],
            Err("webhook does not accept known AdmissionReview versions (v1, v1beta1)"),
        ),
    ];
    for (accepted, want) in cases {
        assert_eq!(
            pick_version(&s(accepted)),
            want.map_err(str::to_string),
            "{accepted:?}"
        );
    }
}

#[test]
fn encode_every_request_field_in_kube_order() {
    let user = user();
    let object = json!({"kind": "Widget", "metadata": {"name": "w"}, "spec": {"a": "<b>"}});
    let options = json!({"kind": "CreateOptions", "apiVersion": "meta.k8s.io/v1"});
    let request = Request {
        uid: "0-1",
        kind: Gvk {
            group: "example.com",
            version: "v1",
            kind: "Widget",
        },
        resource: Gvr {
            group: "example.com",
            version: "v1",
            resource: "widgets",
        },
        sub_resource: "",
        request_kind: Gvk {
            group: "example.com",
            version: "v2",
            kind: "Widget",
        },
        request_resource: Gvr {
            group: "example.com",
            version: "v2",
            resource: "widgets",
        },
        request_sub_resource: "status",
        name: "w",
        namespace: "ns",
        operation: "CREATE",
        user: &user,
        object: Some(&object),
        old_object: None,
        dry_run: true,
        options: Some(&options),
    };
    let body = String::from_utf8(encode(ReviewVersion::V1, &request)).unwrap();
    let want = concat!(
        r#"{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":{"uid":"0-1","#,
        r#""kind":{"group":"example.com","version":"v1","kind":"Widget"},"#,
        r#""resource":{"group":"example.com","version":"v1","resource":"widgets"},"#,
        r#""requestKind":{"group":"example.com","version":"v2","kind":"Widget"},"#,
        r#""requestResource":{"group":"example.com","version":"v2","resource":"widgets"},"#,
        r#""requestSubResource":"status","name":"w","namespace":"ns","operation":"CREATE","#,
        r#""userInfo":{"username":"alice","uid":"u-1","groups":["dev","\u003cops\u003e"],"extra":{"scopes":["a"]}},"#,
        r#""object":{"kind":"Widget","metadata":{"name":"w"},"spec":{"a":"\u003cb\u003e"}},"#,
        r#""oldObject":null,"dryRun":true,"#,
        r#""options":{"apiVersion":"meta.k8s.io/v1","kind":"CreateOptions"}}}"#
    );
    assert_eq!(body, want);
    let beta = String::from_utf8(encode(ReviewVersion::V1beta1, &request)).unwrap();
    assert!(
        beta.starts_with(r#"{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1beta1","#)
    );
    assert_eq!(beta.replace("v1beta1", "v1"), body.replace("v1beta1", "v1"));
}

#[test]
fn encode_empty_user_and_absent_objects_omitted_or_null() {
    let user = UserInfo::new(String::new(), vec![]);
    let request = Request {
        uid: "u",
        kind: Gvk::default(),
        resource: Gvr::default(),
        sub_resource: "",
        request_kind: Gvk::default(),
        request_resource: Gvr::default(),
        request_sub_resource: "",
        name: "",
        namespace: "",
        operation: "DELETE",
        user: &user,
        object: None,
        old_object: None,
        dry_run: false,
        options: None,
    };
    let value: serde_json::Value =
        serde_json::from_slice(&encode(ReviewVersion::V1, &request)).unwrap();
    let r = &value["request"];
    assert_eq!(r["userInfo"], json!({}));
    assert!(
        r.get("name").is_none() && r.get("namespace").is_none() && r.get("subResource").is_none()
    );
    assert_eq!(
        (&r["object"], &r["oldObject"], &r["options"], &r["dryRun"]),
        (&json!(null), &json!(null), &json!(null), &json!(false))
    );
}

const PATCH: &str = "W3sib3AiOiJhZGQiLCJwYXRoIjoiL2EiLCJ2YWx1ZSI6MX1d"; // [{"op":"add","path":"/a","value":1}]

fn v1(response: serde_json::Value) -> Vec<u8> {
    serde_json::to_vec(&json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": response})).unwrap()
}

#[test]
fn decode_valid_answers_read_every_field() {
    let body = v1(json!({
        "uid": "x", "allowed": false,
        "status": {"code": 403, "reason": "Forbidden", "message": "no", "details": {"name": "w"}},
        "warnings": ["w1", "w2"], "auditAnnotations": {"k": "v"}
    }));
    let got = decode(ReviewVersion::V1, Phase::Validating, "x", &body).unwrap();
    assert!(!got.allowed);
    let result = got.result.unwrap();
    assert_eq!(
        (result.code, result.reason.as_str(), result.message.as_str()),
        (403, "Forbidden", "no")
    );
    assert_eq!(result.details, Some(json!({"name": "w"})));
    assert_eq!(got.warnings, vec!["w1", "w2"]);
    assert_eq!(
        got.audit_annotations.get("k").map(String::as_str),
        Some("v")
    );

    let body = v1(json!({"uid": "x", "allowed": true, "patch": PATCH, "patchType": "JSONPatch"}));
    let got = decode(ReviewVersion::V1, Phase::Mutating, "x", &body).unwrap();
    assert_eq!(
        got.patch.as_deref(),
        Some(br#"[{"op":"add","path":"/a","value":1}]"#.as_slice())
    );
    assert_eq!(got.patch_type, "JSONPatch");

    // v1beta1: no uid or kind check; a patch is pinned to JSONPatch.
    let body =
        serde_json::to_vec(&json!({"response": {"uid": "other", "allowed": true, "patch": PATCH}}))
            .unwrap();
    let got = decode(ReviewVersion::V1beta1, Phase::Mutating, "x", &body).unwrap();
    assert!(got.allowed);
    assert_eq!(got.patch_type, "JSONPatch");
}

#[test]
fn decode_bad_answers_kube_texts() {
    use InvalidResponse::{Undecodable as D, Unverified as U};
    let ok = |r: serde_json::Value| v1(r);
    let cases: Vec<(Phase, Vec<u8>, InvalidResponse)> = vec![
        (Phase::Validating, ok(json!({"uid": "y", "allowed": true})), U(r#"expected response.uid="x", got "y""#.into())),
        (Phase::Validating, br#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}"#.to_vec(), U("webhook response was absent".into())),
        (Phase::Validating, br#"{"response":{"uid":"x","allowed":true}}"#.to_vec(),
            U("expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got /, Kind=".into())),
        (Phase::Validating, ok(json!({"uid": "x", "allowed": true, "patch": PATCH})), U("validating webhook may not return response.patch".into())),
        (Phase::Validating, ok(json!({"uid": "x", "allowed": true, "patchType": "JSONPatch"})), U("validating webhook may not return response.patchType".into())),
        (Phase::Mutating, ok(json!({"uid": "x", "allowed": true, "patch": PATCH})), U("webhook returned response.patch but not response.patchType".into())),
        (Phase::Mutating, ok(json!({"uid": "x", "allowed": true, "patchType": "JSONPatch"})), U("webhook returned response.patchType but not response.patch".into())),
        (Phase::Mutating, ok(json!({"uid": "x", "allowed": true, "patch": PATCH, "patchType": ""})), U(r#"webhook returned invalid response.patchType of """#.into())),
        (Phase::Mutating, ok(json!({"uid": "x", "allowed": true, "patch": "%%%", "patchType": "JSONPatch"})), D("illegal base64 data at input byte 0".into())),
        (Phase::Validating, ok(json!({"uid": "x", "allowed": "yes"})),
            D("json: cannot unmarshal string into Go struct field AdmissionResponse.response.allowed of type bool".into())),
        (Phase::Validating, b"{not json".to_vec(),
            D("couldn't get version/kind; json parse error: invalid character 'n' looking for beginning of object key string".into())),
        (Phase::Validating, b"this is garbage".to_vec(),
            D(r#"couldn't get version/kind; json parse error: json: cannot unmarshal string into Go value of type struct { APIVersion string "json:\"apiVersion,omitempty\""; Kind string "json:\"kind,omitempty\"" }"#.into())),
        (Phase::Validating, br#"{"apiVersion":"v1","kind":"Pod"}"#.to_vec(),
            D(r#"no kind "Pod" is registered for version "v1" in scheme "pkg/util/webhook/client.go:74""#.into())),
        (Phase::Validating, br#"{"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","response":{"uid":"x","allowed":true}}"#.to_vec(),
            D("converting (v1beta1.AdmissionReview) to (v1.AdmissionReview): unknown conversion".into())),
        (Phase::Validating, br#"{"apiVersion":"v1","kind":"Status","status":"Failure"}"#.to_vec(),
            D("converting (v1.Status) to (v1.AdmissionReview): unknown conversion".into())),
    ];
    for (phase, body, want) in cases {
        let got = decode(ReviewVersion::V1, phase, "x", &body);
        assert_eq!(got, Err(want), "{}", String::from_utf8_lossy(&body));
    }
}

#[test]
fn invalid_response_displays_kube_reason_prefix() {
    assert_eq!(
        InvalidResponse::Unverified("webhook response was absent".into()).to_string(),
        "received invalid webhook response: webhook response was absent"
    );
    assert_eq!(
        InvalidResponse::Undecodable("x".into()).to_string(),
        "failed to call webhook: x"
    );
}
