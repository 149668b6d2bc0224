//! The event's two log formats against lines built by kube's code paths (Go's
//! `json.Encoder` over an `audit.k8s.io/v1` Event, `EventString`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use std::collections::BTreeMap;

use serde_json::json;
use serde_json::value::RawValue;

use super::*;

fn raw(text: &str) -> Option<Box<RawValue>> {
    Some(RawValue::from_string(text.to_owned()).unwrap())
}

fn minimal() -> Event {
    Event {
        kind: "Event".into(),
        api_version: "audit.k8s.io/v1".into(),
        level: Level::Metadata,
        audit_id: "5f1a".into(),
        stage: Stage::RequestReceived,
        request_uri: "/healthz".into(),
        verb: "get".into(),
        user: UserInfo::default(),
        impersonated_user: None,
        source_ips: Vec::new(),
        user_agent: String::new(),
        object_ref: None,
        response_status: None,
        request_object: None,
        response_object: None,
        request_received_timestamp: "2026-12-07T14:00:00.123456Z".into(),
        stage_timestamp: "2026-12-07T14:00:00.123456Z".into(),
        annotations: BTreeMap::new(),
    }
}

fn full() -> Event {
    let mut extra = BTreeMap::new();
    extra.insert("scopes".to_owned(), vec!["a".to_owned()]);
    Event {
        level: Level::RequestResponse,
        stage: Stage::ResponseComplete,
        request_uri: "/apis/stable.example.com/v1/namespaces/ns1/foos?fieldManager=a&x=<y>".into(),
        verb: "create".into(),
        user: UserInfo {
            username: "alice".into(),
            uid: "u-1".into(),
            groups: vec!["devs".into(), "system:authenticated".into()],
            extra,
        },
        impersonated_user: Some(UserInfo {
            username: "bob".into(),
            groups: vec!["g1".into()],
            ..UserInfo::default()
        }),
        source_ips: vec!["10.0.0.1".into(), "127.0.0.1".into()],
        user_agent: "curl \"x\"/8".into(),
        object_ref: Some(ObjectReference {
            resource: "foos".into(),
            namespace: "ns1".into(),
            name: "a".into(),
            api_group: "stable.example.com".into(),
            api_version: "v1".into(),
            ..ObjectReference::default()
        }),
        response_status: Some(json!({"code": 201})),
        request_object: raw(
            "{\"apiVersion\": \"stable.example.com/v1\",\n  \"kind\" : \"Foo\", \"spec\": {\"h\": \"<b> & </b> \\\" \u{2028}\"}}",
        ),
        response_object: raw(r#"{"kind":"Foo","spec":{"a b":"x\\"}}"#),
        stage_timestamp: "2026-12-07T14:00:00.200000Z".into(),
        annotations: BTreeMap::from([
            ("authorization.k8s.io/reason".to_owned(), String::new()),
            (
                "authorization.k8s.io/decision".to_owned(),
                "allow".to_owned(),
            ),
        ]),
        ..minimal()
    }
}

fn json_text(event: &Event) -> String {
    String::from_utf8(json::line(event)).unwrap()
}

#[test]
fn json_line_minimal_event_as_go_encoder() {
    assert_eq!(
        json_text(&minimal()),
        concat!(
            r#"{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"5f1a","stage":"RequestReceived","requestURI":"/healthz","verb":"get","user":{},"#,
            r#""requestReceivedTimestamp":"2026-12-07T14:00:00.123456Z","stageTimestamp":"2026-12-07T14:00:00.123456Z"}"#,
            "\n"
        )
    );
}

#[test]
fn json_line_full_event_go_order_escapes_and_compacted_objects() {
    let want = concat!(
        r#"{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"RequestResponse","auditID":"5f1a","stage":"ResponseComplete","#,
        r#""requestURI":"/apis/stable.example.com/v1/namespaces/ns1/foos?fieldManager=a\u0026x=\u003cy\u003e","verb":"create","#,
        r#""user":{"username":"alice","uid":"u-1","groups":["devs","system:authenticated"],"extra":{"scopes":["a"]}},"#,
        r#""impersonatedUser":{"username":"bob","groups":["g1"]},"sourceIPs":["10.0.0.1","127.0.0.1"],"userAgent":"curl \"x\"/8","#,
        r#""objectRef":{"resource":"foos","namespace":"ns1","name":"a","apiGroup":"stable.example.com","apiVersion":"v1"},"#,
        r#""responseStatus":{"metadata":{},"code":201},"#,
        r#""requestObject":{"apiVersion":"stable.example.com/v1","kind":"Foo","spec":{"h":"\u003cb\u003e \u0026 \u003c/b\u003e \" \u2028"}},"#,
        r#""responseObject":{"kind":"Foo","spec":{"a b":"x\\"}},"#,
        r#""requestReceivedTimestamp":"2026-12-07T14:00:00.123456Z","stageTimestamp":"2026-12-07T14:00:00.200000Z","#,
        r#""annotations":{"authorization.k8s.io/decision":"allow","authorization.k8s.io/reason":""}}"#,
        "\n"
    );
    assert_eq!(json_text(&full()), want);
}

#[test]
fn json_line_response_status_in_metav1_status_order() {
    let cases = [
        (
            "failure",
            json!({"code": 404, "reason": "NotFound", "message": "foos \"a\" not found", "status": "Failure", "metadata": {}}),
            r#"{"metadata":{},"status":"Failure","message":"foos \"a\" not found","reason":"NotFound","code":404}"#,
        ),
        (
            "empty_fields_omitted",
            json!({"code": 200, "status": "", "message": "", "reason": null}),
            r#"{"metadata":{},"code":200}"#,
        ),
        (
            "details_and_causes",
            json!({"code": 422, "details": {"causes": [{"field": "spec.x", "message": "bad", "reason": "FieldValueInvalid"}], "kind": "Foo", "name": "a", "group": "g"}, "reason": "Invalid"}),
            r#"{"metadata":{},"reason":"Invalid","details":{"name":"a","group":"g","kind":"Foo","causes":[{"reason":"FieldValueInvalid","message":"bad","field":"spec.x"}]},"code":422}"#,
        ),
        (
            "list_meta",
            json!({"metadata": {"resourceVersion": "5", "continue": "c"}, "code": 410}),
            r#"{"metadata":{"resourceVersion":"5","continue":"c"},"code":410}"#,
        ),
    ];
    for (name, status, want) in cases {
        let event = Event {
            response_status: Some(status),
            ..minimal()
        };
        let text = json_text(&event);
        let got = text
            .split_once(r#""responseStatus":"#)
            .and_then(|(_, rest)| rest.split_once(r#","requestReceivedTimestamp""#))
            .map(|(status, _)| status)
            .unwrap_or_else(|| panic!("{name}: {text}"));
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn json_line_reads_back_as_the_event() {
    let text = json_text(&full());
    let back: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(back["requestObject"]["spec"]["h"], "<b> & </b> \" \u{2028}");
    assert_eq!(back["responseStatus"], json!({"metadata": {}, "code": 201}));
    assert_eq!(back["user"]["extra"]["scopes"], json!(["a"]));
}

#[test]
fn micro_time_six_digits_utc_truncated() {
    let cases = [
        ("2026-12-07T14:00:00Z", "2026-12-07T14:00:00.000000Z"),
        (
            "2026-12-07T14:00:00.1234567Z",
            "2026-12-07T14:00:00.123456Z",
        ),
        ("2026-12-07T16:00:00.5+02:00", "2026-12-07T14:00:00.500000Z"),
    ];
    for (input, want) in cases {
        let t: jiff::Timestamp = input.parse().unwrap();
        assert_eq!(time::micro_time(t), want, "{input}");
    }
}

#[test]
fn time_texts_micro_and_rfc3339_nano_from_kept_stamp() {
    #[rustfmt::skip]
    let cases = [
        // kept text, json (MicroTime), legacy (RFC3339Nano)
        ("2026-12-07T13:49:43.090477123Z", "2026-12-07T13:49:43.090477Z", "2026-12-07T13:49:43.090477123Z"),
        ("2026-12-07T13:49:43.090477000Z", "2026-12-07T13:49:43.090477Z", "2026-12-07T13:49:43.090477Z"),
        ("2026-12-07T13:49:43.090477Z", "2026-12-07T13:49:43.090477Z", "2026-12-07T13:49:43.090477Z"),
        ("2026-12-07T13:49:43.000000000Z", "2026-12-07T13:49:43.000000Z", "2026-12-07T13:49:43Z"),
        ("2026-12-07T13:49:43Z", "2026-12-07T13:49:43.000000Z", "2026-12-07T13:49:43Z"),
        ("2026-12-07T13:49:43.5Z", "2026-12-07T13:49:43.500000Z", "2026-12-07T13:49:43.5Z"),
        ("2026-12-07T15:49:43.5+02:00", "2026-12-07T13:49:43.500000Z", "2026-12-07T15:49:43.5+02:00"),
        ("not a time", "not a time", "not a time"),
    ];
    for (kept, micro, nano) in cases {
        assert_eq!(time::micro(kept), micro, "{kept}");
        assert_eq!(time::rfc3339_nano(kept), nano, "{kept}");
    }
    let t: jiff::Timestamp = "2026-12-07T13:49:43.0904771Z".parse().unwrap();
    assert_eq!(time::stamp(t), "2026-12-07T13:49:43.090477100Z");
}

#[test]
fn json_line_kept_nanoseconds_written_as_micro_time() {
    let event = Event {
        request_received_timestamp: "2026-12-07T14:00:00.123456789Z".into(),
        stage_timestamp: "2026-12-07T14:00:01Z".into(),
        ..minimal()
    };
    let text = json_text(&event);
    assert!(
        text.ends_with(r#""requestReceivedTimestamp":"2026-12-07T14:00:00.123456Z","stageTimestamp":"2026-12-07T14:00:01.000000Z"}
"#),
        "{text}"
    );
    assert!(legacy::event_string(&event).starts_with("2026-12-07T14:00:00.123456789Z AUDIT: "));
}

#[test]
fn json_line_list_item_without_kind_and_api_version() {
    let event = Event {
        kind: String::new(),
        api_version: String::new(),
        ..minimal()
    };
    assert!(json_text(&event).starts_with(r#"{"level":"Metadata","auditID":"5f1a","#));
}

/// Event lines the reference wrote (k8s.io/apiextensions-apiserver 0.36.4, recorded by
/// hack/audit-oracle; one of each shape: list, watch start, JSON patch, Status details,
/// 401/403/404/409/422/500, non-resource, impersonation, X-Forwarded-For, admission patch
/// and policy annotations), read and written again.
#[test]
fn json_line_reference_events_byte_for_byte() {
    let lines: Vec<&str> = include_str!("reference.jsonl").lines().collect();
    assert_eq!(lines.len(), 15);
    for line in lines {
        let event: Event = serde_json::from_str(line).unwrap();
        assert_eq!(json_text(&event), format!("{line}\n"));
    }
}

#[test]
fn legacy_event_string_reference_lines() {
    let user = UserInfo {
        username: "admin".into(),
        groups: vec!["system:masters".into(), "system:authenticated".into()],
        ..UserInfo::default()
    };
    let received = Event {
        audit_id: "18e6277e-d9fe-46b7-bbbe-47079b6836f2".into(),
        request_uri: "/apis/stable.example.com/v1/namespaces/default/crontabs/one".into(),
        user,
        source_ips: vec!["127.0.0.1".into()],
        user_agent: "audit-compare/v1.0.0 (linux/amd64) kubernetes/0000000".into(),
        object_ref: Some(ObjectReference {
            resource: "crontabs".into(),
            namespace: "default".into(),
            name: "one".into(),
            ..ObjectReference::default()
        }),
        request_received_timestamp: "2026-12-07T13:50:17.784372486Z".into(),
        ..minimal()
    };
    let complete = Event {
        stage: Stage::ResponseComplete,
        impersonated_user: Some(UserInfo {
            username: "alice".into(),
            groups: vec!["devs".into(), "system:authenticated".into()],
            ..UserInfo::default()
        }),
        response_status: Some(json!({"metadata": {}, "code": 200})),
        ..received.clone()
    };
    assert_eq!(
        legacy::event_string(&received),
        r#"2026-12-07T13:50:17.784372486Z AUDIT: id="18e6277e-d9fe-46b7-bbbe-47079b6836f2" stage="RequestReceived" ip="127.0.0.1" method="get" user="admin" groups="\"system:masters\",\"system:authenticated\"" as="<self>" asgroups="<lookup>" user-agent="audit-compare/v1.0.0 (linux/amd64) kubernetes/0000000" namespace="default" uri="/apis/stable.example.com/v1/namespaces/default/crontabs/one" response="<deferred>""#
    );
    assert_eq!(
        legacy::event_string(&complete),
        r#"2026-12-07T13:50:17.784372486Z AUDIT: id="18e6277e-d9fe-46b7-bbbe-47079b6836f2" stage="ResponseComplete" ip="127.0.0.1" method="get" user="admin" groups="\"system:masters\",\"system:authenticated\"" as="alice" asgroups="\"devs\",\"system:authenticated\"" user-agent="audit-compare/v1.0.0 (linux/amd64) kubernetes/0000000" namespace="default" uri="/apis/stable.example.com/v1/namespaces/default/crontabs/one" response="200""#
    );
}
