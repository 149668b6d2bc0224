//! The rate goals measured in alternation: each goal's full-stack cell and its raw etcd
//! baseline run back to back, `BENCH_ROUNDS` times (default 3), and the goal is judged
//! on the median of the rounds' ratios (the watch section judges its latency goal
//! alike). This machine's speed drifts by tens of percent over minutes, so a ratio of
//! two cells measured minutes apart (the embedded server's creates against the raw etcd
//! puts of the etcd section) says as much about the drift as about the server;
//! back-to-back pairs see the same machine.

use crate::crud::{creates, gets, raw_puts, raw_ranges};
use crate::report::figure;

/// What a goal asks of the median of its rounds' ratios.
#[derive(Clone, Copy)]
pub enum Want {
    AtLeast(f64),
    AtMost(f64),
}

impl std::fmt::Display for Want {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Want::AtLeast(ratio) => write!(f, "≥ {ratio:.1}"),
            Want::AtMost(ratio) => write!(f, "≤ {ratio:.1}"),
        }
    }
}

/// One goal's rounds: (full stack, raw etcd) per round.
pub struct Goal {
    pub name: String,
    pub want: Want,
    pub rounds: Vec<(f64, f64)>,
}

impl Goal {
    /// The median of the rounds' ratios.
    pub fn median(&self) -> f64 {
        let mut ratios: Vec<f64> = self.rounds.iter().map(|(f, r)| f / r).collect();
        ratios.sort_by(f64::total_cmp);
        match ratios.len() {
            0 => f64::NAN,
            n if n % 2 == 1 => ratios[n / 2],
            n => (ratios[n / 2 - 1] + ratios[n / 2]) / 2.0,
        }
    }
}

pub fn rounds() -> usize {
    std::env::var("BENCH_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3)
}

/// The operations a round alternates.
#[derive(Clone, Copy)]
enum Op {
    Create,
    Get,
}

/// What each round compares: the server's `op` against raw etcd's (put or range).
struct Pairing {
    op: Op,
    concurrency: usize,
    want: Want,
}

/// The goals on the server of `backend`, whose collection is at `url`: creates at 64
/// (≥ 0.8 × raw puts) and GETs at 16 and 64 (≥ 1.0 × raw ranges). The GETs read the
/// objects the crud cells created under `tag`, and the raw ranges the keys its raw etcd
/// cells put.
pub async fn run(
    client: &reqwest::Client,
    url: &str,
    backend: &str,
    tag: &str,
    endpoint: &str,
) -> Vec<Goal> {
    let etcd = etcd_client::Client::connect([endpoint], None)
        .await
        .unwrap();
    let pairings = [
        Pairing {
            op: Op::Create,
            concurrency: 64,
            want: Want::AtLeast(0.8),
        },
        Pairing {
            op: Op::Get,
            concurrency: 16,
            want: Want::AtLeast(1.0),
        },
        Pairing {
            op: Op::Get,
            concurrency: 64,
            want: Want::AtLeast(1.0),
        },
    ];
    let mut goals: Vec<Goal> = pairings
        .iter()
        .map(|p| Goal {
            name: format!("{backend} {} at {}", p.op.name(), p.concurrency),
            want: p.want,
            rounds: Vec::new(),
        })
        .collect();
    for round in 0..rounds() {
        for (p, goal) in pairings.iter().zip(&mut goals) {
            let raw = raw(&etcd, p.op, p.concurrency).await;
            let full = full(client, url, tag, p.op, p.concurrency, round).await;
            goal.rounds.push((full, raw));
        }
    }
    goals
}

impl Op {
    fn name(self) -> &'static str {
        match self {
            Op::Create => "creates",
            Op::Get => "GETs",
        }
    }
}

/// Raw etcd puts (for creates) or ranges (for GETs) of the crud section's keys.
async fn raw(etcd: &etcd_client::Client, op: Op, concurrency: usize) -> f64 {
    let counts = match op {
        Op::Create => raw_puts(etcd, concurrency).await,
        Op::Get => raw_ranges(etcd, concurrency).await,
    };
    counts.per_sec()
}

/// The server's creates (under names of their own per round) or GETs (of the objects
/// the crud section's cells created under `tag`).
async fn full(
    client: &reqwest::Client,
    url: &str,
    tag: &str,
    op: Op,
    concurrency: usize,
    round: usize,
) -> f64 {
    let counts = match op {
        Op::Create => creates(client, url, &format!("{tag}-round{round}"), concurrency).await,
        Op::Get => gets(client, url, tag, concurrency).await,
    };
    counts.per_sec()
}

/// The goals' rounds under `title`.
pub fn print(title: &str, goals: &[Goal]) {
    let n = goals.iter().map(|g| g.rounds.len()).max().unwrap_or(0);
    println!();
    println!("{title}");
    println!();
    let heads: Vec<String> = (1..=n).map(|r| format!(" round {r} |")).collect();
    println!("| goal | want |{} median |", heads.concat());
    println!("|------|-----:|{}-------:|", "--------:|".repeat(n));
    for g in goals {
        let cells: Vec<String> = g
            .rounds
            .iter()
            .map(|(f, r)| format!(" {} / {} = {:.2} |", figure(*f), figure(*r), f / r))
            .collect();
        println!(
            "| {} | {} |{} {:.2} |",
            g.name,
            g.want,
            cells.concat(),
            g.median()
        );
    }
}
