//! One validating webhook that allows (`BENCH_ONLY=webhook`, never by default; issue
//! 30's performance goal): creates/s and the server's CPU µs per create with the webhook
//! against without, at concurrency 1 and 64. The webhook is the tests' Rust HTTPS
//! webhook (`tests/common/webhook.rs`: h2 and HTTP/1.1 by ALPN, on 127.0.0.1 in this
//! process); each server (this build, `--kubeconfig` to its own fake core API) differs
//! only in whether its fake serves the ValidatingWebhookConfiguration. Every create on
//! the webhook's server must reach the webhook exactly once; the table adds the TCP
//! connections the webhook accepted and the HTTP versions it was called with.

use std::collections::BTreeSet;

use base64::Engine;
use serde_json::{Value, json};

use crate::cpu::Cpu;
use crate::rounds::rounds;
use crate::webhook::Webhook;
use crate::writes::{Compared, Sample, Write, measure, warm_up};
use crate::{CT, common, fake_kube, kubectl_like};

pub const CONCURRENCY: [usize; 2] = [1, 64];
const HOOK_PATH: &str = "/validate";

/// A ValidatingWebhookConfiguration calling `hook` for crontab creates and updates, with
/// every field kube-apiserver's defaulting sets (the reference refuses it otherwise).
pub fn configuration(hook: &Webhook) -> Value {
    let ca = base64::engine::general_purpose::STANDARD.encode(hook.ca_pem());
    json!({"apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingWebhookConfiguration",
        "metadata": {"name": "bench", "generation": 1},
        "webhooks": [{"name": "bench.crontabs.stable.example.com",
            "clientConfig": {"url": hook.url(HOOK_PATH), "caBundle": ca},
            "rules": [{"operations": ["CREATE", "UPDATE"], "apiGroups": ["stable.example.com"],
                "apiVersions": ["v1"], "resources": ["crontabs"], "scope": "*"}],
            "failurePolicy": "Fail", "matchPolicy": "Equivalent",
            "namespaceSelector": {}, "objectSelector": {}, "sideEffects": "None",
            "timeoutSeconds": 10, "admissionReviewVersions": ["v1"]}]})
}

/// What the webhook saw of one series of cells.
#[derive(Default)]
pub struct Seen {
    pub reviews: u64,
    pub http: BTreeSet<String>,
    /// The most TCP connections it accepted during one cell.
    pub connections_per_cell: usize,
}

impl Seen {
    /// Takes the webhook's reviews since the last call, checking they are one per create.
    pub fn take(&mut self, hook: &Webhook, sample: &Sample, connections: usize, what: &str) {
        let reviews = hook.take_reviews();
        assert_eq!(
            reviews.len() as u64,
            sample.ok,
            "{what}: reviews received, one per create expected"
        );
        self.reviews += reviews.len() as u64;
        self.http
            .extend(reviews.iter().map(|r| format!("{:?}", r.http)));
        self.connections_per_cell = self.connections_per_cell.max(connections);
    }

    pub fn print(&self, who: &str, hook: &Webhook) {
        println!(
            "\n{who}: the webhook received {} reviews over {:?}; it accepted {} TCP connections \
             in the whole run, at most {} during one cell at concurrency 64.",
            self.reviews,
            self.http,
            hook.connections(),
            self.connections_per_cell
        );
    }
}

/// Runs the comparison and prints its table.
pub async fn run() {
    let hook = Webhook::start(&[]);
    let with = fake_kube::FakeKube::start();
    with.add_namespace("default");
    with.put_webhook_configuration(configuration(&hook));
    let without = fake_kube::FakeKube::start();
    without.add_namespace("default");
    let kubeconfig = |fake: &fake_kube::FakeKube| fake.kubeconfig().display().to_string();
    let (with_config, without_config) = (kubeconfig(&with), kubeconfig(&without));
    let hooked = common::Server::start_with(&["--kubeconfig", &with_config]);
    let plain = common::Server::start_with(&["--kubeconfig", &without_config]);
    let servers = [(&hooked, true), (&plain, false)];
    for (server, hooked) in servers {
        let tag = format!("wh{}", u8::from(hooked));
        warm_up(&kubectl_like(server), &server.url(CT), &tag).await;
    }
    hook.take_reviews();
    let mut seen = Seen::default();
    let mut cells = Vec::new();
    for concurrency in CONCURRENCY {
        let mut cell = Compared::new(format!("Create, concurrency {concurrency}"));
        for round in 0..rounds() {
            let order = match round % 2 {
                0 => [servers[0], servers[1]],
                _ => [servers[1], servers[0]],
            };
            for (server, hooked) in order {
                let (client, url) = (kubectl_like(server), server.url(CT));
                let tag = format!("wh{}-c{concurrency}-r{round}", u8::from(hooked));
                let cpu = Cpu::of(server.pid());
                let before = hook.connections();
                let sample = measure(Write::Create, &client, &url, &tag, concurrency, &cpu).await;
                let connections = hook.connections() - before;
                match hooked {
                    true => {
                        let opened = if concurrency == 1 { 0 } else { connections };
                        seen.take(&hook, &sample, opened, &tag);
                        cell.a.push(sample);
                    }
                    false => {
                        assert!(hook.take_reviews().is_empty(), "{tag}: no webhook expected");
                        cell.b.push(sample);
                    }
                }
            }
        }
        cells.push(cell);
    }
    println!(
        "\n## One validating webhook that allows: this build with it (A) and without (B), median of {} alternated rounds\n",
        rounds()
    );
    Compared::header("A", "B");
    for cell in &cells {
        cell.row();
    }
    seen.print("crd-apiserver", &hook);
}
