//! Webhook conversion on watches over the real server (issue 32): initial and live events
//! at v2 of writes made at v1 (and at v1 of writes made at v2), one review per event
//! whatever the number of watchers (with the success metric moving alike), and a
//! converter that starts failing under a watch: an ERROR event, then the end.

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

use common::{json_of, resource_version};
use conversion::{Fixture, Served, V1, V2, Watch, failure, send};
use serde_json::{Value, json};
use stub_converter::ANNOTATION;

const WIDGETS: Served = Served {
    plural: "widgets",
    kind: "Widget",
    path: "/convert",
};

/// The resourceVersion of the collection now (read at v1: no conversion).
async fn now(f: &Fixture) -> String {
    resource_version(&json_of(f.server.client().get(f.url("widgets", "v1", None))).await)
}

/// The next event, which must be `event_type` of `name`: its object.
async fn expect(watch: &mut Watch, event_type: &str, name: &str) -> Value {
    let (t, object) = watch.event().await;
    assert_eq!(
        (t.as_str(), &object["metadata"]["name"]),
        (event_type, &json!(name)),
        "{object}"
    );
    object
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watch_v2_of_v1_writes_initial_and_live_events_in_v2() {
    let f = Fixture::start(&[WIDGETS]).await;
    f.create_v1("widgets", "Widget", "a", json!({"color": "red"}))
        .await;
    let mut v2 = f.watch("widgets", "v2", "").await;
    let mut from_zero = f.watch("widgets", "v2", "resourceVersion=0").await;
    let mut v1 = f
        .watch(
            "widgets",
            "v1",
            &format!("resourceVersion={}", now(&f).await),
        )
        .await;
    for watch in [&mut v2, &mut from_zero] {
        let a = expect(watch, "ADDED", "a").await;
        assert_eq!(a["apiVersion"], V2);
        assert_eq!(a["spec"], json!({"color": "red", "shape": "round"}));
    }

    f.create_v1("widgets", "Widget", "b", json!({"color": "blue"}))
        .await;
    let added = expect(&mut v2, "ADDED", "b").await;
    assert_eq!(
        (&added["apiVersion"], &added["spec"]["shape"]),
        (&json!(V2), &json!("square"))
    );
    let patch = json!({"metadata": {"annotations": {ANNOTATION: "hexagon"}}});
    let (code, body) = send(
        f.server
            .client()
            .patch(f.url("widgets", "v1", Some("b")))
            .header("content-type", "application/merge-patch+json")
            .json(&patch),
    )
    .await;
    assert_eq!(code, 200, "{body}");
    let modified = expect(&mut v2, "MODIFIED", "b").await;
    assert_eq!(
        modified["spec"],
        json!({"color": "blue", "shape": "hexagon"})
    );
    assert!(
        modified["metadata"].get("annotations").is_none(),
        "{modified}"
    );
    let (code, body) = send(f.server.client().delete(f.url("widgets", "v1", Some("b")))).await;
    assert_eq!(code, 200, "{body}");
    let deleted = expect(&mut v2, "DELETED", "b").await;
    assert_eq!(
        (&deleted["apiVersion"], &deleted["spec"]["shape"]),
        (&json!(V2), &json!("hexagon"))
    );

    // A watch at v1 sees a write at v2 with the converter's annotation.
    let body = conversion::object(V2, "Widget", "c", json!({"color": "red", "shape": "star"}));
    let (code, created) = send(
        f.server
            .client()
            .post(f.url("widgets", "v2", None))
            .json(&body),
    )
    .await;
    assert_eq!(code, 201, "{created}");
    for name in ["b", "b", "b"] {
        let (_, object) = v1.event().await;
        assert_eq!(object["metadata"]["name"], name);
        assert_eq!(object["apiVersion"], V1);
    }
    let c = expect(&mut v1, "ADDED", "c").await;
    assert_eq!(
        (&c["apiVersion"], &c["spec"]),
        (&json!(V1), &json!({"color": "red"}))
    );
    assert_eq!(c["metadata"]["annotations"], json!({ANNOTATION: "star"}));
    let c2 = expect(&mut v2, "ADDED", "c").await;
    assert_eq!(c2["spec"], json!({"color": "red", "shape": "star"}));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watch_fifty_v2_watchers_one_review_per_event() {
    const WATCHERS: usize = 50;
    const WRITES: usize = 5;
    let f = Fixture::start(&[WIDGETS]).await;
    let rv = now(&f).await;
    let mut watches = Vec::new();
    for _ in 0..WATCHERS {
        watches.push(
            f.watch("widgets", "v2", &format!("resourceVersion={rv}"))
                .await,
        );
    }
    let successes = f.successes().await;
    for i in 0..WRITES {
        let color = ["red", "blue"][i % 2];
        f.create_v1(
            "widgets",
            "Widget",
            &format!("w{i}"),
            json!({"color": color}),
        )
        .await;
    }
    for watch in &mut watches {
        for i in 0..WRITES {
            let object = expect(watch, "ADDED", &format!("w{i}")).await;
            let shape = ["round", "square"][i % 2];
            assert_eq!(
                (&object["apiVersion"], &object["spec"]["shape"]),
                (&json!(V2), &json!(shape))
            );
        }
    }
    let reviews = f.converter.take_reviews();
    let sent: Vec<Value> = reviews
        .iter()
        .map(|r| {
            json!([
                r.desired(),
                r.objects()
                    .iter()
                    .map(|o| &o["metadata"]["name"])
                    .collect::<Vec<_>>()
            ])
        })
        .collect();
    let want: Vec<Value> = (0..WRITES)
        .map(|i| json!([V2, [format!("w{i}")]]))
        .collect();
    assert_eq!(sent, want, "one review per event for {WATCHERS} watchers");
    assert_eq!(f.successes().await - successes, WRITES as u64);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watch_v2_converter_starts_failing_error_event_then_end() {
    let f = Fixture::start(&[WIDGETS]).await;
    let mut watch = f
        .watch(
            "widgets",
            "v2",
            &format!("resourceVersion={}", now(&f).await),
        )
        .await;
    f.create_v1("widgets", "Widget", "a", json!({"color": "red"}))
        .await;
    let a = expect(&mut watch, "ADDED", "a").await;
    assert_eq!(a["spec"]["shape"], "round");

    f.converter.answer_as(Some("/convert-fail"));
    f.create_v1("widgets", "Widget", "b", json!({"color": "blue"}))
        .await;
    let (t, object) = watch.event().await;
    assert_eq!(t, "ERROR");
    let text =
        format!("conversion webhook for {V1}, Kind=Widget failed: the test converter refuses");
    assert_eq!(object, failure(&text));
    assert!(
        watch.next().await.is_none(),
        "the watch ends after its ERROR"
    );
}
