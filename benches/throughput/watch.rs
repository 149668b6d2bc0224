//! Watch fan-out (`watch`): 100 and 1,000 watchers on one server while one paced writer
//! creates a 1 KiB CronTab every 10 ms (100 writes/s) for `BENCH_SECONDS`; against the
//! same number of raw etcd watches with the same paced puts straight to etcd.
//!
//! Latency runs from the moment a write is issued (just before its request is sent) to
//! a watcher's receipt of its event: issue, not acknowledgement, because a server may
//! send the event before the writer reads its answer; the raw baseline is timed alike.
//! The writer is open-loop (it does not wait for one answer before the next write, up to
//! 64 in flight) and never catches up in bursts: a late write moves the schedule on.
//! After the last write, watchers get a grace period to receive every acknowledged event;
//! what one never received is missed.
//!
//! A single cell's p99 moves by 2× from run to run on this machine, so the latency goal
//! (p99 at 1,000 watchers ≤ 1.5 × raw etcd's) is judged as the rate goals are: on the
//! median of `BENCH_ROUNDS` rounds, each server's cell right after a raw etcd cell.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use futures::future::join_all;
use tokio::sync::{Semaphore, watch};

use crate::common::{Server, resource_version};
use crate::etcd::Etcd;
use crate::report::Row;
use crate::rounds::{Goal, Want, rounds};
use crate::watchers::{self, PER_CLIENT, Seen};
use crate::{CT, object, seconds};

pub const WATCHERS: [usize; 2] = [100, 1000];
/// The watchers of the latency goal.
pub const GOAL_WATCHERS: usize = 1000;
const INTERVAL: Duration = Duration::from_millis(10);
const IN_FLIGHT: usize = 64;
/// How long watchers may take to receive the last events once the writer is done.
const GRACE: Duration = Duration::from_secs(10);

/// When each write was issued, and how many events all watchers received.
pub struct Log {
    base: Instant,
    /// ns since `base`; 0 = not issued.
    issued: Vec<AtomicU64>,
    pub received: AtomicU64,
}

impl Log {
    fn new(writes: usize) -> Log {
        Log {
            base: Instant::now(),
            issued: (0..writes).map(|_| AtomicU64::new(0)).collect(),
            received: AtomicU64::new(0),
        }
    }

    pub fn now(&self) -> u64 {
        self.base.elapsed().as_nanos() as u64
    }
}

/// What one fan-out measured.
pub struct Outcome {
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub missed: u64,
    pub ended: u64,
    pub writes_per_sec: f64,
    /// Writes acknowledged.
    pub acknowledged: u64,
}

/// The fan-out cells at each number of watchers (the table's rows), then the latency
/// goal's rounds.
pub async fn run(rows: &mut Vec<Row>) -> Vec<Goal> {
    let etcd = Etcd::start_durable();
    let flags = etcd.flags();
    let on_etcd = Server::start_with(&flags.iter().map(String::as_str).collect::<Vec<_>>());
    let embedded = Server::start();
    let mut raw = Vec::new();
    for n in WATCHERS {
        raw.push(raw_etcd(&etcd, n, 0).await);
        let full = full_stack(&on_etcd, n, "etcd", 0).await;
        push(rows, "etcd", n, &full, &raw[raw.len() - 1]);
    }
    for (n, raw) in WATCHERS.into_iter().zip(&raw) {
        let full = full_stack(&embedded, n, "embedded", 0).await;
        push(rows, "embedded", n, &full, raw);
    }
    goal_rounds(&etcd, [("etcd", &on_etcd), ("embedded", &embedded)], rows).await
}

/// The latency goal on each server: per round, a raw etcd cell right before each
/// server's, at [`GOAL_WATCHERS`]. The events missed over all rounds go to the table.
async fn goal_rounds(
    etcd: &Etcd,
    servers: [(&'static str, &Server); 2],
    rows: &mut Vec<Row>,
) -> Vec<Goal> {
    let mut goals: Vec<Goal> = servers
        .iter()
        .map(|(backend, _)| Goal {
            name: format!("{backend} server, p99 ms at {GOAL_WATCHERS} watchers"),
            want: Want::AtMost(1.5),
            rounds: Vec::new(),
        })
        .collect();
    let mut missed = [(0, 0); 2];
    for round in 1..=rounds() {
        for (i, (backend, server)) in servers.iter().enumerate() {
            let raw = raw_etcd(etcd, GOAL_WATCHERS, round).await;
            let full = full_stack(server, GOAL_WATCHERS, backend, round).await;
            goals[i].rounds.push((full.p99_ms, raw.p99_ms));
            missed[i].0 += full.missed + full.ended;
            missed[i].1 += raw.missed + raw.ended;
        }
    }
    for ((backend, _), (full, raw)) in servers.iter().zip(missed) {
        let what = "watch: events missed or streams ended, all goal rounds";
        rows.push(Row::new(
            backend,
            what,
            GOAL_WATCHERS,
            full as f64,
            Some(raw as f64),
        ));
    }
    goals
}

/// `n` HTTP watches on `server` and paced creates through it, named after `round`.
pub async fn full_stack(server: &Server, n: usize, backend: &str, round: usize) -> Outcome {
    full_stack_at(server, CT, n, backend, round).await
}

/// [`full_stack`] with the watches on the collection at `path` (another version of the
/// CronTabs, say); the creates still go to [`CT`].
pub async fn full_stack_at(
    server: &Server,
    path: &str,
    n: usize,
    backend: &str,
    round: usize,
) -> Outcome {
    let log = Arc::new(Log::new(writes()));
    let (stop, stopped) = watch::channel(false);
    let clients = watchers::h2_clients(server, n);
    // One request each first, so that each client's streams share the one h2 connection
    // it made instead of racing to open one apiece.
    for client in &clients {
        let r = client.get(server.url("/readyz")).send().await.unwrap();
        assert_eq!(r.version(), reqwest::Version::HTTP_2);
    }
    let list = clients[0]
        .get(server.url(&format!("{path}?limit=1")))
        .send();
    let list: serde_json::Value = list.await.unwrap().json().await.unwrap();
    let url = server.url(&format!(
        "{path}?watch=1&resourceVersion={}",
        resource_version(&list)
    ));
    let marker: Arc<[u8]> = format!("\"name\":\"w{n}r{round}-").into_bytes().into();
    let opened = join_all((0..n).map(|w| {
        watchers::http(
            &clients[w / PER_CLIENT],
            &url,
            marker.clone(),
            log.clone(),
            stopped.clone(),
        )
    }))
    .await;
    let (writer, url) = (server.client(), server.url(CT));
    let rate = paced(log.clone(), move |seq| {
        let (writer, url) = (writer.clone(), url.clone());
        async move {
            let r = writer
                .post(url)
                .json(&object(&format!("w{n}r{round}-{seq}")))
                .send();
            r.await.is_ok_and(|r| r.status().as_u16() == 201)
        }
    })
    .await;
    let outcome = finish(&log, rate, opened, stop, n).await;
    outcome.print(&format!("{backend} server, {n} watchers, round {round}"));
    outcome
}

/// `n` raw etcd watches and paced puts straight to etcd, under keys of `round`.
async fn raw_etcd(etcd: &Etcd, n: usize, round: usize) -> Outcome {
    let log = Arc::new(Log::new(writes()));
    let (stop, stopped) = watch::channel(false);
    let prefix = format!("/bench-watch/w{n}r{round}/");
    let mut clients = Vec::new();
    for _ in 0..n.div_ceil(PER_CLIENT) {
        let client = etcd_client::Client::connect([&etcd.endpoint], None);
        clients.push(client.await.unwrap());
    }
    let head = clients[0].get("/", None).await.unwrap();
    let revision = head.header().expect("header").revision() + 1;
    let opened = join_all((0..n).map(|w| {
        watchers::etcd(
            clients[w / PER_CLIENT].clone(),
            prefix.clone(),
            revision,
            log.clone(),
            stopped.clone(),
        )
    }))
    .await;
    let (value, writer) = (object("raw").to_string().into_bytes(), clients[0].clone());
    let rate = paced(log.clone(), move |seq| {
        let (mut writer, key, value) = (writer.clone(), format!("{prefix}{seq}"), value.clone());
        async move { writer.put(key, value, None).await.is_ok() }
    })
    .await;
    let outcome = finish(&log, rate, opened, stop, n).await;
    outcome.print(&format!("raw etcd, {n} watches, round {round}"));
    outcome
}

fn writes() -> usize {
    (seconds().as_secs_f64() / INTERVAL.as_secs_f64()).round() as usize
}

/// Issues write `seq` = 0, 1, … every `INTERVAL`; returns (acknowledged writes, their
/// rate from the first issue to the last acknowledgement).
async fn paced<F, Fut>(log: Arc<Log>, write: F) -> (u64, f64)
where
    F: Fn(u32) -> Fut,
    Fut: std::future::Future<Output = bool> + Send + 'static,
{
    let slots = Arc::new(Semaphore::new(IN_FLIGHT));
    let acked = Arc::new(AtomicU64::new(0));
    let last_ack = Arc::new(AtomicU64::new(0));
    let first = log.now();
    let mut next = tokio::time::Instant::now();
    let mut tasks = Vec::new();
    for seq in 0..log.issued.len() {
        tokio::time::sleep_until(next).await;
        let slot = slots.clone().acquire_owned().await.unwrap();
        log.issued[seq].store(log.now().max(1), Ordering::Relaxed);
        let done = write(seq as u32);
        let (log, acked, last_ack) = (log.clone(), acked.clone(), last_ack.clone());
        tasks.push(tokio::spawn(async move {
            if done.await {
                acked.fetch_add(1, Ordering::Relaxed);
                last_ack.fetch_max(log.now(), Ordering::Relaxed);
            }
            drop(slot);
        }));
        next = (next + INTERVAL).max(tokio::time::Instant::now());
    }
    join_all(tasks).await;
    let acked = acked.load(Ordering::Relaxed);
    let span = (last_ack.load(Ordering::Relaxed).saturating_sub(first)) as f64 / 1e9;
    // The last write lands one interval after the schedule's own span ends.
    (acked, acked as f64 / (span + INTERVAL.as_secs_f64()))
}

/// Waits (up to `GRACE`) for every watcher to receive every acknowledged write, stops
/// the watchers and sums up what they saw.
async fn finish(
    log: &Log,
    (acked, writes_per_sec): (u64, f64),
    opened: Vec<tokio::task::JoinHandle<Seen>>,
    stop: watch::Sender<bool>,
    n: usize,
) -> Outcome {
    let deadline = Instant::now() + GRACE;
    while log.received.load(Ordering::Relaxed) < acked * n as u64 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let _ = stop.send(true);
    let mut latencies = Vec::with_capacity(acked as usize * n);
    let (mut missed, mut ended) = (0, 0);
    for seen in join_all(opened).await {
        let seen = seen.unwrap();
        let mut got = vec![false; log.issued.len()];
        for (seq, at) in seen.events {
            let issued = log
                .issued
                .get(seq as usize)
                .map_or(0, |i| i.load(Ordering::Relaxed));
            if issued != 0 && !std::mem::replace(&mut got[seq as usize], true) {
                latencies.push(at.saturating_sub(issued));
            }
        }
        missed += acked.saturating_sub(got.iter().filter(|g| **g).count() as u64);
        ended += u64::from(seen.ended);
    }
    latencies.sort_unstable();
    let at = |q: f64| {
        latencies
            .get(((latencies.len() as f64 * q) as usize).min(latencies.len().saturating_sub(1)))
            .map_or(f64::NAN, |ns| *ns as f64 / 1e6)
    };
    Outcome {
        p50_ms: at(0.50),
        p99_ms: at(0.99),
        missed,
        ended,
        writes_per_sec,
        acknowledged: acked,
    }
}

impl Outcome {
    fn print(&self, what: &str) {
        eprintln!(
            "{what}: latency p50 {:.1} ms, p99 {:.1} ms, missed {}, ended {}, {:.1} writes/s",
            self.p50_ms, self.p99_ms, self.missed, self.ended, self.writes_per_sec
        );
    }
}

fn push(rows: &mut Vec<Row>, backend: &'static str, n: usize, full: &Outcome, raw: &Outcome) {
    let figures = [
        (
            "watch: latency from issue, p50, ms",
            full.p50_ms,
            raw.p50_ms,
        ),
        (
            "watch: latency from issue, p99, ms",
            full.p99_ms,
            raw.p99_ms,
        ),
        (
            "watch: missed events",
            full.missed as f64,
            raw.missed as f64,
        ),
        (
            "watch: streams ended early",
            full.ended as f64,
            raw.ended as f64,
        ),
        (
            "watch: writes/s reached (paced 100)",
            full.writes_per_sec,
            raw.writes_per_sec,
        ),
    ];
    for (what, f, r) in figures {
        rows.push(Row::new(backend, what, n, f, Some(r)));
    }
}
