//! Broken converters over the real server (issue 32, hack/conversion-oracle FINDINGS §1):
//! every read and write at v2 whose conversion fails answers kube's plain 500 Status with
//! kube's text, byte for byte, and changes nothing in etcd.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;
#[path = "common/conversion.rs"]
mod conversion;
#[path = "common/etcd.rs"]
mod etcd;
#[path = "common/stub_converter.rs"]
mod stub_converter;
#[path = "common/webhook.rs"]
mod webhook;

use common::item_names;
use conversion::{Fixture, PARTIAL, Served, TABLE, V1, V2, failure};
use serde_json::{Value, json};

/// One definition per broken converter.
const BROKEN: [Served; 7] = [
    served("failwidgets", "FailWidget", "/convert-fail"),
    served("garbagewidgets", "GarbageWidget", "/convert-garbage"),
    served("countwidgets", "CountWidget", "/convert-wrong-count"),
    served("renamewidgets", "RenameWidget", "/convert-rename"),
    served("uidwidgets", "UidWidget", "/convert-wrong-uid"),
    served("kindwidgets", "KindWidget", "/convert-wrong-kind"),
    served("labelwidgets", "LabelWidget", "/convert-bad-label"),
];

const fn served(plural: &'static str, kind: &'static str, path: &'static str) -> Served {
    Served { plural, kind, path }
}

/// kube's text for a conversion of `name` from `gv` by `served`'s converter (the review's
/// `uid` for the uid check).
fn text(served: &Served, gv: &str, name: &str, uid: &str) -> String {
    let what = format!("conversion webhook for {gv}, Kind={}", served.kind);
    match served.path {
        "/convert-fail" => format!("{what} failed: the test converter refuses"),
        "/convert-garbage" => format!(
            "{what} failed: couldn't get version/kind; json parse error: json: cannot unmarshal string into Go value of type struct {{ APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; Kind string \"json:\\\"kind,omitempty\\\"\" }}"
        ),
        "/convert-wrong-count" => format!("{what} returned 0 objects, expected 1"),
        "/convert-rename" => {
            format!(
                "{what} returned invalid object: must have the same name: {name} != {name}-renamed"
            )
        }
        "/convert-wrong-uid" => {
            format!("{what} failed: expected response.uid=\"{uid}\", got \"not-{uid}\"")
        }
        "/convert-wrong-kind" => format!(
            "{what} returned invalid object at index 0: invalid kind (expected {}, received WrongKind)",
            served.kind
        ),
        "/convert-bad-label" => format!(
            "{what} returned invalid metadata: metadata.labels: Invalid value: \"not a label value!\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
        ),
        other => panic!("no text for {other}"),
    }
}

/// Sends `req`; it must answer kube's 500 for a conversion of `name` from `gv`.
async fn assert_fails(
    f: &Fixture,
    s: &Served,
    what: &str,
    req: reqwest::RequestBuilder,
    gv: &str,
    name: &str,
) {
    let resp = req.send().await.unwrap();
    let code = resp.status().as_u16();
    let body: Value = resp.json().await.unwrap_or(Value::Null);
    let reviews = f.converter.take_reviews();
    let last = reviews
        .last()
        .unwrap_or_else(|| panic!("{} {what}: no review; {body}", s.path));
    assert_eq!(last.path, s.path);
    let uid = last.request()["uid"].as_str().unwrap_or_default();
    assert_eq!(
        (code, body),
        (500, failure(&text(s, gv, name, uid))),
        "{} {what}",
        s.path
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn broken_converter_every_verb_answers_kube_500_and_changes_nothing() {
    let f = Fixture::start(&BROKEN).await;
    let c = f.server.client();
    for s in &BROKEN {
        f.create_v1(s.plural, s.kind, "a", json!({"color": "red"}))
            .await;
        let before = f.stored(s.plural, "a").await.unwrap();
        assert_eq!(
            f.converter.review_count(),
            0,
            "a write at v1 converts nothing"
        );
        let a = f.url(s.plural, "v2", Some("a"));

        assert_fails(&f, s, "GET", c.get(&a), V1, "a").await;
        assert_fails(&f, s, "LIST", c.get(f.url(s.plural, "v2", None)), V1, "a").await;
        assert_fails(&f, s, "Table", c.get(&a).header("accept", TABLE), V1, "a").await;
        assert_fails(
            &f,
            s,
            "Partial",
            c.get(&a).header("accept", PARTIAL),
            V1,
            "a",
        )
        .await;

        let b = conversion::object(V2, s.kind, "b", json!({"color": "red", "shape": "star"}));
        let create = c.post(f.url(s.plural, "v2", None)).json(&b);
        assert_fails(&f, s, "create", create, V2, "b").await;
        assert!(
            f.stored(s.plural, "b").await.is_none(),
            "{}: create stored b",
            s.path
        );

        let patch = c
            .patch(&a)
            .header("content-type", "application/merge-patch+json")
            .body(r#"{"spec":{"color":"blue"}}"#);
        assert_fails(&f, s, "patch", patch, V1, "a").await;
        assert_fails(&f, s, "delete", c.delete(&a), V1, "a").await;

        assert_eq!(
            f.stored(s.plural, "a").await.as_ref(),
            Some(&before),
            "{}",
            s.path
        );
        let resp = c.get(f.url(s.plural, "v1", None)).send().await.unwrap();
        let list: Value = resp.json().await.unwrap();
        assert_eq!(item_names(&list), ["a"], "{}", s.path);
        assert_eq!(
            list["items"][0]["spec"],
            json!({"color": "red"}),
            "{}",
            s.path
        );
    }
}
