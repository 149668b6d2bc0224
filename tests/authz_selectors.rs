//! Authorization and the handler read the same request: repeated `fieldSelector` /
//! `labelSelector` parameters and the deprecated `/watch/.../{name}` paths serve only what
//! the SubjectAccessReview allowed (asserted on the objects that come back or are
//! deleted), and long selectors are reviewed once per TTL like any other request.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;
#[path = "common/fake_kube.rs"]
mod fake_kube;

use std::time::Duration;

use common::item_names;
use fake_kube::Decision;
use fake_kube::delegated::Delegated;
use futures::StreamExt;
use serde_json::{Value, json};

const GROUP_VERSION: &str = "/apis/stable.example.com/v1";
const CRONTABS: &str = "/apis/stable.example.com/v1/namespaces/default/crontabs";

fn crontabs_in(namespace: &str) -> String {
    format!("{GROUP_VERSION}/namespaces/{namespace}/crontabs")
}

/// Creates `namespace/name` labelled `owner=<owner>` as the admin (no review).
async fn create(d: &Delegated, namespace: &str, name: &str, owner: &str) {
    let body = json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
        "metadata": {"name": name, "namespace": namespace, "labels": {"owner": owner}},
        "spec": {"cronSpec": "* * * * */5", "image": "img", "replicas": 1}});
    let resp = d
        .admin()
        .post(d.server.url(&crontabs_in(namespace)))
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 201, "{}", resp.text().await.unwrap());
}

/// `mine` (owner=me), `secret` and `other` (owner=other) in `default`.
async fn seed(d: &Delegated) {
    create(d, "default", "mine", "me").await;
    create(d, "default", "secret", "other").await;
    create(d, "default", "other", "other").await;
}

/// The cluster allows bob only requests about the object named `mine`.
fn only_name_mine(spec: &Value) -> Decision {
    match spec["resourceAttributes"]["name"].as_str() {
        Some("mine") => Decision::allow(""),
        _ => Decision::no_opinion("only mine"),
    }
}

/// The cluster allows bob only requests whose label selector requires `owner=me`.
fn only_owner_me(spec: &Value) -> Decision {
    let wanted = json!({"key": "owner", "operator": "In", "values": ["me"]});
    let requirements = &spec["resourceAttributes"]["labelSelector"]["requirements"];
    match requirements.as_array() {
        Some(rs) if rs.contains(&wanted) => Decision::allow(""),
        _ => Decision::no_opinion("only owner=me"),
    }
}

fn as_bob(d: &Delegated, method: reqwest::Method, path_and_query: &str) -> reqwest::RequestBuilder {
    d.proxy()
        .request(method, d.server.url(path_and_query))
        .header("X-Remote-User", "bob")
}

/// Bob's list; the status must be 200.
async fn list_as_bob(d: &Delegated, query: &str) -> Vec<String> {
    let resp = as_bob(d, reqwest::Method::GET, &format!("{CRONTABS}?{query}"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200, "{query}");
    item_names(&resp.json().await.unwrap())
}

/// Everything in `default`, as the admin.
async fn all_names(d: &Delegated) -> Vec<String> {
    let resp = d.admin().get(d.server.url(CRONTABS)).send().await.unwrap();
    item_names(&resp.json().await.unwrap())
}

#[tokio::test]
async fn list_repeated_field_selector_serves_first_value() {
    let d = Delegated::start(&[]);
    seed(&d).await;
    d.fake.set_policy(only_name_mine);
    let empty_second = list_as_bob(&d, "fieldSelector=metadata.name%3Dmine&fieldSelector=").await;
    assert_eq!(
        empty_second,
        ["mine"],
        "an empty second selector must not widen the list"
    );
    let other_second = list_as_bob(
        &d,
        "fieldSelector=metadata.name%3Dmine&fieldSelector=metadata.name%3Dsecret",
    )
    .await;
    assert_eq!(
        other_second,
        ["mine"],
        "a second selector must not pick another object"
    );
}

#[tokio::test]
async fn list_repeated_label_selector_serves_first_value() {
    let d = Delegated::start(&[]);
    seed(&d).await;
    d.fake.set_policy(only_owner_me);
    let empty_second = list_as_bob(&d, "labelSelector=owner%3Dme&labelSelector=").await;
    assert_eq!(empty_second, ["mine"]);
    let other_second =
        list_as_bob(&d, "labelSelector=owner%3Dme&labelSelector=owner%3Dother").await;
    assert_eq!(other_second, ["mine"]);
}

#[tokio::test]
async fn deletecollection_repeated_selectors_delete_first_value_only() {
    let d = Delegated::start(&[]);
    seed(&d).await;
    d.fake.set_policy(only_owner_me);
    let resp = as_bob(
        &d,
        reqwest::Method::DELETE,
        &format!("{CRONTABS}?labelSelector=owner%3Dme&labelSelector="),
    )
    .send()
    .await
    .unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(item_names(&resp.json().await.unwrap()), ["mine"], "deleted");
    assert_eq!(all_names(&d).await, ["other", "secret"], "left alone");

    d.fake.set_policy(|spec| {
        let selected = &spec["resourceAttributes"]["fieldSelector"]["requirements"];
        match selected == &json!([{"key": "metadata.name", "operator": "In", "values": ["other"]}])
        {
            true => Decision::allow(""),
            false => Decision::no_opinion("only other"),
        }
    });
    let resp = as_bob(
        &d,
        reqwest::Method::DELETE,
        &format!(
            "{CRONTABS}?fieldSelector=metadata.name%3Dother&fieldSelector=metadata.name%3Dsecret"
        ),
    )
    .send()
    .await
    .unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(
        item_names(&resp.json().await.unwrap()),
        ["other"],
        "deleted"
    );
    assert_eq!(all_names(&d).await, ["secret"], "left alone");
}

/// A watch response read event by event, each within a deadline.
struct Events {
    stream: futures::stream::BoxStream<'static, reqwest::Result<bytes::Bytes>>,
    buf: Vec<u8>,
}

impl Events {
    async fn open(req: reqwest::RequestBuilder) -> Events {
        let resp = req.send().await.unwrap();
        assert_eq!(resp.status(), 200);
        Events {
            stream: resp.bytes_stream().boxed(),
            buf: Vec::new(),
        }
    }

    async fn next(&mut self) -> Value {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(pos) = self.buf.iter().position(|b| *b == b'\n') {
                let line: Vec<u8> = self.buf.drain(..=pos).collect();
                return serde_json::from_slice(&line).unwrap();
            }
            match tokio::time::timeout_at(deadline, self.stream.next()).await {
                Ok(Some(Ok(chunk))) => self.buf.extend_from_slice(&chunk),
                other => panic!("no watch event within 10s: {other:?}"),
            }
        }
    }
}

/// `namespace/name` of an event's object.
fn key(event: &Value) -> String {
    let meta = &event["object"]["metadata"];
    format!(
        "{}/{}",
        meta["namespace"].as_str().unwrap(),
        meta["name"].as_str().unwrap()
    )
}

async fn touch(d: &Delegated, namespace: &str, name: &str) {
    let resp = d
        .admin()
        .patch(d.server.url(&format!("{}/{name}", crontabs_in(namespace))))
        .header("content-type", "application/merge-patch+json")
        .body(r#"{"spec":{"image":"touched"}}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
}

/// Reads the watch's initial events (`initial` of them), then changes every other object
/// before `last` so that a leak would arrive first, and returns every event up to the
/// change of `last`.
async fn watch_through(
    d: &Delegated,
    mut events: Events,
    initial: usize,
    others: &[(&str, &str)],
    last: (&str, &str),
) -> Vec<Value> {
    let mut seen = Vec::new();
    for _ in 0..initial {
        seen.push(events.next().await);
    }
    for (namespace, name) in others {
        touch(d, namespace, name).await;
    }
    touch(d, last.0, last.1).await;
    let want = format!("{}/{}", last.0, last.1);
    loop {
        let event = events.next().await;
        let done = event["type"] == "MODIFIED" && key(&event) == want;
        seen.push(event);
        if done {
            return seen;
        }
    }
}

#[tokio::test]
async fn watch_repeated_field_selector_streams_first_value_only() {
    let d = Delegated::start(&[]);
    seed(&d).await;
    d.fake.set_policy(only_name_mine);
    let events = Events::open(as_bob(
        &d,
        reqwest::Method::GET,
        &format!(
            "{CRONTABS}?watch=1&timeoutSeconds=20&fieldSelector=metadata.name%3Dmine&fieldSelector="
        ),
    ))
    .await;
    let others = [("default", "secret"), ("default", "other")];
    let seen = watch_through(&d, events, 1, &others, ("default", "mine")).await;
    let keys: Vec<String> = seen.iter().map(key).collect();
    assert_eq!(keys, ["default/mine", "default/mine"], "{seen:?}");
}

#[tokio::test]
async fn watch_repeated_label_selector_streams_first_value_only() {
    let d = Delegated::start(&[]);
    seed(&d).await;
    d.fake.set_policy(only_owner_me);
    let events = Events::open(as_bob(
        &d,
        reqwest::Method::GET,
        &format!("{CRONTABS}?watch=1&timeoutSeconds=20&labelSelector=owner%3Dme&labelSelector=owner%3Dother"),
    ))
    .await;
    let others = [("default", "secret"), ("default", "other")];
    let seen = watch_through(&d, events, 1, &others, ("default", "mine")).await;
    let keys: Vec<String> = seen.iter().map(key).collect();
    assert_eq!(keys, ["default/mine", "default/mine"], "{seen:?}");
}

#[tokio::test]
async fn legacy_named_watch_namespaced_streams_only_that_object() {
    let d = Delegated::start(&[]);
    seed(&d).await;
    create(&d, "team", "mine", "me").await;
    d.fake.set_policy(only_name_mine);
    let path = format!("{GROUP_VERSION}/watch/namespaces/default/crontabs/mine?timeoutSeconds=20");
    let events = Events::open(as_bob(&d, reqwest::Method::GET, &path)).await;
    let others = [
        ("default", "secret"),
        ("default", "other"),
        ("team", "mine"),
    ];
    let seen = watch_through(&d, events, 1, &others, ("default", "mine")).await;
    let keys: Vec<String> = seen.iter().map(key).collect();
    assert_eq!(keys, ["default/mine", "default/mine"], "{seen:?}");
    let review = &d.fake.access_reviews()[0]["resourceAttributes"];
    assert_eq!(
        review,
        &json!({"namespace": "default", "verb": "watch", "group": "stable.example.com",
            "version": "v1", "resource": "crontabs", "name": "mine"})
    );
}

#[tokio::test]
async fn legacy_named_watch_cluster_wide_streams_only_that_name() {
    let d = Delegated::start(&[]);
    seed(&d).await;
    create(&d, "team", "mine", "me").await;
    create(&d, "team", "secret", "other").await;
    d.fake.set_policy(only_name_mine);
    let path = format!("{GROUP_VERSION}/watch/crontabs/mine?timeoutSeconds=20");
    let events = Events::open(as_bob(&d, reqwest::Method::GET, &path)).await;
    let others = [
        ("default", "secret"),
        ("team", "secret"),
        ("default", "other"),
    ];
    let seen = watch_through(&d, events, 2, &others, ("team", "mine")).await;
    let mut initial: Vec<String> = seen[..2].iter().map(key).collect();
    initial.sort();
    assert_eq!(initial, ["default/mine", "team/mine"], "{seen:?}");
    let rest: Vec<String> = seen[2..].iter().map(key).collect();
    assert_eq!(rest, ["team/mine"], "{seen:?}");
}

#[tokio::test]
async fn legacy_named_watch_other_name_in_selector_is_bad_request() {
    let d = Delegated::start(&[]);
    d.fake.set_policy(only_name_mine);
    let path = format!(
        "{GROUP_VERSION}/watch/namespaces/default/crontabs/mine?fieldSelector=metadata.name%3Dsecret"
    );
    let resp = as_bob(&d, reqwest::Method::GET, &path)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 400);
    let body: Value = resp.json().await.unwrap();
    assert_eq!(
        body["message"],
        "fieldSelector metadata.name doesn't match requested name"
    );
}

#[tokio::test]
async fn sar_long_label_selector_reviewed_once_per_ttl() {
    let d = Delegated::start(&[]);
    seed(&d).await;
    // well past the 10,000 bytes that used to bypass the cache
    let values: Vec<String> = (0..2500).map(|i| format!("v{i}")).collect();
    let selector = format!("owner%20in%20({},me)", values.join(","));
    assert!(selector.len() > 12_000);
    for _ in 0..3 {
        assert_eq!(
            list_as_bob(&d, &format!("labelSelector={selector}")).await,
            ["mine"]
        );
    }
    assert_eq!(d.fake.access_reviews().len(), 1, "answered from the cache");
}
