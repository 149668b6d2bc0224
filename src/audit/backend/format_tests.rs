use super::*;
use crate::audit::Level;
use crate::audit::backend::testing::event;
use crate::audit::event::UserInfo;

#[test]
fn legacy_line_of_events_reads_as_kube_event_string() {
    let plain = event("a", Level::Metadata);
    let mut anonymous = event("b", Level::Metadata);
    anonymous.user = UserInfo::default();
    anonymous.response_status = None;
    anonymous.source_ips.clear();
    anonymous.object_ref = None;
    anonymous.request_received_timestamp = "2026-12-07T13:47:16.000000Z".into();
    let mut impersonating = event("c", Level::Metadata);
    impersonating.impersonated_user = Some(UserInfo {
        username: "bob".into(),
        groups: vec!["ops".into()],
        ..UserInfo::default()
    });
    impersonating.user_agent = "tab\there".into();
    #[rustfmt::skip]
    let cases = [
        (plain, r#"2026-12-07T13:47:16.12Z AUDIT: id="id-a" stage="ResponseComplete" ip="10.0.0.1" method="create" user="alice" groups="\"system:authenticated\",\"dev\"" as="<self>" asgroups="<lookup>" user-agent="kubectl/v1.36.0" namespace="default" uri="/apis/stable.example.com/v1/namespaces/default/crontabs" response="201""#),
        (anonymous, r#"2026-12-07T13:47:16Z AUDIT: id="id-b" stage="ResponseComplete" ip="<unknown>" method="create" user="<none>" groups="<none>" as="<self>" asgroups="<lookup>" user-agent="kubectl/v1.36.0" namespace="<none>" uri="/apis/stable.example.com/v1/namespaces/default/crontabs" response="<deferred>""#),
        (impersonating, r#"2026-12-07T13:47:16.12Z AUDIT: id="id-c" stage="ResponseComplete" ip="10.0.0.1" method="create" user="alice" groups="\"system:authenticated\",\"dev\"" as="bob" asgroups="\"ops\"" user-agent="tab\there" namespace="default" uri="/apis/stable.example.com/v1/namespaces/default/crontabs" response="201""#),
    ];
    for (event, want) in cases {
        assert_eq!(legacy_line(&event), want);
    }
}

#[test]
fn json_line_of_event_one_line_sized_exactly() {
    let event = event("a", Level::RequestResponse);
    let line = json_line(&event).expect("encodes");
    assert_eq!(line.last(), Some(&b'\n'));
    assert_eq!(line.iter().filter(|b| **b == b'\n').count(), 1);
    assert_eq!(json_size(&event).expect("sizes"), line.len() as u64);
    let text = std::str::from_utf8(&line).expect("utf-8");
    assert!(
        text.starts_with(r#"{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"RequestResponse","auditID":"id-a","stage":"ResponseComplete""#),
        "{text}"
    );
    assert!(
        text.contains(r#""responseObject":{"kind":"CronTab","metadata":{"name":"a"}}"#),
        "{text}"
    );
}

#[test]
fn rfc3339_nano_of_micro_times_trims_zeros() {
    let cases = [
        ("2026-12-07T13:47:16.123456Z", "2026-12-07T13:47:16.123456Z"),
        ("2026-12-07T13:47:16.100000Z", "2026-12-07T13:47:16.1Z"),
        ("2026-12-07T13:47:16.000000Z", "2026-12-07T13:47:16Z"),
        ("2026-12-07T13:47:16Z", "2026-12-07T13:47:16Z"),
        (
            "2026-12-07T13:47:16.500000+01:00",
            "2026-12-07T13:47:16.5+01:00",
        ),
    ];
    for (micro, want) in cases {
        assert_eq!(rfc3339_nano(micro), want, "{micro}");
    }
}

#[test]
fn write_list_item_of_event_drops_type_meta() {
    let event = event("a", Level::Metadata);
    let mut out = b"[".to_vec();
    write_list_item(&mut out, &event).expect("encodes");
    let text = String::from_utf8(out).expect("utf-8");
    assert!(
        text.starts_with(r#"[{"level":"Metadata","auditID":"id-a","stage":"ResponseComplete""#),
        "{text}"
    );
    let line = json_line(&event).expect("encodes");
    // The same event otherwise, byte for byte.
    let whole = std::str::from_utf8(&line).expect("utf-8").trim_end();
    let rest = whole.trim_start_matches(r#"{"kind":"Event","apiVersion":"audit.k8s.io/v1","#);
    assert_eq!(&text[2..], rest);
}
