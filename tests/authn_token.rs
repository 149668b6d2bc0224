//! Bearer tokens end to end: resolved through the fake cluster's TokenReview, answers
//! cached for `--authentication-token-webhook-cache-ttl`, invalid tokens refused.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;
#[path = "common/fake_kube.rs"]
mod fake_kube;

use std::time::Duration;

use fake_kube::Decision;
use fake_kube::delegated::Delegated;
use serde_json::{Value, json};

const CRONTABS: &str = "/apis/stable.example.com/v1/namespaces/default/crontabs";

async fn list_with_token(d: &Delegated, token: &str) -> (u16, Value) {
    let resp = d
        .server
        .anonymous()
        .get(d.server.url(CRONTABS))
        .bearer_auth(token)
        .send()
        .await
        .unwrap();
    (resp.status().as_u16(), resp.json().await.unwrap())
}

#[tokio::test]
async fn bearer_token_resolved_through_token_review_and_cached_for_ttl() {
    let d = Delegated::start(&["--authentication-token-webhook-cache-ttl=2s"]);
    let started = std::time::Instant::now();
    d.fake.add_token(
        "alice-token",
        json!({"username": "alice", "uid": "a-1", "groups": ["dev"], "extra": {"scopes": ["x"]}}),
    );
    d.fake.set_policy(|spec| match spec["user"].as_str() {
        Some("alice") => Decision::allow(""),
        _ => Decision::no_opinion(""),
    });
    let (code, body) = list_with_token(&d, "alice-token").await;
    assert_eq!(code, 200, "{body}");
    let (code, _) = list_with_token(&d, "alice-token").await;
    assert_eq!(code, 200);
    assert_eq!(
        d.fake.token_reviews(),
        ["alice-token"],
        "second request answered from the cache"
    );
    let review = &d.fake.access_reviews()[0];
    assert_eq!(review["user"], "alice");
    assert_eq!(review["uid"], "a-1");
    assert_eq!(review["groups"], json!(["dev", "system:authenticated"]));
    assert_eq!(review["extra"], json!({"scopes": ["x"]}));

    let d = &d;
    let cached_for =
        common::eventually(Duration::from_secs(30), "a second review", || async move {
            assert_eq!(list_with_token(d, "alice-token").await.0, 200);
            (d.fake.token_reviews().len() == 2).then(|| started.elapsed())
        })
        .await;
    assert!(
        cached_for >= Duration::from_secs(2),
        "reviewed again only after the TTL, not after {cached_for:?}"
    );
}

#[tokio::test]
async fn invalid_bearer_token_is_unauthorized_and_cached() {
    let d = Delegated::start(&[]);
    for _ in 0..2 {
        let (code, body) = list_with_token(&d, "forged").await;
        assert_eq!(code, 401);
        assert_eq!(
            body,
            json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                "message": "Unauthorized", "reason": "Unauthorized", "code": 401})
        );
    }
    assert_eq!(
        d.fake.token_reviews(),
        ["forged"],
        "the refusal is cached too"
    );
    assert!(d.fake.access_reviews().is_empty());
}

#[tokio::test]
async fn front_proxy_takes_precedence_over_bearer_token() {
    let d = Delegated::start(&[]);
    let resp = d
        .proxy()
        .get(d.server.url(CRONTABS))
        .header("X-Remote-User", "bob")
        .bearer_auth("unused-token")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    assert!(
        d.fake.token_reviews().is_empty(),
        "the first authenticator that recognises the request decides"
    );
    assert_eq!(d.fake.access_reviews()[0]["user"], "bob");
}
