//! The webhook cell for kube's own CRD server (`BENCH_ONLY=webhook-reference`, never by
//! default): creates/s and the reference server's CPU µs per create with the same Rust
//! webhook as `webhook.rs` and without it, at concurrency 1 and 64. The reference reads
//! its configurations once from the team's stub core API (`STUB_OBJECTS_FILE`), so each
//! round restarts the peers (`run-peers.sh` from `PEERS_SCRIPTS`, default
//! `../shared/reference`) with and then without the configuration, under
//! `$PEERS_ROOT/run-bench` (the shared `run/` stays untouched); each start is a fresh etcd.

use std::path::PathBuf;
use std::process::Command;

use crate::cpu::Cpu;
use crate::reference::define_crontab;
use crate::rounds::rounds;
use crate::webhook::Webhook;
use crate::webhook_cells::{CONCURRENCY, Seen, configuration};
use crate::writes::{Compared, Sample, Write, measure, warm_up};
use crate::{CT, common, h2_client};

/// The peers' scripts and directories.
pub struct Peers {
    script: PathBuf,
    root: PathBuf,
    pub run: PathBuf,
}

/// A started reference server.
pub struct Started {
    pub url: String,
    pub pki: PathBuf,
    pub pid: u32,
}

impl Peers {
    pub fn from_env() -> Peers {
        let root = std::env::var("PEERS_ROOT").unwrap_or_else(|_| {
            panic!("BENCH_ONLY=webhook-reference / policy-reference need PEERS_ROOT (reference/setup-debian.sh)")
        });
        let scripts = std::env::var("PEERS_SCRIPTS")
            .map(PathBuf::from)
            .unwrap_or_else(|_| common::repo_root().join("../shared/reference"));
        let root = PathBuf::from(root);
        Peers {
            script: scripts.join("run-peers.sh"),
            run: root.join("run-bench"),
            root,
        }
    }

    fn script(&self, action: &str, objects: Option<&PathBuf>) -> std::process::Output {
        let mut cmd = Command::new("bash");
        cmd.arg(&self.script)
            .arg(action)
            .env("PEERS_ROOT", &self.root)
            .env("PEERS_RUN", &self.run)
            .env_remove("STUB_OBJECTS_FILE");
        if let Some(file) = objects {
            cmd.env("STUB_OBJECTS_FILE", file);
        }
        let out = cmd.output().expect("run run-peers.sh");
        assert!(
            out.status.success(),
            "run-peers.sh {action}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    /// Starts etcd, the stub and the reference server, serving `objects` if given.
    pub fn start(&self, objects: Option<&PathBuf>) -> Started {
        self.script("start", objects);
        let env = std::fs::read_to_string(self.run.join("peers.env")).unwrap();
        let var = |name: &str| {
            env.split_whitespace()
                .find_map(|pair| pair.strip_prefix(&format!("{name}=")))
                .unwrap_or_else(|| panic!("peers.env has no {name}"))
                .to_string()
        };
        let pid = std::fs::read_to_string(self.run.join("apiext.pid")).unwrap();
        Started {
            url: var("APIEXT_URL"),
            pki: PathBuf::from(var("PEERS_PKI")),
            pid: pid.trim().parse().unwrap(),
        }
    }
}

/// Stops the peers when dropped, also when a cell panics (its status is not checked:
/// this may run while unwinding).
pub struct Running<'a>(pub &'a Peers);

impl Drop for Running<'_> {
    fn drop(&mut self) {
        let _ = Command::new("bash")
            .arg(&self.0.script)
            .arg("stop")
            .env("PEERS_ROOT", &self.0.root)
            .env("PEERS_RUN", &self.0.run)
            .output();
    }
}

/// Runs the cells and prints their table.
pub async fn run() {
    let peers = Peers::from_env();
    std::fs::create_dir_all(&peers.run).unwrap();
    let hook = Webhook::start(&[]);
    let objects = peers.run.join("bench-objects.json");
    let list = serde_json::to_string(&[configuration(&hook)]).unwrap();
    std::fs::write(&objects, list).unwrap();
    let mut cells: Vec<Compared> = CONCURRENCY
        .iter()
        .map(|c| Compared::new(format!("Create, concurrency {c}")))
        .collect();
    let mut seen = Seen::default();
    for round in 0..rounds() {
        for hooked in [true, false] {
            let started = peers.start(hooked.then_some(&objects));
            let running = Running(&peers);
            let client = h2_client(&started.pki);
            define_crontab(&client, &started.url).await;
            let url = format!("{}{CT}", started.url);
            warm_up(&client, &url, &format!("ref{}-r{round}", u8::from(hooked))).await;
            hook.take_reviews();
            let cpu = Cpu::of(started.pid);
            for (concurrency, cell) in CONCURRENCY.into_iter().zip(&mut cells) {
                let tag = format!("ref{}-c{concurrency}-r{round}", u8::from(hooked));
                let before = hook.connections();
                let sample: Sample =
                    measure(Write::Create, &client, &url, &tag, concurrency, &cpu).await;
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
            drop(running);
        }
    }
    println!(
        "\n## Kube's CRD server, the same webhook (A) and none (B), median of {} rounds (a restart each)\n",
        rounds()
    );
    Compared::header("A", "B");
    for cell in &cells {
        cell.row();
    }
    seen.print("kube's apiextensions-apiserver", &hook);
}
