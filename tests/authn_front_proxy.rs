//! Front-proxy authentication end to end: the test acts as kube-apiserver's aggregator
//! (client certificate `CN=front-proxy-client` from the requestheader CA announced in the
//! fake cluster's ConfigMap, `X-Remote-*` headers) against the real binary.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;
#[path = "common/fake_kube.rs"]
mod fake_kube;

use std::time::{Duration, Instant};

use crd_apiserver::server::pki;
use fake_kube::delegated::{Delegated, sample};
use fake_kube::{Decision, front_proxy_data};
use serde_json::{Value, json};

const CRONTABS: &str = "/apis/stable.example.com/v1/namespaces/default/crontabs";

fn unauthorized() -> Value {
    json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": "Unauthorized", "reason": "Unauthorized", "code": 401})
}

async fn send(req: reqwest::RequestBuilder) -> (u16, Value) {
    let resp = req.send().await.unwrap();
    let code = resp.status().as_u16();
    let text = resp.text().await.unwrap();
    (
        code,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

#[tokio::test]
async fn front_proxy_allowed_cn_runs_as_header_user() {
    let d = Delegated::start(&[]);
    let req = d
        .proxy()
        .get(d.server.url(CRONTABS))
        .header("X-Remote-User", "bob")
        .header("x-remote-group", "dev")
        .header("X-REMOTE-GROUP", "ops")
        .header("X-Remote-Extra-Scopes", "read")
        .header("x-remote-extra-scopes", "write")
        .header("X-Remote-Extra-Example.org%2fteam", "blue");
    let (code, body) = send(req).await;
    assert_eq!(code, 200, "{body}");
    assert_eq!(
        d.fake.access_reviews(),
        vec![json!({
            "user": "bob",
            "groups": ["dev", "ops", "system:authenticated"],
            "extra": {"example.org/team": ["blue"], "scopes": ["read", "write"]},
            "resourceAttributes": {"namespace": "default", "verb": "list",
                "group": "stable.example.com", "version": "v1", "resource": "crontabs"},
        })]
    );
}

#[tokio::test]
async fn front_proxy_headers_without_certificate_run_as_anonymous() {
    let d = Delegated::start(&[]);
    d.fake.set_policy(|_| Decision::no_opinion(""));
    let req = d
        .server
        .anonymous()
        .get(d.server.url(CRONTABS))
        .header("X-Remote-User", "admin")
        .header("X-Remote-Group", "system:masters");
    let (code, body) = send(req).await;
    assert_eq!(code, 403, "{body}");
    assert_eq!(
        body["message"],
        "crontabs.stable.example.com is forbidden: User \"system:anonymous\" cannot list resource \"crontabs\" in API group \"stable.example.com\" in the namespace \"default\""
    );
    let reviews = d.fake.access_reviews();
    assert_eq!(reviews.len(), 1);
    assert_eq!(reviews[0]["user"], "system:anonymous");
    assert_eq!(reviews[0]["groups"], json!(["system:unauthenticated"]));
}

#[tokio::test]
async fn front_proxy_certificate_from_other_ca_is_unauthorized() {
    let d = Delegated::start(&[]);
    let stranger = pki::new_authority("not-the-front-proxy-ca").unwrap();
    let client = d.client_from(&stranger, "front-proxy-client", &[]);
    let req = client
        .get(d.server.url(CRONTABS))
        .header("X-Remote-User", "admin")
        .header("X-Remote-Group", "system:masters");
    assert_eq!(send(req).await, (401, unauthorized()));
    assert!(
        d.fake.access_reviews().is_empty(),
        "no review for a refused certificate"
    );
    let metrics = d.metrics().await;
    let series = "crd_apiserver_authentication_rejections_total{authenticator=\"requestheader\",reason=\"unknown_authority\"}";
    assert_eq!(sample(&metrics, series), 1.0, "{metrics}");
}

#[tokio::test]
async fn front_proxy_cn_not_in_allowed_names_is_unauthorized() {
    let d = Delegated::start(&[]);
    let client = d.client_from(&d.proxy_ca, "mallory", &[]);
    let req = client
        .get(d.server.url(CRONTABS))
        .header("X-Remote-User", "admin");
    assert_eq!(send(req).await, (401, unauthorized()));
    let metrics = d.metrics().await;
    let series = "crd_apiserver_authentication_rejections_total{authenticator=\"requestheader\",reason=\"cn_not_allowed\"}";
    assert_eq!(sample(&metrics, series), 1.0, "{metrics}");
}

#[tokio::test]
async fn client_certificate_with_front_proxy_headers_runs_as_certificate_user() {
    let d = Delegated::start(&[]);
    // The dev admin's certificate is from the client CA, not the front-proxy CA: its
    // headers are ignored and the request runs as dev-admin (system:masters, no review).
    let req = d
        .admin()
        .get(d.server.url(CRONTABS))
        .header("X-Remote-User", "bob")
        .header("X-Remote-Group", "nobody");
    let (code, body) = send(req).await;
    assert_eq!(code, 200, "{body}");
    assert!(d.fake.access_reviews().is_empty());
    let metrics = d.metrics().await;
    let series = "crd_apiserver_authentication_rejections_total{authenticator=\"requestheader\",reason=\"unknown_authority\"}";
    assert_eq!(
        sample(&metrics, series),
        1.0,
        "the refused front-proxy attempt is counted"
    );
}

/// Polls until `client` gets `want` for the crontab list, for at most 15s.
async fn until_code(d: &Delegated, client: &reqwest::Client, want: u16) {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let req = client
            .get(d.server.url(CRONTABS))
            .header("X-Remote-User", "bob");
        let (code, _) = send(req).await;
        if code == want {
            return;
        }
        assert!(Instant::now() < deadline, "still {code}, want {want}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn requestheader_ca_rotation_applies_without_restart() {
    let d = Delegated::start(&[]);
    let old = d.proxy();
    until_code(&d, &old, 200).await;
    let rotated = pki::new_authority("front-proxy-ca-rotated").unwrap();
    let new = d.client_from(&rotated, "front-proxy-client", &[]);
    assert_eq!(
        send(
            new.get(d.server.url(CRONTABS))
                .header("X-Remote-User", "bob")
        )
        .await
        .0,
        401
    );

    d.fake.set_configmap(Some(front_proxy_data(
        &rotated.pem.cert,
        &["front-proxy-client"],
    )));
    until_code(&d, &new, 200).await;
    until_code(&d, &old, 401).await;

    d.fake.set_configmap(None);
    until_code(&d, &new, 401).await;
}

#[tokio::test]
async fn health_paths_need_no_credentials() {
    let d = Delegated::start(&[]);
    d.fake.set_policy(|_| Decision::deny("nobody may"));
    for path in ["/healthz", "/livez", "/readyz"] {
        let resp = d
            .server
            .anonymous()
            .get(d.server.url(path))
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 200, "{path}");
        assert_eq!(resp.text().await.unwrap(), "ok", "{path}");
    }
    assert!(d.fake.access_reviews().is_empty());
}

#[tokio::test]
async fn anonymous_auth_false_rejects_requests_without_credentials() {
    let d = Delegated::start(&["--anonymous-auth=false"]);
    let (code, body) = send(d.server.anonymous().get(d.server.url(CRONTABS))).await;
    assert_eq!((code, body), (401, unauthorized()));
    let (code, _) = send(
        d.proxy()
            .get(d.server.url(CRONTABS))
            .header("X-Remote-User", "bob"),
    )
    .await;
    assert_eq!(code, 200);
}

#[tokio::test]
async fn metrics_count_requests_by_verb_resource_and_code() {
    let d = Delegated::start(&[]);
    d.fake.set_policy(|spec| match spec["user"].as_str() {
        Some("bob") => Decision::allow(""),
        _ => Decision::no_opinion(""),
    });
    send(
        d.proxy()
            .get(d.server.url(CRONTABS))
            .header("X-Remote-User", "bob"),
    )
    .await;
    send(
        d.proxy()
            .get(d.server.url(CRONTABS))
            .header("X-Remote-User", "eve"),
    )
    .await;
    let metrics = d.metrics().await;
    let ok = "apiserver_request_total{verb=\"list\",group=\"stable.example.com\",resource=\"crontabs\",subresource=\"\",code=\"200\"}";
    let denied = "apiserver_request_total{verb=\"list\",group=\"stable.example.com\",resource=\"crontabs\",subresource=\"\",code=\"403\"}";
    assert_eq!(sample(&metrics, ok), 1.0, "{metrics}");
    assert_eq!(sample(&metrics, denied), 1.0, "{metrics}");
    assert!(
        metrics.contains("apiserver_request_duration_seconds_bucket{"),
        "{metrics}"
    );
}
