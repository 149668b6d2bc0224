//! CronTabs of a chosen size in the default namespace, created over the wire.

use serde_json::{Value, json};

use super::Server;

/// The default namespace's CronTab collection.
pub const CT: &str = "/apis/stable.example.com/v1/namespaces/default/crontabs";

/// A CronTab whose `spec.image` is `pad` bytes long.
pub fn crontab(name: &str, pad: usize) -> Value {
    json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
        "metadata": {"name": name},
        "spec": {"cronSpec": "* * * * *", "image": "x".repeat(pad), "replicas": 1}})
}

/// Creates a CronTab (201 or the test fails) and returns the stored object.
pub async fn create(server: &Server, c: &reqwest::Client, name: &str, pad: usize) -> Value {
    let resp = c
        .post(server.url(CT))
        .json(&crontab(name, pad))
        .send()
        .await
        .unwrap();
    let code = resp.status().as_u16();
    let body: Value = resp.json().await.unwrap();
    assert_eq!(code, 201, "create {name}: {body}");
    body
}
