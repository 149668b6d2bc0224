//! Encode once: an event going to many plain watchers is serialized once, and every
//! watcher gets it (the serialization and delivery counters of `/metrics`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;

use std::time::Duration;

use common::Server;
use futures::StreamExt;
use serde_json::{Value, json};

const CT: &str = "/apis/stable.example.com/v1/namespaces/default/crontabs";
const RESOURCE: &str = "crontabs.stable.example.com";
const WATCHERS: usize = 20;
const WRITES: usize = 10;

/// The value of a counter series of `/metrics` for the crontabs resource (0 if absent).
async fn counter(server: &Server, name: &str) -> u64 {
    let text = server
        .client()
        .get(server.url("/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let series = format!("{name}{{resource=\"{RESOURCE}\"}} ");
    text.lines()
        .find_map(|l| l.strip_prefix(&series))
        .map_or(0, |v| v.trim().parse().unwrap())
}

/// The names of the first `count` events of a watch, in order.
async fn names(resp: reqwest::Response, count: usize) -> Vec<String> {
    let mut stream = resp.bytes_stream();
    let (mut buf, mut out) = (Vec::new(), Vec::new());
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while out.len() < count {
        match tokio::time::timeout_at(deadline, stream.next()).await {
            Ok(Some(Ok(chunk))) => buf.extend_from_slice(&chunk),
            other => panic!("watch ended early after {out:?}: {other:?}"),
        }
        while let Some(pos) = buf.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = buf.drain(..=pos).collect();
            let event: Value = serde_json::from_slice(&line).unwrap();
            assert_eq!(event["type"], "ADDED", "{event}");
            out.push(
                event["object"]["metadata"]["name"]
                    .as_str()
                    .unwrap()
                    .to_string(),
            );
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watch_many_plain_watchers_event_encoded_once() {
    let server = Server::start();
    let c = server.client();
    let list: Value = common::json_of(c.get(server.url(CT))).await;
    let rv = common::resource_version(&list);
    let mut watches = Vec::new();
    for _ in 0..WATCHERS {
        let url = server.url(&format!("{CT}?watch=1&resourceVersion={rv}"));
        let resp = c.get(url).send().await.unwrap();
        assert_eq!(resp.status(), 200);
        watches.push(tokio::spawn(names(resp, WRITES)));
    }
    let encoded_before = counter(&server, "crd_apiserver_watch_event_encodings_total").await;
    let sent_before = counter(&server, "apiserver_watch_events_total").await;
    let mut written = Vec::new();
    for i in 0..WRITES {
        let name = format!("e{i}");
        let body = json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
            "metadata": {"name": name}, "spec": {"cronSpec": "* * * * *"}});
        let resp = c.post(server.url(CT)).json(&body).send().await.unwrap();
        assert_eq!(resp.status(), 201);
        written.push(name);
    }
    for watch in watches {
        assert_eq!(
            watch.await.unwrap(),
            written,
            "every watcher gets every event in order"
        );
    }
    let sent = counter(&server, "apiserver_watch_events_total").await - sent_before;
    let encoded =
        counter(&server, "crd_apiserver_watch_event_encodings_total").await - encoded_before;
    assert_eq!(sent, (WATCHERS * WRITES) as u64, "events sent");
    assert_eq!(
        encoded, WRITES as u64,
        "one serialization per event for all watchers"
    );
}
