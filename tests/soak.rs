//! Soak: 32 concurrent writers and 100 watchers against a server on etcd while etcd is
//! killed (SIGKILL) and restarted on its data 3 times and the server restarted once. At
//! the end every acknowledged write is in a consistent LIST, every watcher saw the event
//! of every acknowledged write it was watching across, its model (its last list plus
//! every event after it, each once and in order) equals that LIST, and the server is
//! still up and exits cleanly on SIGTERM.
//!
//! Short form (CI, about a minute): `cargo test --test soak`.
//! Long form: `SOAK_SECONDS=1800 cargo test --release --test soak -- --nocapture`; fault
//! times and outages scale with the duration, the summary goes to stderr.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;
#[path = "common/etcd.rs"]
mod etcd;
#[path = "soak/watchers.rs"]
mod watchers;
#[path = "soak/writers.rs"]
mod writers;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use common::Server;
use serde_json::Value;
use tokio::time::Instant;
use watchers::WatchState;
use writers::{Expect, WriterReport};

const CT: &str = "/apis/stable.example.com/v1/namespaces/default/crontabs";
const WRITERS: usize = 32;
const WATCHERS: usize = 100;
/// Pause between one writer's acknowledged writes (about 130 writes/s in all).
const WRITE_INTERVAL: Duration = Duration::from_millis(250);
/// Short, so that watchers that go away for a while come back to a 410 and relist.
const COMPACTION: Duration = Duration::from_secs(3);
/// Generous: the machine is shared, and a relist after the run reads every object.
const CATCH_UP: Duration = Duration::from_secs(180);

/// Where the server listens and a client for it; both change when it restarts.
#[derive(Clone)]
pub struct Endpoint(Arc<RwLock<(String, reqwest::Client)>>);

impl Endpoint {
    fn of(server: &Server) -> Endpoint {
        Endpoint(Arc::new(RwLock::new((server.url(""), server.client()))))
    }

    pub fn get(&self) -> (String, reqwest::Client) {
        self.0.read().unwrap().clone()
    }

    fn set(&self, server: &Server) {
        *self.0.write().unwrap() = (server.url(""), server.client());
    }
}

/// The writers' run time: `SOAK_SECONDS`, 40 s by default.
fn run_time() -> Duration {
    let seconds = std::env::var("SOAK_SECONDS").map_or(40, |s| {
        s.parse()
            .unwrap_or_else(|_| panic!("SOAK_SECONDS={s} is not a number of seconds"))
    });
    Duration::from_secs(seconds)
}

/// Kills etcd three times and restarts the server once, spread over `run` while the
/// writers and watchers work; gives both back, running.
async fn faults(
    mut etcd: etcd::Etcd,
    mut server: Server,
    endpoint: Endpoint,
    run: Duration,
) -> (etcd::Etcd, Server) {
    let start = Instant::now();
    let outage = (run / 20).clamp(Duration::from_secs(1), Duration::from_secs(10));
    for (at, kill_etcd) in [(0.15, true), (0.35, false), (0.55, true), (0.8, true)] {
        tokio::time::sleep_until(start + run.mul_f64(at)).await;
        if kill_etcd {
            eprintln!("soak: {:?}: etcd killed", start.elapsed());
            etcd.stop();
            // The outage's length is the fault being injected, not a wait for a state.
            tokio::time::sleep(outage).await;
            etcd = tokio::task::spawn_blocking(move || {
                etcd.restart();
                etcd
            })
            .await
            .unwrap();
            eprintln!("soak: {:?}: etcd back", start.elapsed());
        } else {
            assert_eq!(server.exited(), None, "the server exited during the run");
            server = tokio::task::spawn_blocking(move || server.restart())
                .await
                .unwrap();
            endpoint.set(&server);
            eprintln!("soak: {:?}: server restarted", start.elapsed());
        }
    }
    (etcd, server)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn soak_writers_watchers_etcd_kills_server_restart_lose_no_write_or_event() {
    let run = run_time();
    let started = Instant::now();
    let etcd = etcd::Etcd::start();
    let server = Server::start_with(&[
        "--etcd-servers",
        &etcd.endpoint,
        "--request-timeout",
        "5s",
        "--etcd-dial-timeout",
        "2s",
        "--watch-bookmark-interval",
        "1s",
        "--etcd-compaction-interval",
        &format!("{}s", COMPACTION.as_secs()),
    ]);
    let endpoint = Endpoint::of(&server);
    let (stop_watchers, watching) = tokio::sync::watch::channel(false);
    let states: Vec<_> = (0..WATCHERS)
        .map(|_| Arc::new(Mutex::new(WatchState::default())))
        .collect();
    let watcher_tasks: Vec<_> = states
        .iter()
        .enumerate()
        .map(|(id, state)| {
            // Every 25th watcher goes away for three compactions now and then.
            let nap = (id % 25 == 0).then_some(COMPACTION * 3);
            let task = watchers::run(id, endpoint.clone(), state.clone(), watching.clone(), nap);
            tokio::spawn(task)
        })
        .collect();
    let (stop_writers, writing) = tokio::sync::watch::channel(false);
    let writer_tasks: Vec<_> = (0..WRITERS)
        .map(|id| {
            let task = writers::run(id, endpoint.clone(), writing.clone(), WRITE_INTERVAL);
            tokio::spawn(task)
        })
        .collect();

    let (etcd, mut server) = faults(etcd, server, endpoint.clone(), run).await;
    tokio::time::sleep_until(started + run).await;
    stop_writers.send(true).unwrap();
    let mut reports = Vec::new();
    for task in writer_tasks {
        reports.push(task.await.unwrap());
    }

    let (base, client) = endpoint.get();
    let list: Value = common::eventually(Duration::from_secs(60), "a consistent LIST", || {
        let request = client.get(format!("{base}{CT}")).send();
        async move {
            let resp = request.await.ok()?;
            if !resp.status().is_success() {
                return None;
            }
            resp.json().await.ok()
        }
    })
    .await;
    let at: i64 = common::resource_version(&list).parse().unwrap();
    let stored: BTreeMap<String, i64> = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            let name = i["metadata"]["name"].as_str().unwrap().to_string();
            (name, common::resource_version(i).parse().unwrap())
        })
        .collect();
    let write_failures = check_writes(&reports, &stored);
    summarize_writes(&reports, stored.len(), at);
    assert!(
        write_failures.is_empty(),
        "{} write failures, first ones:\n{}",
        write_failures.len(),
        write_failures[..write_failures.len().min(30)].join("\n")
    );

    // Every watcher catches up to the list's revision (through events or bookmarks); a
    // violation fails at once instead of waiting for the deadline.
    let states = &states;
    common::eventually(
        CATCH_UP,
        "every watcher to reach the final list",
        || async move {
            states
                .iter()
                .all(|s| {
                    let s = s.lock().unwrap();
                    s.last >= at || !s.violations.is_empty()
                })
                .then_some(())
        },
    )
    .await;
    let mut acked: Vec<i64> = reports
        .iter()
        .flat_map(|r| r.acked_revisions.iter().copied())
        .collect();
    acked.sort_unstable();
    let watch_failures = check_watchers(states, &stored, &acked);
    summarize_watchers(states);
    assert!(
        watch_failures.is_empty(),
        "{} watchers failed:\n{}",
        watch_failures.len(),
        watch_failures[..watch_failures.len().min(20)].join("\n")
    );

    // Nothing panicked the process: it is up, live, and ends cleanly on SIGTERM.
    assert_eq!(server.exited(), None, "the server exited during the run");
    let livez = client.get(format!("{base}/livez")).send().await.unwrap();
    assert_eq!(livez.status().as_u16(), 200);
    stop_watchers.send(true).unwrap();
    for task in watcher_tasks {
        task.await.unwrap();
    }
    let status = server.terminate();
    assert!(status.success(), "server exit status {status:?}");
    drop(etcd);
    eprintln!("soak: done in {:?}", started.elapsed());
}

/// Every name a writer tried against the final list; and nothing nobody wrote.
fn check_writes(reports: &[WriterReport], stored: &BTreeMap<String, i64>) -> Vec<String> {
    let mut failures: Vec<String> = reports
        .iter()
        .flat_map(|r| r.violations.iter().cloned())
        .collect();
    for (name, expect) in reports.iter().flat_map(|r| &r.expect) {
        let got = stored.get(name).copied();
        let fine = match (*expect, got) {
            (Expect::Exact(rv), Some(got)) => got == rv,
            (Expect::AtLeast(rv) | Expect::MaybeDeleted(rv), Some(got)) => got >= rv,
            (Expect::MaybeDeleted(_) | Expect::Absent, None) => true,
            (Expect::Unknown, _) => true,
            _ => false,
        };
        if !fine {
            failures.push(format!("{name}: expected {expect:?}, listed at {got:?}"));
        }
    }
    for name in stored.keys() {
        if !reports.iter().any(|r| r.expect.contains_key(name)) {
            failures.push(format!("{name}: listed but never written"));
        }
    }
    failures
}

/// Each watcher's violations, the acknowledged writes it watched across but did not
/// see, and how its model differs from the final list.
fn check_watchers(
    states: &[Arc<Mutex<WatchState>>],
    stored: &BTreeMap<String, i64>,
    acked: &[i64],
) -> Vec<String> {
    let mut failures = Vec::new();
    for (id, state) in states.iter().enumerate() {
        let s = state.lock().unwrap();
        let missing: Vec<_> = stored
            .iter()
            .filter(|(n, rv)| s.model.get(*n) != Some(*rv))
            .map(|(n, rv)| format!("{n}@{rv} (model: {:?})", s.model.get(n)))
            .collect();
        let extra: Vec<_> = s
            .model
            .iter()
            .filter(|(n, _)| !stored.contains_key(*n))
            .map(|(n, rv)| format!("{n}@{rv}"))
            .collect();
        let mut missed = Vec::new();
        for &(from, to) in &s.epochs {
            let watched = &acked[acked.partition_point(|r| *r <= from)..];
            let watched = &watched[..watched.partition_point(|r| *r <= to)];
            missed.extend(
                watched
                    .iter()
                    .filter(|r| s.revisions.binary_search(r).is_err())
                    .map(|r| format!("{r} (watching {from}..={to})")),
            );
        }
        if s.violations.is_empty() && missing.is_empty() && extra.is_empty() && missed.is_empty() {
            continue;
        }
        failures.push(format!(
            "watcher {id} (at revision {}, {} relists, {} re-watches): violations {:?}; \
             acknowledged writes not seen {:?}; \
             differs from the list: missing or stale {:?}, extra {:?}",
            s.last,
            s.relists,
            s.rewatches,
            &s.violations[..s.violations.len().min(5)],
            &missed[..missed.len().min(5)],
            &missing[..missing.len().min(5)],
            &extra[..extra.len().min(5)],
        ));
    }
    failures
}

fn summarize_writes(reports: &[WriterReport], listed: usize, at: i64) {
    let sum = |f: &dyn Fn(&WriterReport) -> u64| reports.iter().map(f).sum::<u64>();
    eprintln!(
        "soak: acknowledged {} creates, {} updates, {} deletes; {} ambiguous, {} refused; \
         final list: {listed} objects at revision {at}",
        sum(&|r| r.acked[0]),
        sum(&|r| r.acked[1]),
        sum(&|r| r.acked[2]),
        sum(&|r| r.ambiguous),
        sum(&|r| r.refused),
    );
}

fn summarize_watchers(states: &[Arc<Mutex<WatchState>>]) {
    let sum =
        |f: &dyn Fn(&WatchState) -> u64| states.iter().map(|s| f(&s.lock().unwrap())).sum::<u64>();
    eprintln!(
        "soak: watchers saw {} events and {} bookmarks; {} relists after 410 ({} watchers \
         never relisted), {} re-watches",
        sum(&|s| s.events),
        sum(&|s| s.bookmarks),
        sum(&|s| s.relists),
        sum(&|s| u64::from(s.relists == 0)),
        sum(&|s| s.rewatches),
    );
}
