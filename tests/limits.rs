//! What strangers and users can make the server spend: idle TLS floods and h2 peers that
//! stop reading do not lock out the health probes, handshakes and idle connections end on their deadlines, requests
//! past the in-flight limit get kube's 429 while watches stream, and a body that does not
//! arrive within `--request-timeout` gets kube's 504 and frees its slot.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;

use std::time::{Duration, Instant};

use bytes::Bytes;
use common::Server;
use common::raw::{connector, handshake, livez_answers_within_a_second, raise_open_files_limit};
use futures::StreamExt;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;

const CT: &str = "/apis/stable.example.com/v1/namespaces/default/crontabs";
/// Anonymous users may do anything: the in-flight limit is tested on a non-master.
const ANONYMOUS_ALLOWED: &str =
    "--authorization-always-allow-groups=system:masters,system:unauthenticated";

fn crontab(name: &str) -> Value {
    json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab", "metadata": {"name": name}})
}

/// Reads until the server closes the connection; how long that took.
async fn closed_after(mut conn: impl AsyncReadExt + Unpin, within: Duration) -> Duration {
    let started = Instant::now();
    let mut buf = [0u8; 4096];
    loop {
        match tokio::time::timeout(within, conn.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => return started.elapsed(),
            Ok(Ok(_)) => continue,
            Err(_) => panic!("connection still open after {within:?}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_tls_flood_past_connection_limit_livez_answers_within_a_second() {
    const FLOOD: usize = 4200;
    raise_open_files_limit(FLOOD as u64 + 512);
    let server = Server::start();
    let tls = connector(&server, &[b"http/1.1"]);
    // Completed handshakes, then silence: more than the server's 4096 connection slots.
    let flood: Vec<_> =
        futures::stream::iter(0..FLOOD)
            .map(|_| {
                let tls = tls.clone();
                let server = &server;
                async move {
                    tokio::time::timeout(Duration::from_secs(20), handshake(server, &tls)).await
                }
            })
            .buffer_unordered(32)
            .filter_map(|r| async move { r.ok().and_then(Result::ok) })
            .collect()
            .await;
    assert!(
        flood.len() >= 4000,
        "only {} of {FLOOD} handshakes completed",
        flood.len()
    );
    // Each probe on a new connection, as a kubelet or load balancer would.
    livez_answers_within_a_second(&server).await;
    // The server still holds the flood (but for the oldest few, evicted to make room):
    // a read that does not end within the wait is an open connection.
    let mut flood = flood;
    let open = futures::future::join_all(flood.iter_mut().map(|conn| async move {
        let mut buf = [0u8; 64];
        tokio::time::timeout(Duration::from_millis(500), conn.read(&mut buf))
            .await
            .is_err()
    }))
    .await
    .into_iter()
    .filter(|open| *open)
    .count();
    assert!(open >= 4000, "only {open} flood connections still open");
}

/// One h2 connection that stops reading: a zero stream window, and a `/livez` whose
/// response head arrived but whose body can never be sent. Kept open by its driver.
async fn stalled_h2_livez(
    server: &Server,
    tls: &TlsConnector,
) -> Option<(h2::client::SendRequest<Bytes>, h2::client::ResponseFuture)> {
    let conn = handshake(server, tls).await.ok()?;
    let (client, connection) = h2::client::Builder::new()
        .initial_window_size(0)
        .handshake::<_, Bytes>(conn)
        .await
        .ok()?;
    tokio::spawn(connection);
    let mut client = client.ready().await.ok()?;
    let request = http::Request::get(server.url("/livez")).body(()).unwrap();
    let (response, _) = client.send_request(request, true).ok()?;
    Some((client, response))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn h2_zero_window_flood_past_connection_limit_livez_answers_within_a_second() {
    const FLOOD: usize = 4200;
    raise_open_files_limit(FLOOD as u64 + 512);
    let server = Server::start();
    let tls = connector(&server, &[b"h2"]);
    // Every connection has a request whose response waits to be sent forever: none is
    // idle, so only connections whose peer has read nothing for the stall grace being
    // evictable saves the probes (newcomers past the limit wait for the oldest to stall).
    let flood: Vec<_> = futures::stream::iter(0..FLOOD)
        .map(|_| {
            let tls = tls.clone();
            let server = &server;
            async move {
                let stalled = stalled_h2_livez(server, &tls);
                tokio::time::timeout(Duration::from_secs(20), stalled).await
            }
        })
        .buffer_unordered(32)
        .filter_map(|r| async move { r.ok().flatten() })
        .collect()
        .await;
    assert!(
        flood.len() >= 4000,
        "only {} of {FLOOD} stalled h2 requests sent",
        flood.len()
    );
    livez_answers_within_a_second(&server).await;
    drop(flood);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn silent_tcp_flood_past_handshake_limit_livez_answers_within_a_second() {
    const FLOOD: usize = 1500;
    raise_open_files_limit(FLOOD as u64 + 512);
    let server = Server::start();
    // More connections that never send a ClientHello than the 1024 handshake slots.
    let mut flood = Vec::with_capacity(FLOOD);
    for _ in 0..FLOOD {
        flood.push(TcpStream::connect(server.addr).await.unwrap());
    }
    livez_answers_within_a_second(&server).await;
    drop(flood);
}

#[tokio::test]
async fn handshake_never_started_closed_at_deadline() {
    let server = Server::start_with(&["--tls-handshake-timeout=1s"]);
    let silent = TcpStream::connect(server.addr).await.unwrap();
    let took = closed_after(silent, Duration::from_secs(15)).await;
    assert!(took >= Duration::from_millis(900), "closed after {took:?}");
    // A slow ClientHello does not stretch the deadline either.
    let mut slow = TcpStream::connect(server.addr).await.unwrap();
    let started = Instant::now();
    slow.write_all(&[0x16, 0x03, 0x01]).await.unwrap();
    let took = closed_after(slow, Duration::from_secs(15)).await;
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "closed after {took:?}"
    );
}

#[tokio::test]
async fn idle_http1_and_h2_connections_closed_after_idle_timeout() {
    let server = Server::start_with(&["--connection-idle-timeout=1s"]);
    // HTTP/1.1: one keep-alive request, then nothing.
    let mut h1 = handshake(&server, &connector(&server, &[b"http/1.1"]))
        .await
        .unwrap();
    h1.write_all(b"GET /livez HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    let mut head = [0u8; 64];
    let n = h1.read(&mut head).await.unwrap();
    assert!(head[..n].starts_with(b"HTTP/1.1 200"), "{:?}", &head[..n]);
    let took = closed_after(h1, Duration::from_secs(15)).await;
    assert!(took >= Duration::from_millis(900), "closed after {took:?}");
    // h2: the preface and SETTINGS, then nothing (the server's GOAWAY is read and dropped).
    let mut h2 = handshake(&server, &connector(&server, &[b"h2"]))
        .await
        .unwrap();
    assert_eq!(h2.get_ref().1.alpn_protocol(), Some(&b"h2"[..]));
    h2.write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00")
        .await
        .unwrap();
    let took = closed_after(h2, Duration::from_secs(15)).await;
    assert!(took >= Duration::from_millis(900), "closed after {took:?}");
}

/// A body that sends its first part and then waits for `rest`.
fn held_body(
    first: &'static str,
    rest: tokio::sync::oneshot::Receiver<&'static str>,
) -> reqwest::Body {
    let parts = futures::stream::once(async move { Ok::<_, std::io::Error>(Bytes::from(first)) })
        .chain(futures::stream::once(async move {
            Ok(Bytes::from(rest.await.unwrap_or_default()))
        }));
    reqwest::Body::wrap_stream(parts)
}

async fn status_of(resp: reqwest::Response) -> (u16, Value) {
    let code = resp.status().as_u16();
    (code, resp.json().await.unwrap_or(Value::Null))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mutating_past_inflight_limit_429_while_watch_streams_and_probes_answer() {
    let server = Server::start_with(&[
        "--max-requests-inflight=1",
        "--max-mutating-requests-inflight=1",
        ANONYMOUS_ALLOWED,
    ]);
    let admin = server.client();
    let anonymous = server.anonymous();
    let watch = admin
        .get(server.url(&format!("{CT}?watch=1")))
        .send()
        .await
        .unwrap();
    assert_eq!(watch.status(), 200);
    let mut events = watch.bytes_stream();

    // A create whose body stops half-way holds the one mutating slot.
    let (finish, rest) = tokio::sync::oneshot::channel();
    let held = tokio::spawn(
        anonymous
            .post(server.url(CT))
            .header("content-type", "application/json")
            .body(held_body(
                r#"{"apiVersion": "stable.example.com/v1", "kind": "CronTab", "#,
                rest,
            ))
            .send(),
    );
    // The held create is counted in kube's gauge once it has its slot; polling with
    // mutating requests instead would race it for the one slot.
    common::eventually(Duration::from_secs(30), "the held create's slot", || {
        let req = admin.get(server.url("/metrics"));
        async move {
            let text = req.send().await.unwrap().text().await.unwrap();
            text.contains("apiserver_current_inflight_requests{request_kind=\"mutating\"} 1")
                .then_some(())
        }
    })
    .await;
    let refused = anonymous
        .delete(server.url(&format!("{CT}/nothing")))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 429);
    assert_eq!(refused.headers()["retry-after"], "1");
    let (_, status) = status_of(refused).await;
    assert_eq!(
        status,
        json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": "Too many requests, please try again later.",
            "reason": "TooManyRequests", "details": {"retryAfterSeconds": 1}, "code": 429})
    );

    // Meanwhile: probes, reads (their own budget), and a system:masters write, which the
    // watch opened earlier receives.
    let started = Instant::now();
    let livez = anonymous.get(server.url("/livez")).send().await.unwrap();
    assert_eq!(livez.status(), 200);
    assert!(started.elapsed() < Duration::from_secs(1));
    let (code, list) = status_of(anonymous.get(server.url(CT)).send().await.unwrap()).await;
    assert_eq!(code, 200, "{list}");
    let (code, created) = status_of(
        admin
            .post(server.url(CT))
            .json(&crontab("by-admin"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(code, 201, "masters are served past the limit: {created}");
    let mut buf = Vec::new();
    let event: Value = loop {
        let chunk = tokio::time::timeout(Duration::from_secs(10), events.next())
            .await
            .expect("watch event")
            .unwrap()
            .unwrap();
        buf.extend_from_slice(&chunk);
        if let Some(pos) = buf.iter().position(|b| *b == b'\n') {
            break serde_json::from_slice(&buf[..pos]).unwrap();
        }
    };
    assert_eq!(event["type"], "ADDED");
    assert_eq!(event["object"]["metadata"]["name"], "by-admin");

    let metrics = admin.get(server.url("/metrics")).send().await.unwrap();
    let metrics = metrics.text().await.unwrap();
    assert!(
        metrics.contains(
            "apiserver_request_terminations_total{verb=\"delete\",group=\"stable.example.com\",resource=\"crontabs\",subresource=\"\",code=\"429\"}"
        ),
        "{metrics}"
    );

    // The held create completes; its slot is free again.
    finish.send(r#""metadata": {"name": "held"}}"#).unwrap();
    let (code, body) = status_of(held.await.unwrap().unwrap()).await;
    assert_eq!(code, 201, "{body}");
    let resp = anonymous
        .delete(server.url(&format!("{CT}/nothing")))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn body_past_request_timeout_504_and_slot_freed() {
    let server = Server::start_with(&[
        "--request-timeout=1s",
        "--max-mutating-requests-inflight=1",
        ANONYMOUS_ALLOWED,
    ]);
    let anonymous = server.anonymous();
    let (_never, rest) = tokio::sync::oneshot::channel();
    let started = Instant::now();
    let resp = tokio::time::timeout(
        Duration::from_secs(20),
        anonymous
            .post(server.url(CT))
            .header("content-type", "application/json")
            .body(held_body(r#"{"apiVersion": "#, rest))
            .send(),
    )
    .await
    .expect("answered without the rest of the body")
    .unwrap();
    assert!(started.elapsed() >= Duration::from_millis(900));
    let (code, status) = status_of(resp).await;
    assert_eq!(code, 504);
    assert_eq!(
        status,
        // kube's timeout filter encodes the bare Status: no apiVersion nor kind.
        json!({"metadata": {}, "status": "Failure", "details": {},
            "message": "Timeout: request did not complete within the allotted timeout",
            "reason": "Timeout", "code": 504})
    );
    let (code, body) = status_of(
        anonymous
            .post(server.url(CT))
            .json(&crontab("after"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(code, 201, "the mutating slot is free again: {body}");
}
