//! Throughput benchmark: creates/s and GETs/s of a 1 KiB custom object through the full
//! HTTPS stack, against the raw rate of the store underneath, at concurrency 1, 16, 64 —
//! all measured in one run on this machine and printed as one table of ratios, with the
//! CPU time the server, etcd and this load generator each spent per operation (`meters`:
//! they share the machine's cores, so that is what bounds a rate). The rate goals are
//! then measured again in alternation, each full-stack cell right after its raw etcd
//! cell, `BENCH_ROUNDS` times (default 3), and judged on the median ratio (`rounds`:
//! this machine's speed drifts over minutes). Then the cost of field management
//! (`fields`): updates without and with managedFields and server-side applies, with the
//! server's CPU time per write (`cpu`), at concurrency 1, 16.
//!
//! Then, on a store of 10,000 such objects, a full LIST (time and the server's peak extra
//! memory, `list`), resident memory per stored object (`memory`) and start-to-ready
//! (`startup`); and watch fan-out to 100 and 1,000 watchers under 100 writes/s
//! (`watch`), whose latency goal is judged on rounds too. Every section ends in one
//! combined table of ratios to raw etcd.
//!
//! Run: `cargo bench --bench throughput` (starts its own etcd and servers; ~9 minutes).
//! `BENCH_SECONDS` sets the time per measurement (default 3); `BENCH_ONLY` picks
//! sections, comma-separated from `crud,fields,list,memory,startup,watch` (default all),
//! e.g. `BENCH_SECONDS=2 BENCH_ONLY=list cargo bench --bench throughput`; `reference`
//! (only when picked) runs the crud cells and the goals' rounds against kube's own CRD
//! server, started beforehand (`reference.rs`); `baseline` (only when picked) runs the
//! create and GET cells against an earlier build, `BENCH_BASELINE_BIN` (`baseline.rs`);
//! `webhook-idle`, `webhook` and `webhook-reference` (only when picked) measure webhook
//! admission (`webhook*.rs`); `policy` and `policy-reference` admission policies
//! (`policy*.rs`); `conversion` webhook conversion (`conversion.rs`); `audit` the audit
//! log at Metadata and RequestResponse against no policy (`audit.rs`); `encryption` creates
//! and cached GETs with aesgcm encryption at rest against none (`encryption.rs`).
//! `tracing` creates with no tracing configuration against sampling 0 (`tracing.rs`).
//! Creates, GETs and the stored
//! collection's creates go over h2, as kubectl's do; `BENCH_HTTP1=1` makes them HTTP/1.1.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a harness fails loudly

#[path = "throughput/audit.rs"]
mod audit;
#[path = "throughput/baseline.rs"]
mod baseline;
#[path = "../tests/common/mod.rs"]
mod common;
#[path = "throughput/conversion.rs"]
mod conversion;
#[path = "throughput/cpu.rs"]
mod cpu;
#[path = "throughput/crud.rs"]
mod crud;
#[path = "throughput/encryption.rs"]
mod encryption;
#[path = "../tests/common/etcd.rs"]
mod etcd;
#[path = "../tests/common/fake_kube.rs"]
mod fake_kube;
#[path = "throughput/fields.rs"]
mod fields;
#[path = "throughput/list.rs"]
mod list;
#[path = "throughput/meters.rs"]
mod meters;
#[path = "../tests/common/otlp.rs"]
mod otlp;
#[path = "throughput/policy.rs"]
mod policy;
#[path = "policy/fixture.rs"]
mod policy_fixture;
#[path = "throughput/policy_reference.rs"]
mod policy_reference;
#[path = "throughput/procfs.rs"]
mod procfs;
#[path = "throughput/reference.rs"]
mod reference;
#[path = "throughput/report.rs"]
mod report;
#[path = "throughput/rounds.rs"]
mod rounds;
#[path = "throughput/startup.rs"]
mod startup;
#[path = "throughput/stored.rs"]
mod stored;
#[path = "../tests/common/stub_converter.rs"]
mod stub_converter;
#[path = "throughput/tracing.rs"]
mod tracing_cells;
#[path = "throughput/watch.rs"]
mod watch;
#[path = "throughput/watchers.rs"]
mod watchers;
#[path = "../tests/common/webhook.rs"]
mod webhook;
#[path = "throughput/webhook.rs"]
mod webhook_cells;
#[path = "throughput/webhook_idle.rs"]
mod webhook_idle;
#[path = "throughput/webhook_reference.rs"]
mod webhook_reference;
#[path = "throughput/writes.rs"]
mod writes;

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::crud::{Measured, cpu_rows, crud_and_fields, print};

pub const CONCURRENCY: [usize; 3] = [1, 16, 64];
pub const CT: &str = "/apis/stable.example.com/v1/namespaces/default/crontabs";

fn seconds() -> Duration {
    let secs = std::env::var("BENCH_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3.0);
    Duration::from_secs_f64(secs)
}

/// The sections `BENCH_ONLY` selects.
pub struct Sections {
    pub crud: bool,
    pub fields: bool,
    pub list: bool,
    pub memory: bool,
    pub startup: bool,
    pub watch: bool,
    /// Kube's own CRD server, only when picked: it needs one started beforehand.
    pub reference: bool,
    /// An earlier build of this server, only when picked (`BENCH_BASELINE_BIN`).
    pub baseline: bool,
    /// Webhook admission (issue 30), each only when picked: no configuration against
    /// `BENCH_BASELINE_BIN`, one allowing webhook, and the same on kube's server.
    pub webhook_idle: bool,
    pub webhook: bool,
    pub webhook_reference: bool,
    /// Admission policies (issue 31), each only when picked: one ValidatingAdmissionPolicy
    /// against none, on this build and on kube's server.
    pub policy: bool,
    pub policy_reference: bool,
    /// Webhook conversion (issue 32), only when picked: LIST and watch fan-out of the
    /// non-storage version through a converter, against the storage version.
    pub conversion: bool,
    /// Auditing to a log file (issue 33), only when picked: Metadata and RequestResponse
    /// policies against none.
    pub audit: bool,
    /// Encryption at rest (issue 33), only when picked: creates and cached GETs with
    /// aesgcm against none.
    pub encryption: bool,
    /// Tracing (issue 33), only when picked: creates with no tracing configuration
    /// against sampling 0.
    pub tracing: bool,
}

impl Sections {
    const NAMES: [&str; 17] = [
        "crud",
        "fields",
        "list",
        "memory",
        "startup",
        "watch",
        "reference",
        "baseline",
        "webhook-idle",
        "webhook",
        "webhook-reference",
        "policy",
        "policy-reference",
        "conversion",
        "audit",
        "encryption",
        "tracing",
    ];

    fn from_env() -> Sections {
        let only = std::env::var("BENCH_ONLY").unwrap_or_default();
        let picked: Vec<&str> = only
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect();
        for name in &picked {
            assert!(
                Self::NAMES.contains(name),
                "BENCH_ONLY: unknown section {name:?} (sections: {})",
                Self::NAMES.join(",")
            );
        }
        let on = |name: &str| picked.is_empty() || picked.contains(&name);
        Sections {
            crud: on("crud"),
            fields: on("fields"),
            list: on("list"),
            memory: on("memory"),
            startup: on("startup"),
            watch: on("watch"),
            reference: picked.contains(&"reference"),
            baseline: picked.contains(&"baseline"),
            webhook_idle: picked.contains(&"webhook-idle"),
            webhook: picked.contains(&"webhook"),
            webhook_reference: picked.contains(&"webhook-reference"),
            policy: picked.contains(&"policy"),
            policy_reference: picked.contains(&"policy-reference"),
            conversion: picked.contains(&"conversion"),
            audit: picked.contains(&"audit"),
            encryption: picked.contains(&"encryption"),
            tracing: picked.contains(&"tracing"),
        }
    }
}

/// A 1 KiB custom object (its JSON is 1024 bytes ± a few).
pub fn object(name: &str) -> serde_json::Value {
    let mut o = json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
        "metadata": {"name": name}, "spec": {"cronSpec": "* * * * */5", "image": ""}});
    let pad = 1024usize.saturating_sub(o.to_string().len());
    o["spec"]["image"] = json!("x".repeat(pad));
    o
}

/// What `concurrency` tasks did in the configured time.
pub struct Counts {
    pub ok: u64,
    pub failed: u64,
    pub secs: f64,
}

impl Counts {
    pub fn per_sec(&self) -> f64 {
        self.ok as f64 / self.secs
    }
}

/// Runs `op(task, i)` from `concurrency` tasks for the configured time.
pub async fn rate<F, Fut>(concurrency: usize, op: F) -> Counts
where
    F: Fn(usize, u64) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ()> + Send,
{
    let op = Arc::new(op);
    count(concurrency, move |task, i| {
        let op = op.clone();
        async move {
            op(task, i).await;
            true
        }
    })
    .await
}

/// Runs `op(task, i)` from `concurrency` tasks for the configured time, counting the
/// calls that returned true (done) and false (failed).
pub async fn count<F, Fut>(concurrency: usize, op: F) -> Counts
where
    F: Fn(usize, u64) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = bool> + Send,
{
    let op = Arc::new(op);
    let ok = Arc::new(AtomicU64::new(0));
    let failed = Arc::new(AtomicU64::new(0));
    let deadline = Instant::now() + seconds();
    let start = Instant::now();
    let tasks: Vec<_> = (0..concurrency)
        .map(|task| {
            let (op, ok, failed) = (op.clone(), ok.clone(), failed.clone());
            tokio::spawn(async move {
                let mut i = 0u64;
                while Instant::now() < deadline {
                    let counter = if op(task, i).await { &ok } else { &failed };
                    counter.fetch_add(1, Ordering::Relaxed);
                    i += 1;
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    Counts {
        ok: ok.load(Ordering::Relaxed),
        failed: failed.load(Ordering::Relaxed),
        secs: start.elapsed().as_secs_f64(),
    }
}

/// A client speaking h2, as kubectl and client-go do (and as the raw etcd client
/// multiplexes its calls); `BENCH_HTTP1` makes it HTTP/1.1, a connection per concurrent
/// request.
pub fn kubectl_like(server: &common::Server) -> reqwest::Client {
    if std::env::var("BENCH_HTTP1").is_ok() {
        return server.client();
    }
    h2_client(&server.pki)
}

/// An h2 client trusting `pki`'s `serving-ca.crt`, with its `admin.crt` and `admin.key`.
pub fn h2_client(pki: &std::path::Path) -> reqwest::Client {
    let mut tls = common::tls_config(pki, Some(("admin.crt", "admin.key")));
    tls.alpn_protocols = vec![b"h2".to_vec()];
    reqwest::Client::builder()
        .use_preconfigured_tls(tls)
        .build()
        .unwrap()
}

const RATE_GOALS: &str = "Rate goals, each round's full-stack cell right after its raw etcd cell:";

fn main() {
    let sections = Sections::from_env();
    let open_files = procfs::raise_open_files();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        if sections.baseline {
            baseline::run().await;
        }
        if sections.webhook_idle {
            webhook_idle::run().await;
        }
        if sections.webhook {
            webhook_cells::run().await;
        }
        if sections.webhook_reference {
            webhook_reference::run().await;
        }
        if sections.policy {
            policy::run().await;
        }
        if sections.policy_reference {
            policy_reference::run().await;
        }
        if sections.conversion {
            conversion::run().await;
        }
        if sections.audit {
            audit::run().await;
        }
        if sections.encryption {
            encryption::run().await;
        }
        if sections.tracing {
            tracing_cells::run().await;
        }
        if sections.reference {
            let (rows, goals) = reference::run().await;
            print(&rows);
            rounds::print(RATE_GOALS, &goals);
        }
        let measured = if sections.crud || sections.fields {
            crud_and_fields(&sections).await
        } else {
            Measured::default()
        };
        let rows = &measured.rows;
        let mut combined: Vec<report::Row> = rows
            .iter()
            .map(|r| {
                let measurement = match (r.backend, r.op) {
                    ("embedded", op) => format!("{op} ops/s (raw: embedded store, not etcd)"),
                    (_, op) => format!("{op} ops/s"),
                };
                report::Row::new(
                    r.backend,
                    measurement,
                    r.concurrency,
                    r.full.per_sec,
                    Some(r.raw),
                )
            })
            .collect();
        combined.extend(cpu_rows(rows));
        if sections.list || sections.memory || sections.startup {
            stored::run(&sections, &mut combined).await;
        }
        let watch_goals = if sections.watch {
            watch::run(&mut combined).await
        } else {
            Vec::new()
        };
        if sections.crud {
            print(rows);
            rounds::print(RATE_GOALS, &measured.goals);
        }
        if sections.watch {
            let title =
                "The watch latency goal, each round's server cell right after a raw etcd cell:";
            rounds::print(title, &watch_goals);
        }
        if sections.fields {
            fields::print(&measured.writes);
        }
        let machine = format!("{}; open files limit {open_files}", procfs::machine());
        report::print(&combined, &machine);
    });
}
