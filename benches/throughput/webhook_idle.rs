//! Webhook admission when no configuration is present (`BENCH_ONLY=webhook-idle`, never by
//! default; issue 30's "within 3 % of today"): creates and updates of this build against
//! `BENCH_BASELINE_BIN` (the build before webhook admission, or this build again to show
//! the harness's spread), with the server's CPU µs per write, in dev mode and with
//! `--kubeconfig` to a fake core API serving namespaces and no webhook configuration.
//! Both servers run side by side on the embedded store; each cell alternates them
//! (ABBA) `BENCH_ROUNDS` times and the table gives the medians.

use crate::cpu::Cpu;
use crate::rounds::rounds;
use crate::writes::{Compared, Write, measure, warm_up};
use crate::{CT, common, fake_kube, kubectl_like};

const CONCURRENCY: [usize; 2] = [1, 64];

/// Runs the comparison and prints its table.
pub async fn run() {
    let binary = crate::baseline::baseline_binary();
    let fake = fake_kube::FakeKube::start();
    fake.add_namespace("default");
    let kubeconfig = fake.kubeconfig().display().to_string();
    let modes: [(&str, Vec<&str>); 2] = [
        ("dev mode", Vec::new()),
        (
            "--kubeconfig, no configurations",
            vec!["--kubeconfig", &kubeconfig],
        ),
    ];
    let mut cells = Vec::new();
    for (mode, flags) in &modes {
        let current = common::Server::start_with(flags);
        let baseline = common::Server::start_binary(&binary, flags);
        let servers = [(&current, "cur"), (&baseline, "base")];
        for (server, which) in servers {
            let tag = format!("{which}-{}", mode.len());
            warm_up(&kubectl_like(server), &server.url(CT), &tag).await;
        }
        for concurrency in CONCURRENCY {
            for write in [Write::Create, Write::Update] {
                let label = format!("{mode}, {write:?}, concurrency {concurrency}");
                let mut cell = Compared::new(label);
                for round in 0..rounds() {
                    let order = match round % 2 {
                        0 => [servers[0], servers[1]],
                        _ => [servers[1], servers[0]],
                    };
                    for (server, which) in order {
                        let (client, url) = (kubectl_like(server), server.url(CT));
                        let tag =
                            format!("{which}-{}-{write:?}-c{concurrency}-r{round}", mode.len());
                        let tag = tag.to_lowercase();
                        let cpu = Cpu::of(server.pid());
                        let sample = measure(write, &client, &url, &tag, concurrency, &cpu).await;
                        match which {
                            "cur" => cell.a.push(sample),
                            _ => cell.b.push(sample),
                        }
                    }
                }
                cells.push(cell);
            }
        }
    }
    println!(
        "\n## No webhook configuration: this build (A) against BENCH_BASELINE_BIN (B), median of {} alternated rounds\n",
        rounds()
    );
    Compared::header("A", "B");
    for cell in &cells {
        cell.row();
    }
}
