//! This build against an earlier one (`BENCH_ONLY=baseline`, never by default): the
//! full-stack create and GET cells of both stores, and the watch fan-out's latency at
//! 1,000 watchers (write issued to event received, p50 and p99, as `watch` measures
//! it), served by this build's server and by
//! the binary `BENCH_BASELINE_BIN` names (e.g. a release build of the commit before a
//! change), in alternation (each going first in every other round), `BENCH_ROUNDS`
//! times, judged on the median of each cell. It
//! answers "does this change slow the path of users who do not use it" within one run
//! on one machine, whose speed drifts over minutes.
//!
//! Both servers run side by side; on etcd each has its own key prefix, so neither's watch
//! cache follows the other's writes while it is measured.

use std::path::PathBuf;

use crate::crud::{creates, gets};
use crate::report::figure;
use crate::rounds::rounds;
use crate::watch::{GOAL_WATCHERS, full_stack};
use crate::{CONCURRENCY, CT, common, etcd, kubectl_like};

/// Which server a measurement is of.
#[derive(Clone, Copy)]
enum Build {
    Current,
    Baseline,
}

impl Build {
    /// The prefix of the objects it creates (each build and round its own names).
    fn tag(self) -> &'static str {
        match self {
            Build::Current => "cur",
            Build::Baseline => "base",
        }
    }
}

/// One cell's rates per round, for this build and the baseline.
struct Compared {
    store: &'static str,
    op: &'static str,
    concurrency: usize,
    current: Vec<f64>,
    baseline: Vec<f64>,
}

fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[sorted.len() / 2]
}

pub fn baseline_binary() -> PathBuf {
    let path = std::env::var("BENCH_BASELINE_BIN").unwrap_or_else(|_| {
        panic!(
            "BENCH_ONLY=baseline needs BENCH_BASELINE_BIN, the server of an earlier build \
             with the benchmark's profile, e.g. `git worktree add /tmp/base <commit> && cd \
             /tmp/base && cargo bench --no-run --bench throughput` (then \
             /tmp/base/target/release/crd-apiserver)"
        )
    });
    let path = PathBuf::from(path);
    assert!(
        path.is_file(),
        "BENCH_BASELINE_BIN: no file at {}",
        path.display()
    );
    path
}

/// Runs the comparison and prints its table.
pub async fn run() {
    let binary = baseline_binary();
    let etcd = etcd::Etcd::start_durable();
    let mut cells = Vec::new();
    for store in ["embedded", "etcd"] {
        let flags = |prefix: &'static str| match store {
            "etcd" => vec![
                "--etcd-servers",
                etcd.endpoint.as_str(),
                "--etcd-prefix",
                prefix,
            ],
            _ => Vec::new(),
        };
        let current = common::Server::start_with(&flags("/bench-current"));
        let baseline = common::Server::start_binary(&binary, &flags("/bench-baseline"));
        let servers = [(&current, Build::Current), (&baseline, Build::Baseline)];
        for concurrency in CONCURRENCY {
            let mut create = Compared::new(store, "create", concurrency);
            let mut get = Compared::new(store, "get", concurrency);
            for round in 0..rounds() {
                // ABBA: each build goes first in every other round, so neither gains
                // from its place (a warm cache, the other's writes settling).
                let order = match round % 2 {
                    0 => [servers[0], servers[1]],
                    _ => [servers[1], servers[0]],
                };
                for (server, which) in order {
                    let (client, url) = (kubectl_like(server), server.url(CT));
                    let tag = format!("{}{round}", which.tag());
                    let made = creates(&client, &url, &tag, concurrency).await.per_sec();
                    let got = gets(&client, &url, &tag, concurrency).await.per_sec();
                    create.record(which, made);
                    get.record(which, got);
                }
            }
            cells.extend([create, get]);
        }
        cells.extend(watch_cells(store, &servers).await);
    }
    print(&cells);
}

/// The watch fan-out at [`GOAL_WATCHERS`] on both builds, alternated as the rate cells
/// are: its p50 and p99 latency in ms (lower is better).
async fn watch_cells(
    store: &'static str,
    servers: &[(&common::Server, Build); 2],
) -> [Compared; 2] {
    let mut p50 = Compared::new(store, "watch p50 ms", GOAL_WATCHERS);
    let mut p99 = Compared::new(store, "watch p99 ms", GOAL_WATCHERS);
    for round in 0..rounds() {
        let order = match round % 2 {
            0 => [servers[0], servers[1]],
            _ => [servers[1], servers[0]],
        };
        for (server, which) in order {
            let outcome = full_stack(server, GOAL_WATCHERS, which.tag(), round).await;
            p50.record(which, outcome.p50_ms);
            p99.record(which, outcome.p99_ms);
        }
    }
    [p50, p99]
}

impl Compared {
    fn new(store: &'static str, op: &'static str, concurrency: usize) -> Compared {
        Compared {
            store,
            op,
            concurrency,
            current: Vec::new(),
            baseline: Vec::new(),
        }
    }

    fn record(&mut self, which: Build, rate: f64) {
        match which {
            Build::Current => self.current.push(rate),
            Build::Baseline => self.baseline.push(rate),
        }
    }
}

fn print(cells: &[Compared]) {
    println!(
        "\n## This build against BENCH_BASELINE_BIN (median of {} alternated rounds)\n",
        rounds()
    );
    println!(
        "| store | op | concurrency (watchers) | this build | baseline | this / baseline | rounds (this / baseline) |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    for c in cells {
        let (current, baseline) = (median(&c.current), median(&c.baseline));
        let each = |v: &[f64]| v.iter().map(|r| figure(*r)).collect::<Vec<_>>().join(", ");
        println!(
            "| {} | {} | {} | {} | {} | {:.3} | {} / {} |",
            c.store,
            c.op,
            c.concurrency,
            figure(current),
            figure(baseline),
            current / baseline,
            each(&c.current),
            each(&c.baseline),
        );
    }
    println!("\ncreate and get: requests/s (higher is better); watch: ms (lower is better).");
}
