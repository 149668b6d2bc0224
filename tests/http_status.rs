//! HTTP-level Status answers: each error path returns kube's code, reason and message.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;

use std::time::Duration;

use common::Server;
use serde_json::{Value, json};

const CT: &str = "/apis/stable.example.com/v1/namespaces/default/crontabs";

fn crontab(name: &str) -> Value {
    json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
           "metadata": {"name": name}, "spec": {"cronSpec": "* * * * */5", "image": "img", "replicas": 1}})
}

async fn send(req: reqwest::RequestBuilder) -> (u16, Value) {
    let resp = req.send().await.expect("request");
    let code = resp.status().as_u16();
    let body = resp.json::<Value>().await.unwrap_or(Value::Null);
    (code, body)
}

fn assert_status(body: &Value, code: u16, reason: &str, message: &str) {
    assert_eq!(body["kind"], "Status", "{body}");
    assert_eq!(body["code"], code, "{body}");
    assert_eq!(body["reason"], reason, "{body}");
    assert_eq!(body["message"], message, "{body}");
}

#[tokio::test]
async fn update_stale_resource_version_conflicts() {
    let server = Server::start();
    let c = server.client();
    let (code, created) = send(c.post(server.url(CT)).json(&crontab("a"))).await;
    assert_eq!(code, 201, "{created}");
    let mut first = created.clone();
    first["spec"]["replicas"] = json!(2);
    let (code, _) = send(c.put(server.url(&format!("{CT}/a"))).json(&first)).await;
    assert_eq!(code, 200);
    // The same stale resourceVersion again.
    let (code, body) = send(c.put(server.url(&format!("{CT}/a"))).json(&first)).await;
    assert_eq!(code, 409);
    assert_status(
        &body,
        409,
        "Conflict",
        "Operation cannot be fulfilled on crontabs.stable.example.com \"a\": the object has been modified; please apply your changes to the latest version and try again",
    );
    assert_eq!(
        body["details"],
        json!({"name": "a", "group": "stable.example.com", "kind": "crontabs"})
    );
}

#[tokio::test]
async fn create_existing_name_already_exists() {
    let server = Server::start();
    let c = server.client();
    send(c.post(server.url(CT)).json(&crontab("a"))).await;
    let (code, body) = send(c.post(server.url(CT)).json(&crontab("a"))).await;
    assert_eq!(code, 409);
    assert_status(
        &body,
        409,
        "AlreadyExists",
        "crontabs.stable.example.com \"a\" already exists",
    );
}

#[tokio::test]
async fn create_kind_mismatch_is_invalid() {
    let server = Server::start();
    let c = server.client();
    let mut wrong = crontab("a");
    wrong["kind"] = json!("Other");
    let (code, body) = send(c.post(server.url(CT)).json(&wrong)).await;
    assert_eq!(code, 422, "{body}");
    assert_status(
        &body,
        422,
        "Invalid",
        "Other.stable.example.com \"a\" is invalid: kind: Invalid value: \"Other\": must be CronTab",
    );
    assert_eq!(body["details"]["causes"][0]["field"], "kind");
    let mut wrong = crontab("a");
    wrong["apiVersion"] = json!("stable.example.com/v2");
    let (code, body) = send(c.post(server.url(CT)).json(&wrong)).await;
    assert_eq!(code, 400, "{body}");
    assert_status(
        &body,
        400,
        "BadRequest",
        "the API version in the data (stable.example.com/v2) does not match the expected API version (stable.example.com/v1)",
    );
    let (code, _) = send(c.get(server.url(&format!("{CT}/a")))).await;
    assert_eq!(code, 404, "a rejected create stores nothing");
}

#[tokio::test]
async fn unknown_paths_and_objects_not_found() {
    let server = Server::start();
    let c = server.client();
    // What kube's router does not serve gets its mux's plain-text page, not a Status.
    for path in [
        "/apis/nosuch.example.com/v1/foos",
        "/apis/stable.example.com/v9/namespaces/default/crontabs",
        "/apis/stable.example.com/v1/namespaces/default/nosuch",
        "/apis/nosuch.example.com",
    ] {
        let resp = c.get(server.url(path)).send().await.unwrap();
        assert_eq!(resp.status().as_u16(), 404, "{path}");
        assert_eq!(
            resp.headers()["content-type"],
            "text/plain; charset=utf-8",
            "{path}"
        );
        assert_eq!(resp.text().await.unwrap(), "404 page not found\n", "{path}");
    }
    let (code, body) = send(c.get(server.url(&format!("{CT}/missing")))).await;
    assert_eq!(code, 404);
    assert_status(
        &body,
        404,
        "NotFound",
        "crontabs.stable.example.com \"missing\" not found",
    );
}

#[tokio::test]
async fn unsupported_verbs_method_not_allowed() {
    let server = Server::start();
    let c = server.client();
    send(c.post(server.url(CT)).json(&crontab("a"))).await;
    // Deleting a subresource is not a verb kube serves.
    let (code, body) = send(c.delete(server.url(&format!("{CT}/a/status")))).await;
    assert_eq!(code, 405, "{body}");
    // kube names the resource alone, whatever the subresource.
    assert_status(
        &body,
        405,
        "MethodNotAllowed",
        "delete is not supported on resources of kind \"crontabs.stable.example.com\"",
    );
    assert_eq!(
        body["details"],
        json!({"group": "stable.example.com", "kind": "crontabs"})
    );
    // PUT to a collection names no object: kube's 400.
    let (code, body) = send(c.put(server.url(CT)).json(&crontab("a"))).await;
    assert_eq!(code, 400, "{body}");
    assert_status(&body, 400, "BadRequest", "name must be provided");
    // A subresource the version does not have is the object's NotFound.
    let (code, body) = send(c.get(server.url("/apis/example.org/v1/widgets/w/status"))).await;
    assert_eq!(code, 404);
    assert_status(
        &body,
        404,
        "NotFound",
        "widgets.example.org \"w\" not found",
    );
}

#[tokio::test]
async fn oversized_body_request_entity_too_large() {
    let server = Server::start();
    let c = server.client();
    let mut big = crontab("big");
    big["spec"]["image"] = json!("x".repeat(4 * 1024 * 1024));
    let (code, body) = send(c.post(server.url(CT)).json(&big)).await;
    assert_eq!(code, 413);
    assert_eq!(body["reason"], "RequestEntityTooLarge");
    assert_eq!(
        body["message"],
        "Request entity too large: limit is 3145728"
    );
}

#[tokio::test]
async fn json_patch_nesting_copy_and_operation_limits_reject_without_change() {
    let server = Server::start();
    let c = server.client();
    let (code, created) = send(c.post(server.url(CT)).json(&crontab("deep"))).await;
    assert_eq!(code, 201);
    let nested = |depth: usize| (0..depth).fold(json!(1), |v, _| json!({"a": v}));
    // Two operations of depth 60 each: the second writes inside the first.
    let inner = format!("/spec/x{}", "/a".repeat(59));
    let ops = json!([
        {"op": "add", "path": "/spec/x", "value": nested(60)},
        {"op": "add", "path": format!("{inner}/b"), "value": nested(60)},
    ]);
    let patch = |body: String| {
        c.patch(server.url(&format!("{CT}/deep")))
            .header("content-type", "application/json-patch+json")
            .body(body)
    };
    let (code, body) = send(patch(ops.to_string())).await;
    assert_status(
        &body,
        400,
        "BadRequest",
        "error decoding request body: nesting deeper than 100 levels",
    );
    assert_eq!(code, 400);
    let ops: Vec<Value> = (0..10_001)
        .map(|_| json!({"op": "test", "path": "/kind", "value": "CronTab"}))
        .collect();
    let (code, body) = send(patch(Value::Array(ops).to_string())).await;
    assert_eq!(code, 413);
    assert_eq!(
        body["message"],
        "The allowed maximum operations in a JSON patch is 10000, got 10001"
    );
    // Each copy doubles spec (40 doublings would need terabytes): kube stops copies
    // adding more than 3 MiB in one patch.
    let doubling: Vec<Value> = (0..40)
        .map(|i| json!({"op": "copy", "from": "/spec", "path": format!("/spec/b{i}")}))
        .collect();
    let (code, body) = send(patch(Value::Array(doubling).to_string())).await;
    assert_status(
        &body,
        422,
        "Invalid",
        "the server rejected our request due to an error in our request",
    );
    assert_eq!(code, 422);
    let (_, now) = send(c.get(server.url(&format!("{CT}/deep")))).await;
    assert_eq!(now, created, "nothing changed");
}

#[tokio::test]
async fn strategic_merge_patch_unsupported_media_type() {
    let server = Server::start();
    let c = server.client();
    send(c.post(server.url(CT)).json(&crontab("a"))).await;
    let (code, body) = send(
        c.patch(server.url(&format!("{CT}/a")))
            .header("content-type", "application/strategic-merge-patch+json")
            .body(r#"{"spec":{"replicas":3}}"#),
    )
    .await;
    assert_eq!(code, 415);
    assert_status(
        &body,
        415,
        "UnsupportedMediaType",
        "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml",
    );
}

#[tokio::test]
async fn anonymous_request_forbidden_with_kube_message() {
    let server = Server::start();
    let (code, body) = send(server.anonymous().get(server.url(CT))).await;
    assert_eq!(code, 403);
    assert_status(
        &body,
        403,
        "Forbidden",
        "crontabs.stable.example.com is forbidden: User \"system:anonymous\" cannot list resource \"crontabs\" in API group \"stable.example.com\" in the namespace \"default\"",
    );
    let resp = server
        .anonymous()
        .get(server.url("/readyz"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 200, "health needs no authorization");
}

#[tokio::test]
async fn compacted_revisions_watch_and_continue_expire() {
    let server = Server::start_with(&["--etcd-compaction-interval", "1s"]);
    let c = server.client();
    for name in ["a", "b", "c"] {
        send(c.post(server.url(CT)).json(&crontab(name))).await;
    }
    let (_, page) = send(c.get(server.url(&format!("{CT}?limit=1")))).await;
    let token = page["metadata"]["continue"]
        .as_str()
        .expect("continue token")
        .to_string();
    let start_rv = page["metadata"]["resourceVersion"]
        .as_str()
        .unwrap()
        .to_string();
    // Writes after the page, then at least two compaction ticks.
    for i in 0..3 {
        send(c.post(server.url(CT)).json(&crontab(&format!("later{i}")))).await;
    }
    // Compaction runs every second: the token expires within a few ticks.
    let continued = server.url(&format!("{CT}?limit=1&continue={token}"));
    let (c, continued) = (&c, &continued);
    let body = common::eventually(
        Duration::from_secs(30),
        "the token to expire",
        || async move {
            let (code, body) = send(c.get(continued)).await;
            assert!(code == 200 || code == 410, "{code}: {body}");
            (code == 410).then_some(body)
        },
    )
    .await;
    assert_eq!(body["reason"], "Expired");
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .starts_with("The provided continue parameter is too old"),
        "{body}"
    );
    let inconsistent = body["metadata"]["continue"]
        .as_str()
        .expect("an inconsistent continue token is offered");
    let (code, rest) =
        send(c.get(server.url(&format!("{CT}?limit=10&continue={inconsistent}")))).await;
    assert_eq!(
        code, 200,
        "the inconsistent token continues at the latest revision: {rest}"
    );
    assert_eq!(rest["items"][0]["metadata"]["name"], "b");

    let resp = c
        .get(server.url(&format!("{CT}?watch=1&resourceVersion={start_rv}")))
        .send()
        .await
        .unwrap();
    let text = resp.text().await.unwrap();
    let event: Value = serde_json::from_str(text.lines().next().expect("one event")).unwrap();
    assert_eq!(event["type"], "ERROR", "{text}");
    assert_eq!(event["object"]["code"], 410);
    assert_eq!(event["object"]["reason"], "Expired");
}

#[tokio::test]
async fn client_certificate_from_unknown_ca_unauthorized() {
    let server = Server::start();
    // A certificate the server's client CA did not sign: kube answers 401, not anonymous.
    let ca = crd_apiserver::server::pki::new_authority("stranger-ca").unwrap();
    let leaf = ca
        .issue(crd_apiserver::server::pki::Leaf::Client {
            user: "mallory",
            groups: &["system:masters"],
        })
        .unwrap();
    crd_apiserver::server::pki::write_pair(&server.pki, "stranger", &leaf).unwrap();
    let c = common::client_with(&server.pki, Some(("stranger.crt", "stranger.key")));
    let (code, body) = send(c.get(server.url(CT))).await;
    assert_eq!(code, 401, "{body}");
    assert_eq!(body["reason"], "Unauthorized");
}
