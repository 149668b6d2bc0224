//! The write cells of the webhook sections: creates and updates (PUT) of the 1 KiB
//! CronTab from `concurrency` workers, each with the server's CPU µs per write, and two
//! series of such samples compared on their medians (`Compared`, one table row).

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use crate::common::resource_version;
use crate::cpu::Cpu;
use crate::crud::creates;
use crate::report::figure;
use crate::{count, object};

/// The write a cell measures.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Write {
    Create,
    /// PUT of the worker's own object with a new `spec.replicas`.
    Update,
}

/// One measured cell.
#[derive(Clone, Copy)]
pub struct Sample {
    pub per_sec: f64,
    /// Server user + system CPU µs per successful write.
    pub cpu_us: f64,
    pub ok: u64,
}

/// Measures `write` against the collection at `url` of the server whose CPU is `cpu`;
/// object names start with `tag`, which no earlier cell used.
pub async fn measure(
    write: Write,
    client: &reqwest::Client,
    url: &str,
    tag: &str,
    concurrency: usize,
    cpu: &Cpu,
) -> Sample {
    let targets = match write {
        Write::Create => None,
        Write::Update => Some(Arc::new(targets(client, url, tag, concurrency).await)),
    };
    let before = cpu.used();
    let counts = match targets {
        None => creates(client, url, tag, concurrency).await,
        Some(targets) => {
            count(concurrency, move |task, i| {
                let targets = targets.clone();
                async move { targets.update(task, i).await }
            })
            .await
        }
    };
    let used = cpu.used() - before;
    assert_eq!(counts.failed, 0, "{write:?} {tag}: 409 Conflicts");
    Sample {
        per_sec: counts.per_sec(),
        cpu_us: used.as_secs_f64() * 1e6 / counts.ok.max(1) as f64,
        ok: counts.ok,
    }
}

/// Creates a few objects unmeasured: a server's first writes after start (or after a
/// definition is created) wait for what it starts lazily (kube's first create of a new
/// resource took seconds).
pub async fn warm_up(client: &reqwest::Client, url: &str, tag: &str) {
    for i in 0..8 {
        let name = format!("{tag}-warm-{i}");
        let r = client.post(url).json(&object(&name)).send().await.unwrap();
        assert_eq!(r.status().as_u16(), 201, "create {name}");
        let _ = r.bytes().await;
    }
}

/// One object per worker with the resourceVersion of its last write.
struct Targets {
    client: reqwest::Client,
    url: String,
    names: Vec<String>,
    versions: Vec<Mutex<String>>,
}

async fn targets(client: &reqwest::Client, url: &str, tag: &str, concurrency: usize) -> Targets {
    let names: Vec<String> = (0..concurrency).map(|t| format!("{tag}-u{t}")).collect();
    let mut versions = Vec::new();
    for name in &names {
        let r = client.post(url).json(&object(name)).send().await.unwrap();
        assert_eq!(r.status().as_u16(), 201, "create {name}");
        let created: Value = r.json().await.unwrap();
        versions.push(Mutex::new(resource_version(&created)));
    }
    Targets {
        client: client.clone(),
        url: url.to_string(),
        names,
        versions,
    }
}

impl Targets {
    /// PUTs worker `task`'s object with `spec.replicas` = `i`; false on a 409.
    async fn update(&self, task: usize, i: u64) -> bool {
        let name = &self.names[task];
        let mut body = object(name);
        body["spec"]["replicas"] = json!(i);
        body["metadata"]["resourceVersion"] = json!(self.versions[task].lock().unwrap().clone());
        let url = format!("{}/{name}", self.url);
        let r = self.client.put(url).json(&body).send().await.unwrap();
        let status = r.status().as_u16();
        assert!(status == 200 || status == 409, "update {name}: {status}");
        let written: Value = r.json().await.unwrap();
        if status == 200 {
            *self.versions[task].lock().unwrap() = resource_version(&written);
        }
        status == 200
    }
}

/// One cell of two series (A and B) over alternated rounds.
pub struct Compared {
    pub label: String,
    pub a: Vec<Sample>,
    pub b: Vec<Sample>,
}

fn median(samples: &[Sample], of: impl Fn(&Sample) -> f64) -> f64 {
    let mut values: Vec<f64> = samples.iter().map(of).collect();
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(f64::NAN)
}

impl Compared {
    pub fn new(label: String) -> Compared {
        Compared {
            label,
            a: Vec::new(),
            b: Vec::new(),
        }
    }

    /// The table's header, naming series A and B.
    pub fn header(a: &str, b: &str) {
        println!(
            "| cell | {a} ops/s | {b} ops/s | ops/s {a} ÷ {b} | {a} CPU µs/op | {b} CPU µs/op | CPU {a} ÷ {b} | CPU {a} − {b} µs | rounds' CPU µs/op ({a} / {b}) |"
        );
        println!("|---|--:|--:|--:|--:|--:|--:|--:|---|");
    }

    /// Its row: medians of the rounds, their ratios and difference, and each round's CPU.
    pub fn row(&self) {
        let rate = |s: &[Sample]| median(s, |x| x.per_sec);
        let cpu = |s: &[Sample]| median(s, |x| x.cpu_us);
        let each = |s: &[Sample]| {
            let v: Vec<String> = s.iter().map(|x| figure(x.cpu_us)).collect();
            v.join(", ")
        };
        println!(
            "| {} | {} | {} | {:.3} | {} | {} | {:.3} | {:+.0} | {} / {} |",
            self.label,
            figure(rate(&self.a)),
            figure(rate(&self.b)),
            rate(&self.a) / rate(&self.b),
            figure(cpu(&self.a)),
            figure(cpu(&self.b)),
            cpu(&self.a) / cpu(&self.b),
            cpu(&self.a) - cpu(&self.b),
            each(&self.a),
            each(&self.b),
        );
    }
}
