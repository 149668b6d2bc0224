//! The watchers of the fan-out section: HTTP watch streams on the server (HTTP/2, 50
//! streams a client connection, as client-go multiplexes its watches) and raw etcd
//! watches (one gRPC watch stream each, 50 a client connection). A watcher notes the
//! sequence number of each object it receives with its receipt time, scanning event
//! lines for the name rather than parsing them, so that the client stays lean on a
//! machine it shares with the server.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use tokio::sync::watch;

use crate::common::Server;
use crate::watch::Log;

/// Watch streams a client (and so a connection) carries.
pub const PER_CLIENT: usize = 50;

/// What one watcher saw: (sequence number, receipt ns since the log's base).
#[derive(Default)]
pub struct Seen {
    pub events: Vec<(u32, u64)>,
    /// The stream ended, failed or sent an ERROR event before it was stopped.
    pub ended: bool,
}

/// Clients that speak HTTP/2 to `server` with the admin certificate.
pub fn h2_clients(server: &Server, watchers: usize) -> Vec<reqwest::Client> {
    (0..watchers.div_ceil(PER_CLIENT))
        .map(|_| {
            let mut tls = crate::common::tls_config(&server.pki, Some(("admin.crt", "admin.key")));
            tls.alpn_protocols = vec![b"h2".to_vec()];
            reqwest::Client::builder()
                .use_preconfigured_tls(tls)
                .build()
                .unwrap()
        })
        .collect()
}

/// Opens a watch at `url` (its answer's head has arrived when this returns) and spawns
/// its reader, which notes objects named `<marker><seq>`.
pub async fn http(
    client: &reqwest::Client,
    url: &str,
    marker: Arc<[u8]>,
    log: Arc<Log>,
    mut stop: watch::Receiver<bool>,
) -> tokio::task::JoinHandle<Seen> {
    let mut r = client.get(url).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 200, "watch {url}");
    tokio::spawn(async move {
        let mut seen = Seen::default();
        let mut buf: Vec<u8> = Vec::with_capacity(64 * 1024);
        loop {
            let chunk = tokio::select! {
                biased;
                _ = stop.changed() => break,
                chunk = r.chunk() => chunk,
            };
            let Ok(Some(chunk)) = chunk else {
                seen.ended = true;
                break;
            };
            let now = log.now();
            buf.extend_from_slice(&chunk);
            let mut start = 0;
            while let Some(nl) = buf[start..].iter().position(|b| *b == b'\n') {
                let line = &buf[start..start + nl];
                if is_error(line) {
                    seen.ended = true;
                } else if let Some(seq) = seq_after(line, &marker) {
                    seen.events.push((seq, now));
                    log.received.fetch_add(1, Ordering::Relaxed);
                }
                start += nl + 1;
            }
            buf.drain(..start);
        }
        seen
    })
}

/// Opens a raw etcd watch of `prefix` from `revision` on and spawns its reader, which
/// notes keys `<prefix><seq>`.
pub async fn etcd(
    mut client: etcd_client::Client,
    prefix: String,
    revision: i64,
    log: Arc<Log>,
    mut stop: watch::Receiver<bool>,
) -> tokio::task::JoinHandle<Seen> {
    let options = etcd_client::WatchOptions::new()
        .with_prefix()
        .with_start_revision(revision);
    let mut stream = client.watch(prefix.as_str(), Some(options)).await.unwrap();
    let created = stream.message().await.unwrap().expect("watch created");
    assert!(
        created.created() && !created.canceled(),
        "etcd watch of {prefix}"
    );
    let skip = prefix.len();
    tokio::spawn(async move {
        let mut seen = Seen::default();
        loop {
            let message = tokio::select! {
                biased;
                _ = stop.changed() => break,
                message = stream.message() => message,
            };
            let Ok(Some(message)) = message else {
                seen.ended = true;
                break;
            };
            if message.canceled() {
                seen.ended = true;
                break;
            }
            let now = log.now();
            for event in message.events() {
                let seq = event
                    .kv()
                    .and_then(|kv| kv.key().get(skip..))
                    .and_then(|digits| std::str::from_utf8(digits).ok()?.parse().ok());
                if let Some(seq) = seq {
                    seen.events.push((seq, now));
                    log.received.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
        seen
    })
}

/// A watch ERROR event: `"type":"ERROR"` leads or ends the line, whichever key order
/// the server writes.
fn is_error(line: &[u8]) -> bool {
    let head = &line[..line.len().min(24)];
    let tail = &line[line.len().saturating_sub(24)..];
    find(head, b"\"ERROR\"").is_some() || find(tail, b"\"ERROR\"").is_some()
}

/// The decimal number right after `marker` in `line`.
fn seq_after(line: &[u8], marker: &[u8]) -> Option<u32> {
    let at = find(line, marker)? + marker.len();
    let digits = line[at..].iter().take_while(|b| b.is_ascii_digit()).count();
    std::str::from_utf8(&line[at..at + digits])
        .ok()?
        .parse()
        .ok()
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    let first = *needle.first()?;
    let mut from = 0;
    while let Some(i) = haystack[from..].iter().position(|b| *b == first) {
        let at = from + i;
        if haystack[at..].starts_with(needle) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}
