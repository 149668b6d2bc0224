//! Encryption at rest (`BENCH_ONLY=encryption`, never by default): the full-stack create
//! and GET cells (GETs answered from the watch cache, which holds decrypted objects) of a
//! server with no `--encryption-provider-config` against one encrypting the objects with
//! `aesgcm` (the goal: at most 10 % fewer), both of this build, side by side on
//! each store, alternated (each going first in every other round) `BENCH_ROUNDS` times
//! and judged on the median of each cell.
//!
//! On etcd each server has its own key prefix, so neither's watch cache follows the
//! other's writes while it is measured.

use crate::crud::{creates, gets};
use crate::report::figure;
use crate::rounds::rounds;
use crate::{CONCURRENCY, CT, common, etcd, kubectl_like};

/// One cell's rates per round, without and with encryption.
struct Compared {
    store: &'static str,
    op: &'static str,
    concurrency: usize,
    plain: Vec<f64>,
    encrypted: Vec<f64>,
}

fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[sorted.len() / 2]
}

/// An EncryptionConfiguration encrypting crontabs with one AES-256-GCM key.
fn config(dir: &std::path::Path) -> String {
    use base64::Engine;
    let mut key = [0u8; 32];
    rand::fill(&mut key);
    let secret = base64::engine::general_purpose::STANDARD.encode(key);
    let text = format!(
        "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n- resources: [crontabs.stable.example.com]\n  providers:\n  - aesgcm: {{keys: [{{name: bench, secret: {secret}}}]}}\n"
    );
    let path = dir.join("encryption.yaml");
    std::fs::write(&path, text).unwrap();
    format!("--encryption-provider-config={}", path.display())
}

/// Runs the comparison and prints its table.
pub async fn run() {
    let etcd = etcd::Etcd::start_durable();
    let dir = tempfile::tempdir().unwrap();
    let encrypt = config(dir.path());
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
        let plain = common::Server::start_with(&flags("/bench-plain"));
        let mut with = flags("/bench-encrypted");
        with.push(&encrypt);
        let encrypted = common::Server::start_with(&with);
        let servers = [(&plain, false), (&encrypted, true)];
        for concurrency in CONCURRENCY {
            let mut create = Compared::new(store, "create", concurrency);
            let mut get = Compared::new(store, "get", concurrency);
            for round in 0..rounds() {
                let order = match round % 2 {
                    0 => [servers[0], servers[1]],
                    _ => [servers[1], servers[0]],
                };
                for (server, encrypting) in order {
                    let (client, url) = (kubectl_like(server), server.url(CT));
                    let tag = format!(
                        "{}{round}c{concurrency}",
                        if encrypting { "enc" } else { "pl" }
                    );
                    let made = creates(&client, &url, &tag, concurrency).await.per_sec();
                    let got = gets(&client, &url, &tag, concurrency).await.per_sec();
                    create.record(encrypting, made);
                    get.record(encrypting, got);
                }
            }
            cells.extend([create, get]);
        }
    }
    print(&cells);
}

impl Compared {
    fn new(store: &'static str, op: &'static str, concurrency: usize) -> Compared {
        Compared {
            store,
            op,
            concurrency,
            plain: Vec::new(),
            encrypted: Vec::new(),
        }
    }

    fn record(&mut self, encrypted: bool, rate: f64) {
        match encrypted {
            false => self.plain.push(rate),
            true => self.encrypted.push(rate),
        }
    }
}

fn print(cells: &[Compared]) {
    println!(
        "\n## Encryption at rest: aesgcm against none (median of {} alternated rounds; goal: aesgcm / none >= 0.90)\n",
        rounds()
    );
    println!(
        "| store | op | concurrency | none | aesgcm | aesgcm / none | rounds (none / aesgcm) |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    for c in cells {
        let (plain, encrypted) = (median(&c.plain), median(&c.encrypted));
        let each = |v: &[f64]| v.iter().map(|r| figure(*r)).collect::<Vec<_>>().join(", ");
        println!(
            "| {} | {} | {} | {} | {} | {:.3} | {} / {} |",
            c.store,
            c.op,
            c.concurrency,
            figure(plain),
            figure(encrypted),
            encrypted / plain,
            each(&c.plain),
            each(&c.encrypted),
        );
    }
    println!("\nrequests/s (higher is better).");
}
