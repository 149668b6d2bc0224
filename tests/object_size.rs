//! `--max-object-size`: an object whose stored form is over the limit is refused with 413 on
//! every write path (create, update, merge and JSON patch, `/status`, `/scale`, dry runs) and
//! on both stores, and nothing is stored.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;
#[path = "common/etcd.rs"]
mod etcd;

use common::Server;
use serde_json::{Value, json};

const CT: &str = "/apis/stable.example.com/v1/namespaces/default/crontabs";
const DEFAULT_LIMIT: usize = 1536 * 1024;

async fn send(req: reqwest::RequestBuilder) -> (u16, Value) {
    let resp = req.send().await.expect("request");
    let code = resp.status().as_u16();
    (code, resp.json::<Value>().await.unwrap_or(Value::Null))
}

fn crontab(name: &str, cron_spec: &str) -> Value {
    json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
           "metadata": {"name": name}, "spec": {"cronSpec": cron_spec, "replicas": 1}})
}

fn merge(c: &reqwest::Client, url: String, patch: &Value) -> reqwest::RequestBuilder {
    c.patch(url)
        .header("content-type", "application/merge-patch+json")
        .body(patch.to_string())
}

/// The 413 Status, and the stored size its message names.
fn too_large(code: u16, body: &Value, limit: usize) -> usize {
    assert_eq!(code, 413, "{body}");
    assert_eq!(body["kind"], "Status", "{body}");
    assert_eq!(body["reason"], "RequestEntityTooLarge", "{body}");
    assert_eq!(body["code"], 413, "{body}");
    let message = body["message"].as_str().expect("message");
    let suffix = format!(" bytes, over the limit of {limit} bytes");
    let size = message
        .strip_prefix("Request entity too large: the object would be stored as ")
        .and_then(|m| m.strip_suffix(&suffix))
        .unwrap_or_else(|| panic!("unexpected message: {message}"));
    let size: usize = size.parse().expect("size in the message");
    assert!(size > limit, "{message}");
    size
}

/// Two merge patches of 1 MB each: the first is stored, the second would make a stored
/// object of 2 MB and is refused; create and update of such an object are refused too.
async fn patches_grow_past_default_limit(server: &Server) {
    let c = server.client();
    let big = "x".repeat(1_000_000);
    let (code, body) = send(
        c.post(server.url(CT))
            .json(&crontab("big", &"y".repeat(1_700_000))),
    )
    .await;
    too_large(code, &body, DEFAULT_LIMIT);
    let (code, body) = send(c.get(server.url(&format!("{CT}/big")))).await;
    assert_eq!(code, 404, "a refused create stores nothing: {body}");

    let (code, created) = send(c.post(server.url(CT)).json(&crontab("grow", "* * * * *"))).await;
    assert_eq!(code, 201, "{created}");
    let url = server.url(&format!("{CT}/grow"));
    let (code, first) = send(merge(&c, url.clone(), &json!({"spec": {"cronSpec": big}}))).await;
    assert_eq!(code, 200, "{}", first["message"]);
    let (code, body) = send(merge(&c, url.clone(), &json!({"spec": {"image": big}}))).await;
    too_large(code, &body, DEFAULT_LIMIT);
    let json_patch = json!([{"op": "add", "path": "/spec/image", "value": big}]);
    let req = c
        .patch(url.clone())
        .header("content-type", "application/json-patch+json")
        .body(json_patch.to_string());
    let (code, body) = send(req).await;
    too_large(code, &body, DEFAULT_LIMIT);
    let mut replaced = first.clone();
    replaced["spec"]["image"] = json!(big);
    let (code, body) = send(c.put(url.clone()).json(&replaced)).await;
    too_large(code, &body, DEFAULT_LIMIT);
    let (code, body) = send(c.put(format!("{url}?dryRun=All")).json(&replaced)).await;
    too_large(code, &body, DEFAULT_LIMIT);

    let (code, stored) = send(c.get(url)).await;
    assert_eq!(code, 200);
    assert_eq!(stored, first, "refused writes changed the stored object");
    assert!(stored["spec"].get("image").is_none());
}

/// `/status` and `/scale` writes of an object just under a small limit: a status that
/// crosses it and a scale that adds digits to replicas are refused; within it they pass.
async fn subresources_respect_limit(server: &Server, limit: usize) {
    let c = server.client();
    // The 413 names the stored size, so the filler for an object just under the limit
    // is derived from one refused patch. The object first gets its `/scale` managedFields
    // entry, so later scale writes (same manager, same field) only change digits.
    let (code, created) = send(c.post(server.url(CT)).json(&crontab("edge", "x"))).await;
    assert_eq!(code, 201, "{}", created["message"]);
    let url = server.url(&format!("{CT}/edge"));
    let scale = server.url(&format!("{CT}/edge/scale"));
    let (code, body) = send(merge(&c, scale.clone(), &json!({"spec": {"replicas": 2}}))).await;
    assert_eq!(code, 200, "{body}");
    let probe = limit + 100;
    let grow = |n: usize| json!({"spec": {"cronSpec": "z".repeat(n)}});
    let (code, body) = send(merge(&c, url.clone(), &grow(probe))).await;
    let size = too_large(code, &body, limit);
    let filler = probe - (size - limit) - 5;
    let (code, body) = send(merge(&c, url.clone(), &grow(filler))).await;
    assert_eq!(code, 200, "{}", body["message"]);

    let (code, body) = send(merge(
        &c,
        scale.clone(),
        &json!({"spec": {"replicas": 1_000_000}}),
    ))
    .await;
    assert_eq!(too_large(code, &body, limit), limit + 1);
    let put_scale = json!({"apiVersion": "autoscaling/v1", "kind": "Scale",
                           "metadata": {"name": "edge", "namespace": "default"},
                           "spec": {"replicas": 1_000_000}});
    let (code, body) = send(c.put(scale.clone()).json(&put_scale)).await;
    too_large(code, &body, limit);
    let (code, body) = send(merge(&c, scale, &json!({"spec": {"replicas": 9}}))).await;
    assert_eq!(code, 200, "a scale within the limit is stored: {body}");

    let status = server.url(&format!("{CT}/edge/status"));
    let (code, body) = send(merge(
        &c,
        status.clone(),
        &json!({"status": {"labelSelector": "app=x"}}),
    ))
    .await;
    too_large(code, &body, limit);
    let (code, mut current) = send(c.get(url.clone())).await;
    assert_eq!(code, 200);
    current["status"] = json!({"labelSelector": "a=b"});
    let (code, body) = send(c.put(status).json(&current)).await;
    too_large(code, &body, limit);

    let (code, stored) = send(c.get(url)).await;
    assert_eq!(code, 200);
    assert_eq!(stored["spec"]["replicas"], 9);
    assert!(stored.get("status").is_none(), "{}", stored["status"]);
}

#[tokio::test]
async fn max_object_size_embedded_refuses_every_write_path() {
    let server = Server::start();
    patches_grow_past_default_limit(&server).await;
    let small = Server::start_with(&["--max-object-size", "20000"]);
    subresources_respect_limit(&small, 20_000).await;
}

#[tokio::test]
async fn max_object_size_etcd_refuses_every_write_path() {
    let etcd = etcd::Etcd::start();
    let server = Server::start_with(&["--etcd-servers", &etcd.endpoint]);
    patches_grow_past_default_limit(&server).await;
    let small = Server::start_with(&[
        "--etcd-servers",
        &etcd.endpoint,
        "--etcd-prefix",
        "/small",
        "--max-object-size",
        "20000",
    ]);
    subresources_respect_limit(&small, 20_000).await;
}
