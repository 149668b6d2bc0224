//! A flood of idle anonymous TLS connections past the connection limit displaces its own
//! oldest members, never an established client's streams: an admin's HTTP/1.1 and HTTP/2
//! watches keep receiving events, and the probes keep answering.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;

use std::time::Duration;

use bytes::Bytes;
use common::Server;
use common::raw::{connector, handshake, livez_answers_within_a_second, raise_open_files_limit};
use futures::{Stream, StreamExt};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const CT: &str = "/apis/stable.example.com/v1/namespaces/default/crontabs";
const LIMIT: usize = 16;
const FLOOD: usize = 64;

/// An admin client speaking only HTTP/1.1, or only HTTP/2.
fn admin(server: &Server, h2: bool) -> reqwest::Client {
    let mut tls = common::tls_config(&server.pki, Some(("admin.crt", "admin.key")));
    let builder = reqwest::Client::builder().timeout(Duration::from_secs(60));
    let builder = match h2 {
        true => {
            tls.alpn_protocols = vec![b"h2".to_vec()];
            builder.http2_prior_knowledge()
        }
        false => {
            tls.alpn_protocols = vec![b"http/1.1".to_vec()];
            builder.http1_only()
        }
    };
    builder.use_preconfigured_tls(tls).build().unwrap()
}

/// A watch on the crontabs of `default`, opened with `client` over `version`.
async fn watch(
    server: &Server,
    client: &reqwest::Client,
    version: http::Version,
) -> impl Stream<Item = reqwest::Result<Bytes>> + Unpin {
    let resp = client
        .get(server.url(&format!("{CT}?watch=1&timeoutSeconds=600")))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.version(), version);
    resp.bytes_stream()
}

/// The next event of a watch; fails if the watch ends or sends nothing for 15 s.
async fn next_event(events: &mut (impl Stream<Item = reqwest::Result<Bytes>> + Unpin)) -> Value {
    let mut line = Vec::new();
    loop {
        let chunk = tokio::time::timeout(Duration::from_secs(15), events.next())
            .await
            .expect("no event within 15 s")
            .expect("the watch ended")
            .expect("the watch broke");
        line.extend_from_slice(&chunk);
        if let Some(end) = line.iter().position(|b| *b == b'\n') {
            return serde_json::from_slice(&line[..end]).unwrap();
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_anonymous_flood_past_connection_limit_http1_and_h2_watches_keep_streaming() {
    raise_open_files_limit(FLOOD as u64 + 512);
    let server = Server::start_with(&[&format!("--max-connections={LIMIT}")]);
    let (h1, h2) = (admin(&server, false), admin(&server, true));
    let mut h1_events = watch(&server, &h1, http::Version::HTTP_11).await;
    let mut h2_events = watch(&server, &h2, http::Version::HTTP_2).await;

    // Anonymous connections that finish their handshake and say nothing, four times
    // the limit: each one past it needs an older one's slot.
    let tls = connector(&server, &[b"http/1.1"]);
    let mut flood = Vec::with_capacity(FLOOD);
    for _ in 0..FLOOD {
        let conn = tokio::time::timeout(Duration::from_secs(20), handshake(&server, &tls))
            .await
            .expect("handshake within 20 s")
            .unwrap();
        flood.push(conn);
    }
    // The flood's oldest members made room for its newest: the limit was passed.
    let closed = futures::future::join_all(flood.iter_mut().map(|conn| async move {
        let mut buf = [0u8; 64];
        let read = tokio::time::timeout(Duration::from_millis(500), conn.read(&mut buf)).await;
        matches!(read, Ok(Ok(0)) | Ok(Err(_)))
    }))
    .await
    .into_iter()
    .filter(|closed| *closed)
    .count();
    assert!(
        closed >= FLOOD - LIMIT,
        "only {closed} of {FLOOD} flood connections were closed"
    );

    let created = server
        .client()
        .post(server.url(CT))
        .json(
            &json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
            "metadata": {"name": "after-flood"}, "spec": {"cronSpec": "* * * * */5"}}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(created.status(), 201);
    let created: Value = created.json().await.unwrap();
    for (protocol, events) in [("HTTP/1.1", &mut h1_events), ("HTTP/2", &mut h2_events)] {
        let event = next_event(events).await;
        assert_eq!(event["type"], "ADDED", "{protocol}: {event}");
        assert_eq!(
            event["object"]["metadata"]["name"], "after-flood",
            "{protocol}"
        );
        assert_eq!(
            event["object"]["spec"]["cronSpec"], "* * * * */5",
            "{protocol}"
        );
        assert_eq!(
            event["object"]["metadata"]["uid"], created["metadata"]["uid"],
            "{protocol}"
        );
    }
    livez_answers_within_a_second(&server).await;
    drop(flood);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_slot_streaming_newcomer_waits_then_closed_watches_kept() {
    let server = Server::start_with(&["--max-connections=2", "--tls-handshake-timeout=2s"]);
    let (h1, h2) = (admin(&server, false), admin(&server, true));
    let mut h1_events = watch(&server, &h1, http::Version::HTTP_11).await;
    let mut h2_events = watch(&server, &h2, http::Version::HTTP_2).await;

    // Both slots carry a watch: nobody may be evicted, so the newcomer waits within its
    // handshake deadline and is then closed without an answer.
    let mut newcomer = handshake(&server, &connector(&server, &[b"http/1.1"]))
        .await
        .unwrap();
    let started = std::time::Instant::now();
    newcomer
        .write_all(b"GET /livez HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    let mut answer = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(20), newcomer.read_to_end(&mut answer))
        .await
        .expect("the newcomer was closed");
    assert!(
        matches!(read, Ok(0) | Err(_)),
        "{read:?}: {}",
        String::from_utf8_lossy(&answer)
    );
    assert!(answer.is_empty(), "{}", String::from_utf8_lossy(&answer));
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_millis(1500),
        "closed after {waited:?}"
    );

    // The h2 client's own connection still has room for a create next to its watch.
    let created = h2
        .post(server.url(CT))
        .json(
            &json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
            "metadata": {"name": "while-full"}}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(created.status(), 201);
    for (protocol, events) in [("HTTP/1.1", &mut h1_events), ("HTTP/2", &mut h2_events)] {
        let event = next_event(events).await;
        assert_eq!(event["type"], "ADDED", "{protocol}: {event}");
        assert_eq!(
            event["object"]["metadata"]["name"], "while-full",
            "{protocol}"
        );
    }
}
