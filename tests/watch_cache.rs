//! The watch cache over HTTPS against a spawned server, on the embedded store and on a real
//! etcd: the event window and 410, consistent reads that wait for the cache, reads at
//! resourceVersion 0 and in the future, slow-watcher termination, events encoded once for
//! all watchers, pagination across cache and store, and initial events with bookmarks.
//! Shared helpers live here; the tests in `tests/watch_cache/`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;
#[path = "common/etcd.rs"]
mod etcd;

#[path = "watch_cache/encode.rs"]
mod encode;
#[path = "watch_cache/paging.rs"]
mod paging;
#[path = "watch_cache/reads.rs"]
mod reads;
#[path = "watch_cache/slow.rs"]
mod slow;
#[path = "watch_cache/window.rs"]
mod window;

use std::time::Duration;

use common::Server;
use futures::StreamExt;
use serde_json::{Value, json};

pub use common::crontabs::{CT, create, crontab};
/// The `resource` label of the crontab metrics.
pub const RESOURCE: &str = "crontabs.stable.example.com";
/// How long a test waits for something the server does on its own.
pub const PATIENCE: Duration = Duration::from_secs(20);

/// A server with the example CRDs on `etcd`, plus `extra` flags.
pub fn on_etcd(etcd: &etcd::Etcd, extra: &[&str]) -> Server {
    let mut flags = vec!["--etcd-servers", etcd.endpoint.as_str()];
    flags.extend_from_slice(extra);
    Server::start_with(&flags)
}

/// Waits for `/readyz` (the watch cache has listed every resource): events written before
/// the cache listed are not in its window, and tests count on them being there.
pub async fn ready(server: &Server) {
    let c = server.client();
    common::eventually(PATIENCE, "/readyz", || async {
        let resp = c.get(server.url("/readyz")).send().await.ok()?;
        resp.status().is_success().then_some(())
    })
    .await;
}

/// Sets `spec.replicas` of a CronTab; returns the stored object.
pub async fn update(server: &Server, c: &reqwest::Client, name: &str, replicas: i64) -> Value {
    let resp = c
        .patch(server.url(&format!("{CT}/{name}")))
        .header("content-type", "application/merge-patch+json")
        .body(json!({"spec": {"replicas": replicas}}).to_string())
        .send()
        .await
        .unwrap();
    let code = resp.status().as_u16();
    let body: Value = resp.json().await.unwrap();
    assert_eq!(code, 200, "update {name}: {body}");
    body
}

/// GETs `path`: the status code and the JSON body.
pub async fn get(server: &Server, c: &reqwest::Client, path: &str) -> (u16, Value) {
    let resp = c.get(server.url(path)).send().await.unwrap();
    let code = resp.status().as_u16();
    (code, resp.json().await.unwrap_or(Value::Null))
}

/// GETs `path`, which must answer 200.
pub async fn get_ok(server: &Server, c: &reqwest::Client, path: &str) -> Value {
    let (code, body) = get(server, c, path).await;
    assert_eq!(code, 200, "GET {path}: {body}");
    body
}

/// `metadata.resourceVersion` as a number.
pub fn rv(value: &Value) -> i64 {
    common::resource_version(value).parse().unwrap()
}

/// `(name, resourceVersion)` of each item of a list.
pub fn items(list: &Value) -> Vec<(String, i64)> {
    list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (i["metadata"]["name"].as_str().unwrap().to_string(), rv(i)))
        .collect()
}

/// The value of the crontabs sample of a counter in `/metrics`.
pub async fn metric(server: &Server, name: &str) -> u64 {
    sample(server, &format!("{name}{{resource=\"{RESOURCE}\"}}")).await
}

/// The value of one series in `/metrics` (0 when absent).
pub async fn sample(server: &Server, series: &str) -> u64 {
    let text = server.metrics().await;
    let series = format!("{series} ");
    text.lines()
        .find_map(|l| l.strip_prefix(&series))
        .map_or(0, |v| v.trim().parse().unwrap())
}

/// What a watch stream yields next.
#[derive(Debug)]
pub enum Next {
    Event(Value),
    /// The server closed the stream.
    End,
    /// Nothing arrived in time.
    Quiet,
}

/// A watch response read line by line.
pub struct Events {
    stream: futures::stream::BoxStream<'static, reqwest::Result<bytes::Bytes>>,
    buf: Vec<u8>,
}

impl Events {
    /// Opens a watch (`query` without `watch=1`); the server must accept it.
    pub async fn open(server: &Server, c: &reqwest::Client, query: &str) -> Events {
        let resp = c
            .get(server.url(&format!("{CT}?watch=1&{query}")))
            // Watches here outlive the client's 30 s default only when a test is slow.
            .timeout(Duration::from_secs(120))
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status().as_u16(), 200, "watch {query}");
        Events {
            stream: resp.bytes_stream().boxed(),
            buf: Vec::new(),
        }
    }

    /// The next event, the end of the stream, or quiet after `within`.
    pub async fn next(&mut self, within: Duration) -> Next {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            if let Some(pos) = self.buf.iter().position(|b| *b == b'\n') {
                let line: Vec<u8> = self.buf.drain(..=pos).collect();
                return Next::Event(serde_json::from_slice(&line).unwrap());
            }
            match tokio::time::timeout_at(deadline, self.stream.next()).await {
                Ok(Some(Ok(chunk))) => self.buf.extend_from_slice(&chunk),
                Ok(Some(Err(_)) | None) => return Next::End,
                Err(_) => return Next::Quiet,
            }
        }
    }

    /// The next `n` events; fails when the stream ends or stays quiet before.
    pub async fn take(&mut self, n: usize) -> Vec<Value> {
        let mut out = Vec::with_capacity(n);
        while out.len() < n {
            match self.next(PATIENCE).await {
                Next::Event(e) => out.push(e),
                other => panic!("{other:?} after {} of {n} events: {out:?}", out.len()),
            }
        }
        out
    }
}

/// `(type, name, resourceVersion)` of an event.
pub fn summary(event: &Value) -> (String, String, i64) {
    let o = &event["object"];
    (
        event["type"].as_str().unwrap().to_string(),
        o["metadata"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
        o["metadata"]["resourceVersion"]
            .as_str()
            .map_or(0, |r| r.parse().unwrap()),
    )
}
