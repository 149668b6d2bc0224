//! The create and GET cells: measured at each concurrency on an etcd-backed and an
//! embedded server against the raw store underneath, with the CPU each process spent per
//! operation; their own tables, and their rows in the combined table.

use std::sync::Arc;

use crd_apiserver::storage::Store;
use crd_apiserver::storage::embedded::EmbeddedStore;

use crate::meters::{Meters, PerOp};
use crate::{CONCURRENCY, CT, Counts, Sections, common, etcd, fields, kubectl_like, object};
use crate::{rate, report, rounds};

/// A create or GET cell: its rate and what each process spent per operation.
pub struct Cell {
    pub per_sec: f64,
    pub cpu: PerOp,
}

impl From<(Counts, PerOp)> for Cell {
    fn from((counts, cpu): (Counts, PerOp)) -> Cell {
        Cell {
            per_sec: counts.per_sec(),
            cpu,
        }
    }
}

pub struct Row {
    pub backend: &'static str,
    pub op: &'static str,
    pub concurrency: usize,
    pub full: Cell,
    pub raw: f64,
    /// The raw etcd cell (etcd-backed rows only; the embedded store's raw figure runs in
    /// this process).
    pub raw_etcd: Option<Cell>,
}

impl Row {
    /// The create and GET rows of one concurrency, against raw etcd's puts and ranges.
    pub fn against_etcd(
        backend: &'static str,
        concurrency: usize,
        (creates, gets): (Cell, Cell),
        (puts, ranges): (Cell, Cell),
    ) -> [Row; 2] {
        let row = |op, full, raw: Cell| Row {
            backend,
            op,
            concurrency,
            raw: raw.per_sec,
            full,
            raw_etcd: Some(raw),
        };
        [row("create", creates, puts), row("get", gets, ranges)]
    }

    /// The embedded server's create and GET rows of one concurrency, against the embedded
    /// store's own creates and gets per second, called in this process.
    pub fn against_embedded(
        concurrency: usize,
        (creates, gets): (Cell, Cell),
        (raw_creates, raw_gets): (f64, f64),
    ) -> [Row; 2] {
        let row = |op, full, raw| Row {
            backend: "embedded",
            op,
            concurrency,
            raw,
            full,
            raw_etcd: None,
        };
        [
            row("create", creates, raw_creates),
            row("get", gets, raw_gets),
        ]
    }
}

pub fn print(rows: &[Row]) {
    println!();
    println!("| backend  | operation | concurrency | full stack ops/s | raw store ops/s | ratio |");
    println!("|----------|-----------|------------:|-----------------:|----------------:|------:|");
    for r in rows {
        println!(
            "| {:<8} | {:<9} | {:>11} | {:>16.0} | {:>15.0} | {:>5.2} |",
            r.backend,
            r.op,
            r.concurrency,
            r.full.per_sec,
            r.raw,
            r.full.per_sec / r.raw
        );
    }
    println!();
    println!("CPU µs per operation by process, and the cores the three kept busy together:");
    println!();
    println!("| cell | concurrency | ops/s | server | etcd | load generator | all | cores busy |");
    println!("|------|------------:|------:|-------:|-----:|---------------:|----:|-----------:|");
    let line = |what: String, concurrency: usize, cell: &Cell| {
        let c = &cell.cpu;
        println!(
            "| {what} | {concurrency} | {:.0} | {:.0} | {:.0} | {:.0} | {:.0} | {:.2} |",
            cell.per_sec,
            c.server,
            c.etcd,
            c.generator,
            c.total(),
            c.total() * cell.per_sec / 1e6
        );
    };
    for r in rows {
        if let Some(raw) = &r.raw_etcd {
            let op = if r.op == "create" { "put" } else { "range" };
            line(format!("raw etcd {op}"), r.concurrency, raw);
        }
        line(
            format!("{} server, {}", r.backend, r.op),
            r.concurrency,
            &r.full,
        );
    }
}

/// Rows of the combined table: what all processes spent per etcd-backed operation against
/// a raw etcd one.
pub fn cpu_rows(rows: &[Row]) -> Vec<report::Row> {
    rows.iter()
        .filter_map(|r| {
            let raw = r.raw_etcd.as_ref()?;
            let measurement = format!("{}: CPU µs per op, server + etcd + load generator", r.op);
            Some(report::Row::new(
                r.backend,
                measurement,
                r.concurrency,
                r.full.cpu.total(),
                Some(raw.cpu.total()),
            ))
        })
        .collect()
}

/// What the crud and fields sections measured.
#[derive(Default)]
pub struct Measured {
    pub rows: Vec<Row>,
    pub writes: Vec<fields::Cell>,
    pub goals: Vec<rounds::Goal>,
}

/// Creates and GETs at each concurrency, then the rate goals in alternation (`crud`),
/// and the field-management cells (`fields`), on an etcd-backed and an embedded server.
pub async fn crud_and_fields(sections: &Sections) -> Measured {
    let mut measured = Measured::default();
    let (rows, writes) = (&mut measured.rows, &mut measured.writes);
    let etcd = etcd::Etcd::start_durable();
    let server = common::Server::start_with(&["--etcd-servers", &etcd.endpoint]);
    let meters = Meters::new(Some(server.pid()), Some(etcd.pid()));
    let (client, url) = (kubectl_like(&server), server.url(CT));
    for c in CONCURRENCY.into_iter().filter(|_| sections.crud) {
        let (raw_puts, raw_gets) = raw_etcd(&etcd.endpoint, c, &meters).await;
        let (creates, gets) = full_stack(&client, &url, "etcd", c, &meters).await;
        rows.extend(Row::against_etcd(
            "etcd",
            c,
            (creates, gets),
            (raw_puts, raw_gets),
        ));
    }
    if sections.crud {
        let goals = rounds::run(&client, &url, "etcd server", "etcd", &etcd.endpoint).await;
        measured.goals.extend(goals);
    }
    if sections.fields {
        writes.extend(fields::cells(&server, "etcd").await);
    }
    drop(server);
    let server = common::Server::start();
    let meters = Meters::new(Some(server.pid()), None);
    let dir = tempfile::tempdir().unwrap();
    let store = EmbeddedStore::open(dir.path()).unwrap();
    let (client, url) = (kubectl_like(&server), server.url(CT));
    for c in CONCURRENCY.into_iter().filter(|_| sections.crud) {
        let (raw_creates, raw_gets) = raw_embedded(store.clone(), c).await;
        let (creates, gets) = full_stack(&client, &url, "emb", c, &meters).await;
        rows.extend(Row::against_embedded(
            c,
            (creates, gets),
            (raw_creates, raw_gets),
        ));
    }
    if sections.crud {
        // Against raw etcd, which is still running: the goals are ratios to it.
        let goals = rounds::run(&client, &url, "embedded server", "emb", &etcd.endpoint).await;
        measured.goals.extend(goals);
    }
    if sections.fields {
        writes.extend(fields::cells(&server, "embedded").await);
    }
    measured
}

/// Full-stack creates and GETs through HTTPS against the collection at `url`.
pub async fn full_stack(
    client: &reqwest::Client,
    url: &str,
    tag: &str,
    concurrency: usize,
    meters: &Meters,
) -> (Cell, Cell) {
    let created = meters.measure(creates(client, url, tag, concurrency)).await;
    let got = meters.measure(gets(client, url, tag, concurrency)).await;
    (Cell::from(created), Cell::from(got))
}

/// Raw etcd puts and ranges of the same value size.
pub async fn raw_etcd(endpoint: &str, concurrency: usize, meters: &Meters) -> (Cell, Cell) {
    let client = etcd_client::Client::connect([endpoint], None)
        .await
        .unwrap();
    let puts = meters.measure(raw_puts(&client, concurrency)).await;
    let ranges = meters.measure(raw_ranges(&client, concurrency)).await;
    (Cell::from(puts), Cell::from(ranges))
}

/// Creates of 1 KiB objects named after `tag` through `client` (each must be created).
pub async fn creates(client: &reqwest::Client, url: &str, tag: &str, concurrency: usize) -> Counts {
    let (c, u, t) = (client.clone(), url.to_string(), tag.to_string());
    rate(concurrency, move |task, i| {
        let (c, u) = (c.clone(), u.clone());
        let name = object_name(&t, concurrency, task, i);
        async move {
            let r = c.post(u).json(&object(&name)).send().await.unwrap();
            assert_eq!(r.status().as_u16(), 201, "create {name}");
            // Read, as clients do: an h2 client resets the streams of dropped responses.
            let _ = r.bytes().await;
        }
    })
    .await
}

/// GETs of the objects that [`creates`] made under `tag` at this concurrency (each task
/// reads its first 8, which must exist).
pub async fn gets(client: &reqwest::Client, url: &str, tag: &str, concurrency: usize) -> Counts {
    let (c, u, t) = (client.clone(), url.to_string(), tag.to_string());
    rate(concurrency, move |task, i| {
        let c = c.clone();
        let name = object_name(&t, concurrency, task, i % 8);
        let url = format!("{u}/{name}");
        async move {
            let r = c.get(url).send().await.unwrap();
            assert_eq!(r.status().as_u16(), 200, "GET {name}");
            let _ = r.bytes().await;
        }
    })
    .await
}

/// Raw etcd puts of a 1 KiB value under this concurrency's keys.
pub async fn raw_puts(client: &etcd_client::Client, concurrency: usize) -> Counts {
    let (c, v) = (client.clone(), object("raw").to_string().into_bytes());
    rate(concurrency, move |task, i| {
        let (mut c, v) = (c.clone(), v.clone());
        async move {
            c.put(raw_key(concurrency, task, i), v, None).await.unwrap();
        }
    })
    .await
}

/// Raw etcd ranges of the keys [`raw_puts`] wrote at this concurrency (each task reads
/// its first 8).
pub async fn raw_ranges(client: &etcd_client::Client, concurrency: usize) -> Counts {
    let c = client.clone();
    rate(concurrency, move |task, i| {
        let mut c = c.clone();
        async move {
            c.get(raw_key(concurrency, task, i % 8), None)
                .await
                .unwrap();
        }
    })
    .await
}

/// The full-stack cells' name of `task`'s `i`th object.
fn object_name(tag: &str, concurrency: usize, task: usize, i: u64) -> String {
    format!("{tag}-c{concurrency}-{task}-{i}")
}

/// The raw cells' key of `task`'s `i`th value.
fn raw_key(concurrency: usize, task: usize, i: u64) -> String {
    format!("/raw/c{concurrency}/{task}/{i}")
}

/// Raw embedded-store commits and reads through the Store trait, no HTTP.
async fn raw_embedded(store: Arc<EmbeddedStore>, concurrency: usize) -> (f64, f64) {
    let value = object("raw").to_string().into_bytes();
    let (s, v) = (store.clone(), value.clone());
    let creates = rate(concurrency, move |task, i| {
        let (s, v) = (s.clone(), v.clone());
        async move {
            s.create(&raw_key(concurrency, task, i), v).await.unwrap();
        }
    })
    .await;
    let gets = rate(concurrency, move |task, i| {
        let s = store.clone();
        async move {
            s.get(&raw_key(concurrency, task, i % 8)).await.unwrap();
        }
    })
    .await;
    (creates.per_sec(), gets.per_sec())
}
