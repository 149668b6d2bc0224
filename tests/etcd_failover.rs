//! etcd outages: requests fail fast with 503/504, readyz goes red while livez and
//! discovery stay up, and after etcd returns every acknowledged write is there and every
//! watcher saw every revision in order exactly once (or got 410 and relisted).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;
#[path = "common/etcd.rs"]
mod etcd;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{Duration, Instant};

use common::Server;
use futures::StreamExt;
use serde_json::{Value, json};

const CT: &str = "/apis/stable.example.com/v1/namespaces/default/crontabs";

fn crontab(name: &str) -> Value {
    json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab", "metadata": {"name": name}})
}

/// What a watcher saw: its model (name -> resourceVersion: the last relist's items with
/// every later event applied), the names listed by its last relist and the creates seen
/// after it, and its event revisions in order.
#[derive(Default)]
struct Seen {
    model: BTreeMap<String, i64>,
    listed: Vec<String>,
    added: Vec<String>,
    revisions: Vec<i64>,
    relists: usize,
}

/// Lists the collection until the server answers with a list (etcd may still be away).
async fn relist(client: &reqwest::Client, base: &str) -> Value {
    common::eventually(Duration::from_secs(60), "a relist", || async {
        let resp = client.get(format!("{base}{CT}")).send().await.ok()?;
        if !resp.status().is_success() {
            return None;
        }
        resp.json().await.ok()
    })
    .await
}

/// A watcher that keeps a model, records the order of events and relists on 410;
/// `progress` is the revision it has caught up to.
async fn watcher(
    client: reqwest::Client,
    base: String,
    mut rv: String,
    stop: tokio::sync::watch::Receiver<bool>,
    progress: Arc<AtomicI64>,
) -> Seen {
    let mut seen = Seen::default();
    while !*stop.borrow() {
        let url = format!("{base}{CT}?watch=1&resourceVersion={rv}&timeoutSeconds=120");
        let Ok(resp) = client
            .get(url)
            .timeout(Duration::from_secs(180))
            .send()
            .await
        else {
            tokio::time::sleep(Duration::from_millis(200)).await;
            continue;
        };
        let mut stream = resp.bytes_stream();
        let mut buf = Vec::new();
        let mut stop_rx = stop.clone();
        loop {
            let chunk = tokio::select! {
                c = stream.next() => c,
                _ = stop_rx.wait_for(|s| *s) => return seen,
            };
            let Some(Ok(chunk)) = chunk else { break };
            buf.extend_from_slice(&chunk);
            while let Some(pos) = buf.iter().position(|b| *b == b'\n') {
                let line: Vec<u8> = buf.drain(..=pos).collect();
                let event: Value = serde_json::from_slice(&line).unwrap();
                if event["type"] == "ERROR" {
                    assert_eq!(event["object"]["code"], 410, "{event}");
                    seen.relists += 1;
                    let list = relist(&client, &base).await;
                    rv = common::resource_version(&list);
                    seen.listed = common::item_names(&list);
                    seen.added.clear();
                    seen.model = list["items"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|i| {
                            let name = i["metadata"]["name"].as_str().unwrap().to_string();
                            (name, common::resource_version(i).parse().unwrap())
                        })
                        .collect();
                    progress.fetch_max(rv.parse().unwrap(), Ordering::SeqCst);
                    continue;
                }
                let o = &event["object"];
                let name = o["metadata"]["name"].as_str().unwrap().to_string();
                let erv: i64 = common::resource_version(o).parse().unwrap();
                rv = erv.to_string();
                progress.fetch_max(erv, Ordering::SeqCst);
                seen.revisions.push(erv);
                match event["type"].as_str().unwrap() {
                    "ADDED" => {
                        seen.added.push(name.clone());
                        assert_eq!(seen.model.insert(name, erv), None, "ADDED twice: {event}");
                    }
                    "DELETED" => assert!(seen.model.remove(&name).is_some(), "{event}"),
                    _ => assert!(seen.model.insert(name, erv).is_some(), "{event}"),
                }
            }
        }
    }
    seen
}

async fn code(req: reqwest::RequestBuilder) -> u16 {
    match req.send().await {
        Ok(r) => r.status().as_u16(),
        Err(_) => 0,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn etcd_restart_loses_no_acknowledged_write_or_watch_event() {
    let mut etcd = etcd::Etcd::start();
    let server = Server::start_with(&[
        "--etcd-servers",
        &etcd.endpoint,
        "--request-timeout",
        "2s",
        "--etcd-dial-timeout",
        "2s",
    ]);
    let c = server.client();
    let base = server.url("");
    let list: Value = common::json_of(c.get(server.url(CT))).await;
    let start_rv = common::resource_version(&list);
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let progress: Vec<_> = (0..3).map(|_| Arc::new(AtomicI64::new(0))).collect();
    let watchers: Vec<_> = progress
        .iter()
        .map(|p| {
            tokio::spawn(watcher(
                c.clone(),
                base.clone(),
                start_rv.clone(),
                stop_rx.clone(),
                p.clone(),
            ))
        })
        .collect();

    let mut acknowledged = Vec::new();
    for i in 0..10 {
        let name = format!("before-{i}");
        if code(c.post(server.url(CT)).json(&crontab(&name))).await == 201 {
            acknowledged.push(name);
        }
    }
    assert_eq!(acknowledged.len(), 10);

    etcd.stop();
    // Requests fail fast with a Status, never hang past the request timeout.
    let started = Instant::now();
    let resp = c
        .post(server.url(CT))
        .json(&crontab("during"))
        .send()
        .await
        .unwrap();
    let during = resp.status().as_u16();
    let status: Value = resp.json().await.unwrap();
    assert!(during == 503 || during == 504, "{during}: {status}");
    assert_eq!(status["kind"], "Status");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "took {:?}",
        started.elapsed()
    );
    // The 5xx is logged with what the request was and who sent it.
    let line = server.log.wait_for(
        &["request failed", &format!("code={during}")],
        Duration::from_secs(10),
    );
    for part in [
        "verb=\"create\"",
        "resource=crontabs",
        "namespace=default",
        "user=dev-admin",
        "error=etcd create",
    ] {
        assert!(line.contains(part), "{part} not in {line}");
    }
    // Readiness red, liveness and discovery fine.
    assert_eq!(code(c.get(server.url("/readyz"))).await, 500);
    assert_eq!(code(c.get(server.url("/livez"))).await, 200);
    assert_eq!(
        code(c.get(server.url("/apis/stable.example.com/v1"))).await,
        200
    );

    etcd.restart();
    let deadline = Instant::now() + Duration::from_secs(60);
    while code(c.get(server.url("/readyz"))).await != 200 {
        assert!(Instant::now() < deadline, "readyz never went green again");
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    for i in 0..10 {
        let name = format!("after-{i}");
        if code(c.post(server.url(CT)).json(&crontab(&name))).await == 201 {
            acknowledged.push(name);
        }
    }
    assert_eq!(acknowledged.len(), 20);

    let list: Value = common::json_of(c.get(server.url(CT))).await;
    let mut stored = common::item_names(&list);
    for name in &acknowledged {
        assert!(
            stored.contains(name),
            "acknowledged {name} lost: {stored:?}"
        );
    }
    // The create refused while etcd was down is not there either.
    stored.sort();
    let mut expected = acknowledged.clone();
    expected.sort();
    assert_eq!(stored, expected);
    // Wait for every watcher to reach the last write, then stop them.
    let last = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| common::resource_version(i).parse::<i64>().unwrap())
        .max()
        .unwrap();
    let progress = &progress;
    common::eventually(
        Duration::from_secs(60),
        "watchers to catch up",
        || async move {
            progress
                .iter()
                .all(|p| p.load(Ordering::SeqCst) >= last)
                .then_some(())
        },
    )
    .await;
    stop_tx.send(true).unwrap();
    let listed: BTreeMap<String, i64> = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            let name = i["metadata"]["name"].as_str().unwrap().to_string();
            (name, common::resource_version(i).parse().unwrap())
        })
        .collect();
    for w in watchers {
        let seen = w.await.unwrap();
        let revs = &seen.revisions;
        assert!(
            revs.windows(2).all(|w| w[0] < w[1]),
            "events out of order or duplicated: {revs:?}"
        );
        // Whether or not it relisted: every create not in its last list was seen after
        // it exactly once and in order (no gap), and the model is the stored state.
        let expected: Vec<&str> = acknowledged
            .iter()
            .map(String::as_str)
            .filter(|n| !seen.listed.iter().any(|l| l == n))
            .collect();
        assert_eq!(
            seen.added, expected,
            "every create after the last relist ({} relists, listed {:?}) seen exactly once, in order",
            seen.relists, seen.listed
        );
        assert_eq!(
            seen.model, listed,
            "the watcher's model is the stored state"
        );
    }
}
