//! Tracing's cost when nothing is sampled (`BENCH_ONLY=tracing`, never by default; issue
//! 33's "sampling 0 within 2 %"): creates/s of this build with no `--tracing-config-file`
//! (A) against the same build exporting to a local OTLP receiver with
//! `samplingRatePerMillion: 0` (B), with the server's CPU µs per create. Both servers run
//! side by side on the embedded store; each cell alternates them (ABBA) `BENCH_ROUNDS`
//! times and the table gives the medians. The receiver must get no span.

use crate::cpu::Cpu;
use crate::otlp::Collector;
use crate::rounds::rounds;
use crate::writes::{Compared, Write, measure, warm_up};
use crate::{CT, common, kubectl_like};

const CONCURRENCY: [usize; 2] = [1, 64];

/// Runs the comparison and prints its table.
pub async fn run() {
    let collector = Collector::start();
    let dir = tempfile::tempdir().unwrap();
    let config = collector
        .config_file(dir.path(), Some(0))
        .display()
        .to_string();
    let plain = common::Server::start_with(&[]);
    let traced = common::Server::start_with(&["--tracing-config-file", &config]);
    let servers = [(&plain, "plain"), (&traced, "traced")];
    for (server, which) in servers {
        warm_up(&kubectl_like(server), &server.url(CT), which).await;
    }
    let mut cells = Vec::new();
    for concurrency in CONCURRENCY {
        let mut cell = Compared::new(format!("Create, concurrency {concurrency}"));
        for round in 0..rounds() {
            let order = match round % 2 {
                0 => [servers[0], servers[1]],
                _ => [servers[1], servers[0]],
            };
            for (server, which) in order {
                let (client, url) = (kubectl_like(server), server.url(CT));
                let tag = format!("{which}-c{concurrency}-r{round}");
                let cpu = Cpu::of(server.pid());
                let sample = measure(Write::Create, &client, &url, &tag, concurrency, &cpu).await;
                match which {
                    "plain" => cell.a.push(sample),
                    _ => cell.b.push(sample),
                }
            }
        }
        cells.push(cell);
    }
    drop(traced);
    assert_eq!(collector.spans().len(), 0, "sampling 0 exported spans");
    println!(
        "\n## Tracing, samplingRatePerMillion 0: no --tracing-config-file (A) against sampling 0 (B), median of {} alternated rounds\n",
        rounds()
    );
    Compared::header("A", "B");
    for cell in &cells {
        cell.row();
    }
}
