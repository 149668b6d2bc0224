//! The policy cell for kube's own CRD server (`BENCH_ONLY=policy-reference`, never by
//! default): creates/s and the reference server's CPU µs per create with the same
//! ValidatingAdmissionPolicy as `policy.rs` and without it, at concurrency 1 and 64. The
//! peers are started per round as `webhook_reference.rs` starts them, the stub serving
//! the policy and its binding (`STUB_OBJECTS_FILE`) or nothing.

use crate::cpu::Cpu;
use crate::policy::{CONCURRENCY, policy_and_binding};
use crate::reference::define_crontab;
use crate::rounds::rounds;
use crate::webhook_reference::{Peers, Running};
use crate::writes::{Compared, Write, measure, warm_up};
use crate::{CT, h2_client};

/// Runs the cells and prints their table.
pub async fn run() {
    let peers = Peers::from_env();
    std::fs::create_dir_all(&peers.run).unwrap();
    let objects = peers.run.join("bench-policy-objects.json");
    let list = serde_json::to_string(&policy_and_binding()).unwrap();
    std::fs::write(&objects, list).unwrap();
    let mut cells: Vec<Compared> = CONCURRENCY
        .iter()
        .map(|c| Compared::new(format!("Create, concurrency {c}")))
        .collect();
    for round in 0..rounds() {
        for guarded in [true, false] {
            let started = peers.start(guarded.then_some(&objects));
            let running = Running(&peers);
            let client = h2_client(&started.pki);
            define_crontab(&client, &started.url).await;
            let url = format!("{}{CT}", started.url);
            warm_up(
                &client,
                &url,
                &format!("refpol{}-r{round}", u8::from(guarded)),
            )
            .await;
            let cpu = Cpu::of(started.pid);
            for (concurrency, cell) in CONCURRENCY.into_iter().zip(&mut cells) {
                let tag = format!("refpol{}-c{concurrency}-r{round}", u8::from(guarded));
                let sample = measure(Write::Create, &client, &url, &tag, concurrency, &cpu).await;
                match guarded {
                    true => cell.a.push(sample),
                    false => cell.b.push(sample),
                }
            }
            drop(running);
        }
    }
    println!(
        "\n## Kube's CRD server, the same policy (A) and none (B), median of {} rounds (a restart each)\n",
        rounds()
    );
    Compared::header("A", "B");
    for cell in &cells {
        cell.row();
    }
}
