//! Durability: restarting on the same data dir keeps every object, and resourceVersions
//! keep increasing; SIGTERM ends the process cleanly.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;

use common::Server;
use serde_json::{Value, json};

const CT: &str = "/apis/stable.example.com/v1/namespaces/default/crontabs";

#[tokio::test]
async fn restart_same_data_dir_keeps_objects_and_revisions_increase() {
    let server = Server::start();
    let c = server.client();
    let mut last_rv = 0u64;
    for i in 0..5 {
        let body = json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
                          "metadata": {"name": format!("o{i}")}, "spec": {"replicas": i}});
        let created: Value = common::json_of(c.post(server.url(CT)).json(&body)).await;
        last_rv = created["metadata"]["resourceVersion"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap();
    }
    let server = server.restart();
    let c = server.client();
    let list: Value = common::json_of(c.get(server.url(CT))).await;
    let names = common::item_names(&list);
    assert_eq!(names, ["o0", "o1", "o2", "o3", "o4"]);
    assert_eq!(list["items"][3]["spec"]["replicas"], 3);
    let body = json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab", "metadata": {"name": "after"}});
    let created: Value = common::json_of(c.post(server.url(CT)).json(&body)).await;
    let rv: u64 = created["metadata"]["resourceVersion"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        rv > last_rv,
        "resourceVersion {rv} after restart must exceed {last_rv}"
    );
}

#[tokio::test]
async fn sigterm_ends_open_watch_and_exits_zero() {
    let mut server = Server::start();
    let c = server.client();
    let resp = c
        .get(server.url(&format!("{CT}?watch=1")))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    let reader = tokio::spawn(async move { resp.text().await });
    let status = server.terminate();
    assert!(status.success(), "exit status {status:?}");
    let body = reader.await.unwrap();
    assert!(body.is_ok(), "the watch stream ended cleanly: {body:?}");
}
