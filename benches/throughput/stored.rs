//! The stored-collection sections, on one server per backend holding 10,000 1 KiB
//! CronTabs: LIST of all of them (`list`), resident memory per stored object (`memory`)
//! and start-to-ready with an empty store and with the 10,000 (`startup`). Every
//! baseline is raw etcd, measured on the etcd that the etcd-backed server filled: a range
//! of the same keys, etcd's own memory growth, etcd's own start.
//!
//! Memory per object is the server's VmRSS after the creates and one full LIST (so that
//! a cache would hold them), minus its VmRSS empty (after one warm-up LIST), over 10,000;
//! memory the allocator kept from the LIST's buffers counts too, as in a deployment, so
//! the figure after the creates alone is reported beside it. The LIST section's runs
//! come after it. etcd's figure is its growth over the fill, ranges included.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::common::Server;
use crate::etcd::Etcd;
use crate::list::{self, Reads};
use crate::report::Row;
use crate::{CT, Sections, object, procfs, startup};

pub const OBJECTS: usize = 10_000;
/// Concurrent creates while filling the store.
const CREATORS: usize = 64;
const KIB: f64 = 1024.0;
const MIB: f64 = 1024.0 * 1024.0;

/// One backend's figures (None: the section was not selected).
#[derive(Default)]
struct Figures {
    start_empty_ms: Option<f64>,
    start_full_ms: Option<f64>,
    list: Option<Reads>,
    /// Resident bytes per stored object: after the creates, and after a full LIST.
    per_object: Option<(f64, f64)>,
}

pub async fn run(want: &Sections, rows: &mut Vec<Row>) {
    let mut etcd = Etcd::start_durable();
    let mut raw = Figures::default();
    if want.startup {
        raw.start_empty_ms = Some(startup::etcd_ready_ms(&mut etcd));
    }
    let etcd_empty = procfs::rss(procfs::etcd_pid(etcd.dir.path()));
    let flags = etcd.flags();
    let server = Server::start_with(&flags.iter().map(String::as_str).collect::<Vec<_>>());
    let mut full = Figures::default();
    fill(&server, &flags, want, &mut full).await;
    let etcd_pid = procfs::etcd_pid(etcd.dir.path());
    if want.list || want.memory {
        let prefix = list::etcd_prefix_of(&etcd.endpoint, "o-0").await;
        let reads = list::raw_etcd(&etcd.endpoint, etcd_pid, &prefix, OBJECTS).await;
        let grown = procfs::rss(etcd_pid) as f64 - etcd_empty as f64;
        eprintln!(
            "raw etcd: RSS +{:.1} MiB with {OBJECTS} objects",
            grown / MIB
        );
        raw.per_object = Some((grown / OBJECTS as f64, grown / OBJECTS as f64));
        raw.list = Some(reads);
    }
    if want.startup {
        full.start_full_ms = Some(startup::ready_ms(server, &flags).await);
        raw.start_full_ms = Some(startup::etcd_ready_ms(&mut etcd));
    }
    push(rows, "etcd", &full, &raw);
    drop(etcd);

    let server = Server::start();
    let mut embedded = Figures::default();
    fill(&server, &[], want, &mut embedded).await;
    if want.startup {
        embedded.start_full_ms = Some(startup::ready_ms(server, &[]).await);
    }
    push(rows, "embedded", &embedded, &raw);
}

/// Start-to-ready empty (on a throwaway server with the same flags, so that the
/// measured start finds its PKI made), then fills `server` and runs LIST and memory.
async fn fill(server: &Server, flags: &[String], want: &Sections, figures: &mut Figures) {
    if want.startup {
        let args: Vec<&str> = flags.iter().map(String::as_str).collect();
        let throwaway = Server::start_with(&args);
        figures.start_empty_ms = Some(startup::ready_ms(throwaway, flags).await);
    }
    let pid = server.pid();
    let client = crate::kubectl_like(server);
    let url = server.url(CT);
    let warm = client.get(&url).send().await.unwrap();
    assert_eq!(warm.status().as_u16(), 200);
    let _ = warm.bytes().await;
    let empty = procfs::rss(pid);
    create_all(&client, &url).await;
    let created = procfs::rss(pid);
    let r = client.get(&url).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let _ = r.bytes().await;
    let listed = procfs::rss(pid);
    eprintln!(
        "{}: RSS empty {:.1} MiB, after {OBJECTS} creates {:.1} MiB, after a LIST {:.1} MiB",
        backend_of(flags),
        empty as f64 / MIB,
        created as f64 / MIB,
        listed as f64 / MIB
    );
    if want.memory {
        let per = |rss: u64| (rss as f64 - empty as f64) / OBJECTS as f64;
        figures.per_object = Some((per(created), per(listed)));
    }
    if want.list {
        figures.list = Some(list::full_stack(server, OBJECTS, backend_of(flags)).await);
    }
}

fn backend_of(flags: &[String]) -> &'static str {
    if flags.is_empty() { "embedded" } else { "etcd" }
}

/// Creates `o-0` … `o-9999` from `CREATORS` tasks.
pub async fn create_all(client: &reqwest::Client, url: &str) {
    let next = Arc::new(AtomicUsize::new(0));
    let tasks: Vec<_> = (0..CREATORS)
        .map(|_| {
            let (client, url, next) = (client.clone(), url.to_string(), next.clone());
            tokio::spawn(async move {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= OBJECTS {
                        return;
                    }
                    let r = client
                        .post(&url)
                        .json(&object(&format!("o-{i}")))
                        .send()
                        .await
                        .unwrap();
                    assert_eq!(r.status().as_u16(), 201, "create o-{i}");
                    let _ = r.bytes().await;
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
}

/// The rows of one backend, against raw etcd's figures.
fn push(rows: &mut Vec<Row>, backend: &'static str, full: &Figures, raw: &Figures) {
    let n = format!("{OBJECTS} × 1 KiB");
    if let (Some(f), Some(r)) = (&full.list, &raw.list) {
        rows.push(Row::new(
            backend,
            format!("LIST of {n}, ms (median of {})", list::RUNS),
            1,
            f.ms,
            Some(r.ms),
        ));
        rows.push(Row::new(
            backend,
            "LIST: peak extra RSS of the server (raw: of etcd), MiB",
            1,
            f.extra as f64 / MIB,
            Some(r.extra as f64 / MIB),
        ));
        rows.push(Row::new(
            backend,
            "LIST: peak extra RSS ÷ answer bytes (goal ≤ 1.2)",
            1,
            f.extra as f64 / f.bytes as f64,
            Some(r.extra as f64 / r.bytes as f64),
        ));
    }
    if let (Some(f), Some(r)) = (full.per_object, raw.per_object) {
        rows.push(Row::new(
            backend,
            "RSS per stored 1 KiB object after a full LIST, KiB (goal ≤ 2.5)",
            "",
            f.1 / KIB,
            Some(r.1 / KIB),
        ));
        rows.push(Row::new(
            backend,
            "RSS per stored 1 KiB object after the creates only, KiB",
            "",
            f.0 / KIB,
            Some(r.0 / KIB),
        ));
    }
    let starts = [
        (
            "empty, ms (goal ≤ 100)",
            full.start_empty_ms,
            raw.start_empty_ms,
        ),
        (
            "10,000 objects, ms (goal ≤ 1000)",
            full.start_full_ms,
            raw.start_full_ms,
        ),
    ];
    for (what, f, r) in starts {
        if let Some(f) = f {
            rows.push(Row::new(
                backend,
                format!("start to /readyz 200, {what}"),
                "",
                f,
                r,
            ));
        }
    }
}
