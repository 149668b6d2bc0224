//! What watches may cost, against the real binary: watchers that stop reading hold the
//! cache's shared bytes within a byte budget and are ended as kube ends a slow watcher
//! (counted in `apiserver_terminated_watchers_total`), while a reading watcher gets every
//! event; and `--max-watches-per-user` answers a user's watch past the limit with the
//! in-flight limit's 429 until one of the user's watches ends, with the open watches in
//! `apiserver_longrunning_requests`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;
#[path = "common/fake_kube.rs"]
mod fake_kube;

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use common::Server;
use fake_kube::Decision;
use fake_kube::delegated::Delegated;
use futures::StreamExt;
use rustls::pki_types::ServerName;
use serde_json::{Value, json};

use common::crontabs::{CT, create};
const TERMINATED: &str =
    "apiserver_terminated_watchers_total{group=\"stable.example.com\",resource=\"crontabs\"}";
/// kube's long-running gauge for watches of the default namespace's crontabs.
const OPEN_WATCHES: &str = "apiserver_longrunning_requests{verb=\"WATCH\",group=\"stable.example.com\",version=\"v1\",resource=\"crontabs\",subresource=\"\",scope=\"namespace\",component=\"apiserver\"}";
/// How long a test waits for something the server does on its own.
const PATIENCE: Duration = Duration::from_secs(20);

/// The value of one series in `/metrics` (0 when absent).
async fn sample(server: &Server, series: &str) -> u64 {
    fake_kube::delegated::sample(&server.metrics().await, series) as u64
}

/// The server's resident memory, from `/proc/<pid>/status`.
fn rss_bytes(server: &Server) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{}/status", server.pid())).unwrap();
    let kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().strip_suffix("kB"))
        .map(|v| v.trim().parse().unwrap())
        .unwrap();
    kib * 1024
}

/// A watch response read line by line.
struct Events {
    stream: futures::stream::BoxStream<'static, reqwest::Result<Bytes>>,
    buf: Vec<u8>,
}

impl Events {
    fn of(resp: reqwest::Response) -> Events {
        Events {
            stream: resp.bytes_stream().boxed(),
            buf: Vec::new(),
        }
    }

    /// The next event, or `None` when the stream ends; fails when it stays quiet.
    async fn next(&mut self) -> Option<Value> {
        loop {
            if let Some(pos) = self.buf.iter().position(|b| *b == b'\n') {
                let line: Vec<u8> = self.buf.drain(..=pos).collect();
                return Some(serde_json::from_slice(&line).unwrap());
            }
            match tokio::time::timeout(PATIENCE, self.stream.next()).await {
                Ok(Some(Ok(chunk))) => self.buf.extend_from_slice(&chunk),
                Ok(Some(Err(_)) | None) => return None,
                Err(_) => panic!("the watch stayed quiet for {PATIENCE:?}"),
            }
        }
    }
}

/// `(type, name)` of an event.
fn summary(event: &Value) -> (String, String) {
    (
        event["type"].as_str().unwrap().to_string(),
        event["object"]["metadata"]["name"]
            .as_str()
            .unwrap()
            .to_string(),
    )
}

/// One h2 connection (the dev admin's certificate) whose streams may each receive
/// `window` bytes and never more: the client never sends WINDOW_UPDATE.
async fn stalled_h2(server: &Server, window: u32) -> h2::client::SendRequest<Bytes> {
    let mut tls = common::tls_config(&server.pki, Some(("admin.crt", "admin.key")));
    tls.alpn_protocols = vec![b"h2".to_vec()];
    let tcp = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let name = ServerName::IpAddress(server.addr.ip().into());
    let conn = tokio_rustls::TlsConnector::from(Arc::new(tls))
        .connect(name, tcp)
        .await
        .unwrap();
    let (client, connection) = h2::client::Builder::new()
        .initial_window_size(window)
        .handshake::<_, Bytes>(conn)
        .await
        .unwrap();
    tokio::spawn(connection);
    client
}

/// Objects of 200 KB (within the default --max-object-size) in one namespace.
const OBJECTS: usize = 300;
const PAD: usize = 200 * 1000;
const STALLED_WATCHES: usize = 25;
const RSS_BOUND: u64 = 64 * 1024 * 1024;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watchers_not_reading_hold_bounded_memory_ended_reader_gets_all() {
    let server = Server::start();
    let admin = server.client();
    futures::stream::iter(0..OBJECTS)
        .for_each_concurrent(4, |i| {
            let (server, admin) = (&server, &admin);
            async move {
                create(server, admin, &format!("big-{i:03}"), PAD).await;
            }
        })
        .await;
    // One list first: what serving the objects costs once is not the watchers' cost.
    let list = admin
        .get(server.url(CT))
        .timeout(Duration::from_secs(300))
        .send()
        .await
        .unwrap();
    assert_eq!(list.status(), 200);
    let listed: Value = list.json().await.unwrap();
    assert_eq!(listed["items"].as_array().unwrap().len(), OBJECTS);
    drop(listed);
    let before = rss_bytes(&server);

    // Watches with initial events on one connection that never reads.
    let mut h2 = stalled_h2(&server, 1024).await;
    let mut watches = Vec::new();
    for _ in 0..STALLED_WATCHES {
        h2 = h2.ready().await.unwrap();
        let request = http::Request::get(server.url(&format!(
            "{CT}?watch=1&resourceVersion=&timeoutSeconds=3600"
        )))
        .body(())
        .unwrap();
        let (response, _) = h2.send_request(request, true).unwrap();
        watches.push(response);
    }
    let mut streams = Vec::new();
    for response in watches {
        let response = tokio::time::timeout(PATIENCE, response)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(response.status(), 200);
        streams.push(response.into_body());
    }

    // The server fills what it will hold, then ends the watchers; its memory never grows
    // past the bound meanwhile.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
    let mut peak = before;
    loop {
        let rss = rss_bytes(&server);
        peak = peak.max(rss);
        assert!(
            peak.saturating_sub(before) <= RSS_BOUND,
            "{STALLED_WATCHES} watchers that do not read took the server from {} MiB to {} MiB",
            before >> 20,
            peak >> 20
        );
        let terminated = sample(&server, TERMINATED).await;
        if terminated >= STALLED_WATCHES as u64 {
            assert_eq!(terminated, STALLED_WATCHES as u64);
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "only {terminated} of {STALLED_WATCHES} watchers that do not read were ended"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }

    // A reader on another connection gets every object, whole, then a new one.
    let resp = admin
        .get(server.url(&format!("{CT}?watch=1&resourceVersion=")))
        .timeout(Duration::from_secs(300))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let mut events = Events::of(resp);
    let mut names = Vec::new();
    for _ in 0..OBJECTS {
        let event = events.next().await.expect("an initial event");
        assert_eq!(
            event["object"]["spec"]["image"].as_str().map(str::len),
            Some(PAD)
        );
        let (kind, name) = summary(&event);
        assert_eq!(kind, "ADDED");
        names.push(name);
    }
    names.sort();
    let want: Vec<_> = (0..OBJECTS).map(|i| format!("big-{i:03}")).collect();
    assert_eq!(names, want);
    create(&server, &admin, "late", 10).await;
    let event = events.next().await.expect("the live event");
    assert_eq!(summary(&event), ("ADDED".into(), "late".into()));
    let peak_after = rss_bytes(&server).max(peak);
    eprintln!(
        "RSS: {} MiB before the watches, peak {} MiB",
        before >> 20,
        peak_after >> 20
    );
    drop((streams, h2));
}

/// A client acting as the front proxy that speaks `alpn` (`h2` or `http/1.1`).
fn proxy_speaking(d: &Delegated, alpn: &[u8]) -> reqwest::Client {
    let name = format!("proxy-{}", uuid::Uuid::new_v4());
    let (cert, key) = fake_kube::client_pair(
        d.certs.path(),
        &d.proxy_ca,
        &name,
        "front-proxy-client",
        &[],
    );
    let mut tls = common::tls_config(&d.server.pki, Some((&cert, &key)));
    tls.alpn_protocols = vec![alpn.to_vec()];
    reqwest::Client::builder()
        .use_preconfigured_tls(tls)
        .build()
        .unwrap()
}

/// A watch of the crontabs by `user` through the front proxy.
async fn watch_as(
    c: &reqwest::Client,
    d: &Delegated,
    user: &str,
    query: &str,
) -> reqwest::Response {
    c.get(d.server.url(&format!("{CT}?watch=1{query}")))
        .header("X-Remote-User", user)
        .send()
        .await
        .unwrap()
}

/// A watch that must be served: it streams the seeded object first.
async fn streaming(resp: reqwest::Response, version: reqwest::Version) -> Events {
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.version(), version);
    let mut events = Events::of(resp);
    let first = events.next().await.expect("the initial event");
    assert_eq!(summary(&first), ("ADDED".into(), "seed".into()));
    events
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watches_past_user_limit_429_until_one_ends_gauge_counts_open() {
    let d = Delegated::start(&["--max-watches-per-user", "3"]);
    d.fake.set_policy(|_| Decision::allow(""));
    create(&d.server, &d.admin(), "seed", 1).await;
    let h1 = proxy_speaking(&d, b"http/1.1");
    let h2 = proxy_speaking(&d, b"h2");
    let http2 = reqwest::Version::HTTP_2;

    // alice's three watches stream: one on its own HTTP/1.1 connection, two over h2.
    let dropped = streaming(
        watch_as(&h1, &d, "alice", "").await,
        reqwest::Version::HTTP_11,
    )
    .await;
    let _second = streaming(watch_as(&h2, &d, "alice", "").await, http2).await;
    let _third = streaming(watch_as(&h2, &d, "alice", "").await, http2).await;
    let refused = watch_as(&h2, &d, "alice", "").await;
    assert_eq!(refused.status(), 429);
    assert_eq!(refused.headers()["retry-after"], "1");
    let status: Value = refused.json().await.unwrap();
    assert_eq!(
        status,
        json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": "Too many open watches (at most 3 per user), please try again later.",
            "reason": "TooManyRequests", "details": {"retryAfterSeconds": 1}, "code": 429})
    );
    // Another user is counted apart.
    let _bob = streaming(watch_as(&h2, &d, "bob", "").await, http2).await;
    assert_eq!(sample(&d.server, OPEN_WATCHES).await, 4);

    // alice's HTTP/1.1 client goes away: her watch ends, and its place is given back.
    drop((dropped, h1));
    common::eventually(PATIENCE, "the dropped watch to end", || async {
        (sample(&d.server, OPEN_WATCHES).await == 3).then_some(())
    })
    .await;
    let short = streaming(watch_as(&h2, &d, "alice", "&timeoutSeconds=2").await, http2).await;
    assert_eq!(
        watch_as(&h2, &d, "alice", "").await.status(),
        429,
        "three open again"
    );
    assert_eq!(sample(&d.server, OPEN_WATCHES).await, 4);

    // A watch that times out gives its place back too.
    let mut short = short;
    assert!(
        short.next().await.is_none(),
        "the watch ends at its timeout"
    );
    common::eventually(PATIENCE, "the timed-out watch to end", || async {
        (sample(&d.server, OPEN_WATCHES).await == 3).then_some(())
    })
    .await;
    let _again = streaming(watch_as(&h2, &d, "alice", "").await, http2).await;
    assert_eq!(sample(&d.server, OPEN_WATCHES).await, 4);
    assert_eq!(
        sample(
            &d.server,
            "apiserver_request_terminations_total{verb=\"watch\",group=\"stable.example.com\",resource=\"crontabs\",subresource=\"\",code=\"429\"}"
        )
        .await,
        2,
        "each refusal counted as the in-flight limit's are"
    );
}
