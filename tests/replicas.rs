//! Two crd-apiserver replicas over one etcd see each other's writes in gets, lists and
//! watches, and optimistic concurrency holds across them.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;
#[path = "common/etcd.rs"]
mod etcd;

use std::time::Duration;

use common::Server;
use futures::StreamExt;
use serde_json::{Value, json};

const CT: &str = "/apis/stable.example.com/v1/namespaces/default/crontabs";

fn crontab(name: &str) -> Value {
    json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
           "metadata": {"name": name}, "spec": {"replicas": 1}})
}

async fn first_event(resp: reqwest::Response) -> Value {
    let mut stream = resp.bytes_stream();
    let mut buf = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
    loop {
        match tokio::time::timeout_at(deadline, stream.next()).await {
            Ok(Some(Ok(chunk))) => buf.extend_from_slice(&chunk),
            other => panic!("no watch event: {other:?}"),
        }
        if let Some(pos) = buf.iter().position(|b| *b == b'\n') {
            return serde_json::from_slice(&buf[..pos]).unwrap();
        }
    }
}

#[tokio::test]
async fn replicas_share_writes_watches_and_concurrency() {
    let etcd = etcd::Etcd::start();
    let a = Server::start_with(&["--etcd-servers", &etcd.endpoint]);
    let b = Server::start_with(&["--etcd-servers", &etcd.endpoint]);
    let (ca, cb) = (a.client(), b.client());

    // A watch on B sees a create through A.
    let list: Value = common::json_of(cb.get(b.url(CT))).await;
    let rv = common::resource_version(&list);
    let watch = cb
        .get(b.url(&format!("{CT}?watch=1&resourceVersion={rv}")))
        .send()
        .await
        .unwrap();
    let created: Value = common::json_of(ca.post(a.url(CT)).json(&crontab("shared"))).await;
    let event = first_event(watch).await;
    assert_eq!(event["type"], "ADDED");
    assert_eq!(event["object"]["metadata"]["name"], "shared");
    assert_eq!(
        event["object"]["metadata"]["resourceVersion"],
        created["metadata"]["resourceVersion"]
    );

    // Gets and lists through B see it too.
    let got: Value = common::json_of(cb.get(b.url(&format!("{CT}/shared")))).await;
    assert_eq!(got["metadata"]["uid"], created["metadata"]["uid"]);

    // The same resourceVersion updated through A and B at once: one wins, one conflicts.
    let mut via_a = created.clone();
    via_a["spec"]["replicas"] = json!(2);
    let mut via_b = created.clone();
    via_b["spec"]["replicas"] = json!(3);
    let url_a = a.url(&format!("{CT}/shared"));
    let url_b = b.url(&format!("{CT}/shared"));
    let (ra, rb) = tokio::join!(
        ca.put(url_a).json(&via_a).send(),
        cb.put(url_b).json(&via_b).send()
    );
    let mut codes = [ra.unwrap().status().as_u16(), rb.unwrap().status().as_u16()];
    codes.sort();
    assert_eq!(codes, [200, 409]);
}

/// Merge patches, scale writes and finalizer-marking deletes racing through two replicas all
/// land: the write loop retries each on the value its conflict carried.
#[tokio::test]
async fn replicas_racing_patches_all_land() {
    let etcd = etcd::Etcd::start();
    let a = Server::start_with(&["--etcd-servers", &etcd.endpoint]);
    let b = Server::start_with(&["--etcd-servers", &etcd.endpoint]);
    let (ca, cb) = (a.client(), b.client());
    let mut body = crontab("raced");
    body["metadata"]["finalizers"] = json!(["example.com/keep"]);
    let created = ca.post(a.url(CT)).json(&body).send().await.unwrap();
    assert_eq!(created.status(), 201);

    let patch = |i: usize| {
        let (c, s) = if i.is_multiple_of(2) {
            (&ca, &a)
        } else {
            (&cb, &b)
        };
        let labels = json!({"metadata": {"labels": {format!("l{i}"): "x"}}});
        c.patch(s.url(&format!("{CT}/raced")))
            .header("content-type", "application/merge-patch+json")
            .body(labels.to_string())
            .send()
    };
    let scale = cb
        .patch(b.url(&format!("{CT}/raced/scale")))
        .header("content-type", "application/merge-patch+json")
        .body(r#"{"spec":{"replicas":7}}"#)
        .send();
    let delete = ca.delete(a.url(&format!("{CT}/raced"))).send();
    let (patches, scaled, deleted) =
        tokio::join!(futures::future::join_all((0..12).map(patch)), scale, delete);
    for (i, resp) in patches.into_iter().enumerate() {
        assert_eq!(resp.unwrap().status(), 200, "patch {i}");
    }
    assert_eq!(scaled.unwrap().status(), 200);
    assert_eq!(deleted.unwrap().status(), 200, "marked, finalizer pending");

    let got: Value = common::json_of(ca.get(a.url(&format!("{CT}/raced")))).await;
    let labels = got["metadata"]["labels"].as_object().expect("labels");
    assert_eq!(labels.len(), 12, "{labels:?}");
    assert_eq!(got["spec"]["replicas"], 7);
    assert!(got["metadata"]["deletionTimestamp"].is_string(), "{got}");
}
