//! Field-management cells: updates (PUT) of a 1 KiB CronTab without managedFields, the
//! same with managedFields, and server-side applies of it, each with the server's CPU
//! time per write, so the cost of field tracking shows against the untracked write.
//!
//! Objects without managedFields stay untracked because kube's skipNonAppliedManager
//! does not track an existing object (it has a uid) whose managedFields were cleared:
//! the cells clear them with a merge patch of `[{}]` and check a GET shows none, before
//! and after measuring. Each worker writes its own object and keeps the resourceVersion
//! of its last response, so no write should meet a 409; any 409 is counted as failed.
//! The three writes take turns for three rounds; a cell reports its median round.

use std::sync::{Arc, Mutex};

use reqwest::header::CONTENT_TYPE;
use serde_json::{Value, json};

use crate::common::{Server, resource_version};
use crate::cpu::Cpu;
use crate::{CT, count, object};

pub const CONCURRENCY: [usize; 2] = [1, 16];
/// Rounds per cell, each of `BENCH_SECONDS`.
const ROUNDS: u64 = 3;
const MANAGER: &str = "bench";
const APPLY_PATCH: &str = "application/apply-patch+yaml";
const MERGE_PATCH: &str = "application/merge-patch+json";

/// The write a cell measures.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Write {
    /// PUT of an object whose managedFields were cleared (skipNonApplied).
    Untracked,
    /// PUT of an object that carries managedFields.
    Tracked,
    /// `application/apply-patch+yaml` with `force=true`.
    Apply,
}

impl Write {
    pub const ALL: [Write; 3] = [Write::Untracked, Write::Tracked, Write::Apply];

    pub fn label(self) -> &'static str {
        match self {
            Write::Untracked => "update without managedFields",
            Write::Tracked => "update with managedFields",
            Write::Apply => "apply",
        }
    }

    fn tag(self) -> &'static str {
        match self {
            Write::Untracked => "plain",
            Write::Tracked => "managed",
            Write::Apply => "apply",
        }
    }
}

/// One measured cell: the median of its rounds.
pub struct Cell {
    pub write: Write,
    pub backend: &'static str,
    pub concurrency: usize,
    rounds: Vec<Round>,
}

/// One round of a cell.
struct Round {
    per_sec: f64,
    /// Server user + system CPU µs per successful write.
    cpu_us: f64,
    /// Writes answered 409 Conflict.
    conflicts: u64,
}

impl Cell {
    fn median(&self, of: impl Fn(&Round) -> f64) -> f64 {
        let mut values: Vec<f64> = self.rounds.iter().map(of).collect();
        values.sort_by(f64::total_cmp);
        values[values.len() / 2]
    }

    pub fn per_sec(&self) -> f64 {
        self.median(|r| r.per_sec)
    }

    pub fn cpu_us(&self) -> f64 {
        self.median(|r| r.cpu_us)
    }

    fn cpu_range(&self) -> (f64, f64) {
        let cpu = self.rounds.iter().map(|r| r.cpu_us);
        (
            cpu.clone().fold(f64::MAX, f64::min),
            cpu.fold(0.0, f64::max),
        )
    }

    fn conflicts(&self) -> u64 {
        self.rounds.iter().map(|r| r.conflicts).sum()
    }
}

/// The objects of one cell, one per worker, with the last resourceVersion of each.
struct Objects {
    client: reqwest::Client,
    url: String,
    names: Vec<String>,
    versions: Vec<Mutex<String>>,
}

/// Every write at every concurrency against `server`: the three writes of a concurrency
/// take turns for `ROUNDS` rounds, so load from outside the bench falls on all alike.
pub async fn cells(server: &Server, backend: &'static str) -> Vec<Cell> {
    let cpu = Cpu::of(server.pid());
    let mut cells = Vec::new();
    for concurrency in CONCURRENCY {
        let mut turn = Vec::new();
        for write in Write::ALL {
            turn.push((
                write,
                Arc::new(objects(server, backend, write, concurrency).await),
            ));
        }
        let mut rounds: Vec<Vec<Round>> = turn.iter().map(|_| Vec::new()).collect();
        for round in 0..ROUNDS {
            for ((write, objects), done) in turn.iter().zip(&mut rounds) {
                done.push(measure(&cpu, objects.clone(), *write, concurrency, round).await);
            }
        }
        for ((write, objects), rounds) in turn.into_iter().zip(rounds) {
            for name in &objects.names {
                check(
                    &live(&objects.client, &objects.url, name).await,
                    write,
                    name,
                );
            }
            cells.push(Cell {
                write,
                backend,
                concurrency,
                rounds,
            });
        }
    }
    cells
}

/// One object per worker, prepared for `write`.
async fn objects(server: &Server, backend: &str, write: Write, concurrency: usize) -> Objects {
    let client = server.client();
    let url = server.url(CT);
    let names: Vec<String> = (0..concurrency)
        .map(|task| format!("fm-{backend}-{}-c{concurrency}-{task}", write.tag()))
        .collect();
    let mut versions = Vec::new();
    for name in &names {
        versions.push(Mutex::new(prepare(&client, &url, write, name).await));
    }
    Objects {
        client,
        url,
        names,
        versions,
    }
}

/// One round of `write` from `concurrency` workers, with the server's CPU time.
async fn measure(
    cpu: &Cpu,
    objects: Arc<Objects>,
    write: Write,
    concurrency: usize,
    round: u64,
) -> Round {
    let before = cpu.used();
    let counts = count(concurrency, move |task, i| {
        let objects = objects.clone();
        // A value no earlier round wrote (rounds stay far below a million writes a
        // worker), so every write changes the object; int32 as replicas must be.
        let replicas = round * 1_000_000 + i;
        async move { one_write(&objects, write, task, replicas).await }
    })
    .await;
    let used = cpu.used() - before;
    Round {
        per_sec: counts.per_sec(),
        cpu_us: used.as_secs_f64() * 1e6 / counts.ok.max(1) as f64,
        conflicts: counts.failed,
    }
}

/// Creates `name` as `write` needs it; returns its resourceVersion.
async fn prepare(client: &reqwest::Client, url: &str, write: Write, name: &str) -> String {
    let created = match write {
        Write::Apply => client
            .patch(format!("{url}/{name}?fieldManager={MANAGER}&force=true"))
            .header(CONTENT_TYPE, APPLY_PATCH)
            .body(object(name).to_string()),
        Write::Untracked | Write::Tracked => client
            .post(format!("{url}?fieldManager={MANAGER}"))
            .json(&object(name)),
    };
    let r = created.send().await.unwrap();
    assert_eq!(
        r.status().as_u16(),
        201,
        "create {name}: {}",
        r.text().await.unwrap()
    );
    if write == Write::Untracked {
        let r = client
            .patch(format!("{url}/{name}"))
            .header(CONTENT_TYPE, MERGE_PATCH)
            .body(json!({"metadata": {"managedFields": [{}]}}).to_string())
            .send()
            .await
            .unwrap();
        assert_eq!(
            r.status().as_u16(),
            200,
            "clear {name}: {}",
            r.text().await.unwrap()
        );
    }
    let object = live(client, url, name).await;
    check(&object, write, name);
    resource_version(&object)
}

/// GET of `name`.
async fn live(client: &reqwest::Client, url: &str, name: &str) -> Value {
    let r = client.get(format!("{url}/{name}")).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 200, "get {name}");
    r.json().await.unwrap()
}

/// Untracked objects hold no managedFields; the others hold some, an apply's an Apply entry.
fn check(object: &Value, write: Write, name: &str) {
    let entries = object["metadata"]["managedFields"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let applied = entries.iter().any(|e| e["operation"] == "Apply");
    let ok = match write {
        Write::Untracked => entries.is_empty(),
        Write::Tracked => !entries.is_empty(),
        Write::Apply => applied,
    };
    assert!(ok, "{} {name}: managedFields {entries:?}", write.label());
}

/// One write of worker `task`'s object with `spec.replicas` = `replicas`; false on a 409.
async fn one_write(objects: &Objects, write: Write, task: usize, replicas: u64) -> bool {
    let name = &objects.names[task];
    let url = format!("{}/{name}?fieldManager={MANAGER}", objects.url);
    let mut body = object(name);
    body["spec"]["replicas"] = json!(replicas);
    let request = match write {
        Write::Apply => objects
            .client
            .patch(format!("{url}&force=true"))
            .header(CONTENT_TYPE, APPLY_PATCH)
            .body(body.to_string()),
        Write::Untracked | Write::Tracked => {
            let version = objects.versions[task].lock().unwrap().clone();
            body["metadata"]["resourceVersion"] = json!(version);
            objects.client.put(url).json(&body)
        }
    };
    let r = request.send().await.unwrap();
    match r.status().as_u16() {
        200 => {
            let written: Value = r.json().await.unwrap();
            *objects.versions[task].lock().unwrap() = resource_version(&written);
            true
        }
        409 => {
            let fresh = live(&objects.client, &objects.url, name).await;
            *objects.versions[task].lock().unwrap() = resource_version(&fresh);
            false
        }
        status => panic!(
            "{} {name}: {status} {}",
            write.label(),
            r.text().await.unwrap()
        ),
    }
}

/// The table of cells, each CPU per write also against the untracked update's.
pub fn print(cells: &[Cell]) {
    println!();
    println!(
        "| operation                    | backend  | concurrency | ops/s | server CPU µs/op | rounds' CPU µs/op | CPU × update without | 409s |"
    );
    println!(
        "|------------------------------|----------|------------:|------:|-----------------:|------------------:|---------------------:|-----:|"
    );
    for c in cells {
        let base = cells
            .iter()
            .find(|b| {
                b.write == Write::Untracked
                    && b.backend == c.backend
                    && b.concurrency == c.concurrency
            })
            .map_or(f64::NAN, Cell::cpu_us);
        let (low, high) = c.cpu_range();
        println!(
            "| {:<28} | {:<8} | {:>11} | {:>5.0} | {:>16.0} | {:>17} | {:>20.2} | {:>4} |",
            c.write.label(),
            c.backend,
            c.concurrency,
            c.per_sec(),
            c.cpu_us(),
            format!("{low:.0}–{high:.0}"),
            c.cpu_us() / base,
            c.conflicts()
        );
    }
}
