//! One ValidatingAdmissionPolicy (`BENCH_ONLY=policy`, never by default; issue 31's
//! performance goal): creates/s and the server's CPU µs per create with a policy of one
//! variable and three validations that all hold, bound with `validationActions: [Deny]`,
//! against no policy, at concurrency 1 and 64. Each server (this build, `--kubeconfig` to
//! its own fake core API) differs only in whether its fake serves the policy and its
//! binding. `measure` fails the run on any refused create, so every create measured was
//! admitted. `BENCH_POLICY_NONE=1` leaves the policy out on both: the harness's spread.

use crate::cpu::Cpu;
use crate::rounds::rounds;
use crate::writes::{Compared, Write, measure, warm_up};
use crate::{CT, common, fake_kube, kubectl_like};

pub const CONCURRENCY: [usize; 2] = [1, 64];

pub use crate::policy_fixture::policy_and_binding;

/// Runs the comparison and prints its table.
pub async fn run() {
    let with = fake_kube::FakeKube::start();
    with.add_namespace("default");
    // BENCH_POLICY_NONE=1: server A without the policy too, to show the harness's own
    // difference between the two servers.
    let none = std::env::var_os("BENCH_POLICY_NONE").is_some();
    for object in policy_and_binding().into_iter().filter(|_| !none) {
        with.put_object(object);
    }
    let without = fake_kube::FakeKube::start();
    without.add_namespace("default");
    let kubeconfig = |fake: &fake_kube::FakeKube| fake.kubeconfig().display().to_string();
    let (with_config, without_config) = (kubeconfig(&with), kubeconfig(&without));
    let guarded = common::Server::start_with(&["--kubeconfig", &with_config]);
    let plain = common::Server::start_with(&["--kubeconfig", &without_config]);
    let servers = [(&guarded, "pol1"), (&plain, "pol0")];
    for (server, tag) in servers {
        warm_up(&kubectl_like(server), &server.url(CT), tag).await;
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
                    "pol1" => cell.a.push(sample),
                    _ => cell.b.push(sample),
                }
            }
        }
        cells.push(cell);
    }
    let a = if none {
        "A, BENCH_POLICY_NONE: without it too"
    } else {
        "A"
    };
    println!(
        "\n## One ValidatingAdmissionPolicy (a variable, three validations): this build with it ({a}) and without (B), median of {} alternated rounds\n",
        rounds()
    );
    Compared::header("A", "B");
    for cell in &cells {
        cell.row();
    }
}
