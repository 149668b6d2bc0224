use std::net::IpAddr;

use serde_json::json;

use super::*;

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

/// X-Forwarded-For, X-Real-Ip, the peer, and the source IPs wanted.
type Case = (
    Option<&'static str>,
    Option<&'static str>,
    &'static str,
    &'static [&'static str],
);

#[test]
fn source_ips_follow_kube_trust_order() {
    #[rustfmt::skip]
    let cases: [Case; 7] = [
        (None, None, "127.0.0.1", &["127.0.0.1"]),
        (Some("1.2.3.4, 5.6.7.8"), None, "127.0.0.1", &["1.2.3.4", "5.6.7.8", "127.0.0.1"]),
        (Some("1.2.3.4,junk, 5.6.7.8"), None, "5.6.7.8", &["1.2.3.4", "5.6.7.8"]),
        (None, Some("9.9.9.9"), "127.0.0.1", &["9.9.9.9", "127.0.0.1"]),
        (Some("9.9.9.9"), Some("9.9.9.9"), "127.0.0.1", &["9.9.9.9", "127.0.0.1"]),
        (Some("::1"), None, "::ffff:127.0.0.1", &["::1", "127.0.0.1"]),
        (Some(""), Some("bad"), "10.0.0.1", &["10.0.0.1"]),
    ];
    for (forwarded, real, peer, want) in cases {
        assert_eq!(
            source_ips(forwarded, real, ip(peer)),
            want,
            "{forwarded:?} {real:?} {peer}"
        );
    }
}

#[test]
fn user_agent_truncated_past_1024_bytes() {
    assert_eq!(user_agent("kubectl/v1"), "kubectl/v1");
    let long = "a".repeat(1030);
    let got = user_agent(&long);
    assert_eq!(got, format!("{}...TRUNCATED", "a".repeat(1024)));
}

#[test]
fn raw_json_compacts_json_and_converts_yaml() {
    #[rustfmt::skip]
    let cases: [(&[u8], Option<&str>); 5] = [
        (b"{ \"z\" : 1 ,\n \"a\":\"s p\\\"\" }", Some(r#"{"z":1,"a":"s p\""}"#)),
        (b"[ {\"op\": \"add\"} ]", Some(r#"[{"op":"add"}]"#)),
        (b"apiVersion: g/v1\nkind: K\n", Some(r#"{"apiVersion":"g/v1","kind":"K"}"#)),
        (b"{", None),
        (b"\xff", None),
    ];
    for (bytes, want) in cases {
        let got = raw_json(bytes).map(|r| r.get().to_owned());
        assert_eq!(got.as_deref(), want, "{:?}", String::from_utf8_lossy(bytes));
    }
}

#[test]
fn status_of_copies_status_fields_only_for_status_objects() {
    let status = json!({"kind": "Status", "apiVersion": "v1", "metadata": {"resourceVersion": "1"},
        "status": "Success", "message": "", "code": 200});
    assert_eq!(
        status_of(&status),
        Some(json!({"metadata": {}, "status": "Success", "code": 200}))
    );
    assert_eq!(
        status_of(&json!({"kind": "CronTab", "apiVersion": "v1"})),
        None
    );
}

#[test]
fn complete_reference_fills_only_empty_slots() {
    let mut r = ObjectReference {
        name: "path-name".into(),
        ..ObjectReference::default()
    };
    let object = json!({"metadata": {"name": "body", "namespace": "ns", "uid": "u", "resourceVersion": "5"}});
    complete_reference(&mut r, &object);
    assert_eq!(
        (
            r.name.as_str(),
            r.namespace.as_str(),
            r.uid.as_str(),
            r.resource_version.as_str()
        ),
        ("path-name", "ns", "u", "5")
    );
}

#[test]
fn encode_strips_managed_fields_of_table_rows() {
    let table = json!({"kind": "Table", "rows": [{"object": {"metadata": {"name": "a", "managedFields": []}}}]});
    let got = encode(&table, true).unwrap();
    assert_eq!(
        got.get(),
        r#"{"kind":"Table","rows":[{"object":{"metadata":{"name":"a"}}}]}"#
    );
    let kept = encode(&table, false).unwrap();
    assert!(kept.get().contains("managedFields"));
}
