//! LIST of a whole collection through the full HTTPS stack (no limit), and the raw etcd
//! range of the same keys: the median time of a few, and the peak extra resident memory
//! of the serving process during one: VmHWM is reset through `clear_refs` before each,
//! VmRSS read, the LIST or range run, VmHWM read; extra = VmHWM − VmRSS before.

use std::time::Instant;

use crate::common::Server;
use crate::{CT, procfs};

/// LISTs (and ranges) measured; the figures are their median (time) and maximum (memory).
pub const RUNS: usize = 5;

/// What one kind of read cost.
pub struct Reads {
    /// Median milliseconds per read.
    pub ms: f64,
    /// The largest peak extra RSS of the serving process over the runs, bytes.
    pub extra: u64,
    /// Bytes of one answer (the HTTP body; the keys and values of a range).
    pub bytes: u64,
    /// Milliseconds of the first read (one that fills a cache, say).
    pub first_ms: f64,
}

impl Reads {
    fn of(mut ms: Vec<f64>, extras: &[u64], bytes: u64) -> Reads {
        let first_ms = ms.first().copied().unwrap_or(f64::NAN);
        ms.sort_by(f64::total_cmp);
        Reads {
            first_ms,
            ms: ms[ms.len() / 2],
            extra: extras.iter().copied().max().unwrap_or(0),
            bytes,
        }
    }

    pub fn print(&self, what: &str, extras: &[u64]) {
        let mib = |b: u64| b as f64 / (1024.0 * 1024.0);
        let runs: Vec<String> = extras.iter().map(|e| format!("{:.1}", mib(*e))).collect();
        eprintln!(
            "{what}: median {:.1} ms, answer {:.1} MiB, peak extra RSS per run (MiB): {}",
            self.ms,
            mib(self.bytes),
            runs.join(" ")
        );
    }
}

/// `RUNS` full LISTs of the CronTabs from `server`, which must hold `expected` of them.
pub async fn full_stack(server: &Server, expected: usize, backend: &str) -> Reads {
    full_stack_at(server, CT, expected, backend).await
}

/// [`full_stack`] of the collection at `path` (another version of it, say).
pub async fn full_stack_at(server: &Server, path: &str, expected: usize, backend: &str) -> Reads {
    let client = server.client();
    let url = server.url(path);
    let pid = server.pid();
    // The connection and TLS session are not part of a LIST.
    let warm = client.get(format!("{url}?limit=1")).send().await.unwrap();
    assert_eq!(warm.status().as_u16(), 200);
    let _ = warm.bytes().await;
    let (mut ms, mut extras, mut bytes) = (Vec::new(), Vec::new(), 0);
    for run in 0..RUNS {
        procfs::reset_peak(pid);
        let before = procfs::rss(pid);
        let start = Instant::now();
        let r = client.get(&url).send().await.unwrap();
        assert_eq!(r.status().as_u16(), 200);
        let body = r.bytes().await.unwrap();
        ms.push(start.elapsed().as_secs_f64() * 1e3);
        extras.push(procfs::peak(pid).saturating_sub(before));
        bytes = body.len() as u64;
        if run == 0 {
            let list: serde_json::Value = serde_json::from_slice(&body).unwrap();
            assert_eq!(list["items"].as_array().map(Vec::len), Some(expected));
        }
    }
    let reads = Reads::of(ms, &extras, bytes);
    reads.print(&format!("{backend} LIST of {expected}"), &extras);
    reads
}

/// `RUNS` ranges of every key under `prefix` straight from etcd (process `pid`).
pub async fn raw_etcd(endpoint: &str, pid: u32, prefix: &str, expected: usize) -> Reads {
    // tonic's 4 MiB default would refuse the ~11 MiB answer; the server lifts it too.
    let mut client = etcd_client::Client::connect([endpoint], None)
        .await
        .unwrap()
        .kv_client()
        .max_decoding_message_size(usize::MAX);
    let options = || Some(etcd_client::GetOptions::new().with_prefix());
    client.get(prefix, options()).await.unwrap();
    let (mut ms, mut extras, mut bytes) = (Vec::new(), Vec::new(), 0);
    for _ in 0..RUNS {
        procfs::reset_peak(pid);
        let before = procfs::rss(pid);
        let start = Instant::now();
        let r = client.get(prefix, options()).await.unwrap();
        ms.push(start.elapsed().as_secs_f64() * 1e3);
        extras.push(procfs::peak(pid).saturating_sub(before));
        assert_eq!(r.kvs().len(), expected, "keys under {prefix}");
        bytes = r
            .kvs()
            .iter()
            .map(|kv| (kv.key().len() + kv.value().len()) as u64)
            .sum();
    }
    let reads = Reads::of(ms, &extras, bytes);
    reads.print(&format!("raw etcd range of {expected}"), &extras);
    reads
}

/// The etcd key prefix of the collection whose object `name` is stored under the
/// server's `--etcd-prefix` (found, not assumed: the key layout belongs to `src/`).
pub async fn etcd_prefix_of(endpoint: &str, name: &str) -> String {
    let mut client = etcd_client::Client::connect([endpoint], None)
        .await
        .unwrap();
    let options = etcd_client::GetOptions::new()
        .with_all_keys()
        .with_keys_only();
    let r = client.get("", Some(options)).await.unwrap();
    let suffix = format!("/{name}");
    let key = r
        .kvs()
        .iter()
        .filter_map(|kv| kv.key_str().ok())
        .find(|k| k.ends_with(&suffix))
        .unwrap_or_else(|| panic!("no etcd key ends with {suffix}"));
    format!("{}/", &key[..key.len() - suffix.len()])
}
