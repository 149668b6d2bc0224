//! Start-to-ready: the time from spawning the server process to its `/readyz` answering
//! 200 (the first answer includes the client's TLS handshake, as a kubelet probe's does),
//! and the raw etcd figure: from spawning etcd to its log saying it serves clients.
//!
//! `common::Server::restart` stops and spawns in one call, so the server is spawned here
//! with the fixture's own arguments on a stopped fixture's PKI and data dir, and the
//! clock starts at the spawn.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{self, Server};
use crate::etcd::Etcd;

/// How often `/readyz` is asked; small against the 100 ms goal.
const POLL: Duration = Duration::from_millis(2);
const DEADLINE: Duration = Duration::from_secs(60);

/// Starts (spawn to ready) measured; the figure is their median.
pub const RUNS: usize = 3;

/// Stops `server` and starts the binary `RUNS` times on its PKI and data with `extra`
/// flags, each stopped with SIGTERM (a clean shutdown, as a rolling restart does);
/// returns the median milliseconds from spawn to `/readyz` 200.
pub async fn ready_ms(mut server: Server, extra: &[String]) -> f64 {
    server.terminate();
    let mut runs = Vec::new();
    for _ in 0..RUNS {
        runs.push(start_once(&server, extra).await);
    }
    eprintln!("start to ready, ms: {runs:.1?}");
    runs.sort_by(f64::total_cmp);
    runs[RUNS / 2]
}

async fn start_once(server: &Server, extra: &[String]) -> f64 {
    let client = common::client_with(&server.pki, Some(("admin.crt", "admin.key")));
    let start = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_crd-apiserver"))
        .current_dir(common::repo_root())
        .arg("dev")
        .args(["--secure-port", "0", "--bind-address", "127.0.0.1"])
        .arg("--dev-pki-dir")
        .arg(&server.pki)
        .arg("--data-dir")
        .arg(&server.data)
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn crd-apiserver");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = tokio::sync::oneshot::channel();
    // Drains stdout so the server never blocks on a full pipe.
    std::thread::spawn(move || {
        let mut lines = BufReader::new(stdout).lines();
        if let Some(Ok(line)) = lines.next() {
            let _ = tx.send(line);
        }
        for _ in lines {}
    });
    let line = tokio::time::timeout(DEADLINE, rx)
        .await
        .expect("the server reports its address")
        .expect("the server's first stdout line");
    let addr = line.rsplit("https://").next().expect("address").trim();
    let url = format!("https://{addr}/readyz");
    let elapsed = loop {
        if let Ok(r) = client.get(&url).send().await
            && r.status().as_u16() == 200
        {
            break start.elapsed();
        }
        assert!(
            start.elapsed() < DEADLINE,
            "{url} not ready in {DEADLINE:?}"
        );
        tokio::time::sleep(POLL).await;
    };
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    child.wait().expect("wait for the server to stop");
    elapsed.as_secs_f64() * 1e3
}

/// Milliseconds from (re)spawning `etcd` on its data to its log saying it serves
/// clients (the fixture polls the log every 20 ms).
pub fn etcd_ready_ms(etcd: &mut Etcd) -> f64 {
    etcd.stop();
    let start = Instant::now();
    etcd.restart();
    start.elapsed().as_secs_f64() * 1e3
}
