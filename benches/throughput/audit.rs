//! Auditing (`BENCH_ONLY=audit`, never by default; issue 33's performance goals):
//! creates/s and the server's CPU µs per create with an audit policy of one rule,
//! `Metadata` and then `RequestResponse`, logged to a file (`--audit-log-path`, the
//! default `blocking` mode: every create waits for its lines), against the same build
//! with no policy, at concurrency 1 and 64, in one run of alternated rounds. Goals:
//! Metadata ≤ 10 % fewer creates/s, RequestResponse ≤ 25 %. The lines each log holds at
//! the end are printed: none means the build does not audit yet.

use std::path::{Path, PathBuf};

use crate::cpu::Cpu;
use crate::rounds::rounds;
use crate::writes::{Compared, Write, measure, warm_up};
use crate::{CT, common, kubectl_like};

pub const CONCURRENCY: [usize; 2] = [1, 64];

/// An `audit.k8s.io/v1` Policy of one rule at `level`, in `dir`.
fn policy(dir: &Path, level: &str) -> PathBuf {
    let path = dir.join(format!("policy-{level}.yaml"));
    let text = format!("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: {level}\n");
    std::fs::write(&path, text).unwrap();
    path
}

/// A server auditing at `level` into `<dir>/audit-<level>.log` (rotated at 100 MiB, one
/// backup kept: the disk stays bounded).
fn auditing(dir: &Path, level: &str) -> (common::Server, PathBuf) {
    let log = dir.join(format!("audit-{level}.log"));
    let policy = policy(dir, level).display().to_string();
    let log_path = log.display().to_string();
    let server = common::Server::start_with(&[
        "--audit-policy-file",
        &policy,
        "--audit-log-path",
        &log_path,
        "--audit-log-maxbackup=1",
    ]);
    (server, log)
}

fn lines(path: &Path) -> usize {
    std::fs::read(path)
        .map(|bytes| bytes.iter().filter(|b| **b == b'\n').count())
        .unwrap_or(0)
}

/// Runs the comparison and prints its table.
pub async fn run() {
    let dir = tempfile::tempdir().unwrap();
    let plain = common::Server::start();
    let (metadata, metadata_log) = auditing(dir.path(), "Metadata");
    let (full, full_log) = auditing(dir.path(), "RequestResponse");
    let servers = [(&plain, "none"), (&metadata, "meta"), (&full, "rr")];
    for (server, tag) in servers {
        warm_up(&kubectl_like(server), &server.url(CT), tag).await;
    }
    let mut cells = Vec::new();
    for concurrency in CONCURRENCY {
        let mut meta = Compared::new(format!("Metadata, create, concurrency {concurrency}"));
        let mut rr = Compared::new(format!(
            "RequestResponse, create, concurrency {concurrency}"
        ));
        for round in 0..rounds() {
            let mut order = servers;
            order.rotate_left(round % servers.len());
            for (server, which) in order {
                let (client, url) = (kubectl_like(server), server.url(CT));
                let tag = format!("{which}-c{concurrency}-r{round}");
                let cpu = Cpu::of(server.pid());
                let sample = measure(Write::Create, &client, &url, &tag, concurrency, &cpu).await;
                match which {
                    "meta" => meta.a.push(sample),
                    "rr" => rr.a.push(sample),
                    _ => {
                        meta.b.push(sample);
                        rr.b.push(sample);
                    }
                }
            }
        }
        cells.push(meta);
        cells.push(rr);
    }
    println!(
        "\n## Audit to a log file (blocking mode): this build with a one-rule policy (A) and without (B), median of {} alternated rounds; goals: A ÷ B ≥ 0.90 at Metadata, ≥ 0.75 at RequestResponse\n",
        rounds()
    );
    Compared::header("A", "B");
    for cell in &cells {
        cell.row();
    }
    println!(
        "\nLines in the audit logs at the end (current file): Metadata {}, RequestResponse {}",
        lines(&metadata_log),
        lines(&full_log)
    );
}
