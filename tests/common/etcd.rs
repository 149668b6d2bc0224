//! Test fixture: a real etcd 3.5 (`/usr/local/bin/etcd`, from hack/install-deps.sh) on
//! free loopback ports with a temporary data dir, plain or TLS with client certificates;
//! stopped, paused and restarted on the same ports and data, killed on drop.
//!
//! Flags chosen for tests: `--unsafe-no-fsync` (a killed process loses nothing: its writes
//! are in the page cache) and `--experimental-watch-progress-notify-interval=100ms` so that
//! idle watches get timed progress notifications (only etcd < 3.4.31 / 3.5.13 needs them) (see `storage::etcd`).
#![allow(dead_code)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crd_apiserver::server::pki::{self, Leaf};
use crd_apiserver::storage::Store;
use crd_apiserver::storage::etcd::{EtcdConfig, EtcdStore};
use rustix::process::{Pid, WaitOptions, WaitStatus, waitpid};

pub const ETCD: &str = "/usr/local/bin/etcd";
/// How long etcd may take to report readiness.
const START_TIMEOUT: Duration = Duration::from_secs(30);
/// What etcd's zap logger says once it serves clients (after the member is ready), plain
/// and TLS.
const READY: &str = "serving client traffic";

/// Client credentials for a TLS etcd.
#[derive(Clone, Debug)]
pub struct TlsFiles {
    /// The CA that signed etcd's serving certificate and the client certificates it trusts.
    pub ca: PathBuf,
    /// A client certificate and key signed by `ca`.
    pub cert: PathBuf,
    pub key: PathBuf,
    /// A client certificate and key from a CA etcd does not trust.
    pub foreign_cert: PathBuf,
    pub foreign_key: PathBuf,
}

/// A running etcd; SIGKILLed on drop.
pub struct Etcd {
    /// The client URL, `http://127.0.0.1:port` or `https://127.0.0.1:port`.
    pub endpoint: String,
    pub tls: Option<TlsFiles>,
    pub dir: tempfile::TempDir,
    args: Vec<String>,
    child: Option<Child>,
    starts: usize,
}

impl Etcd {
    /// A plain-text etcd.
    pub fn start() -> Etcd {
        Self::launch(false, false)
    }

    /// An etcd serving TLS for 127.0.0.1/localhost that requires client certificates.
    pub fn start_tls() -> Etcd {
        Self::launch(true, false)
    }

    /// A plain-text etcd as deployed: data on disk, every commit fsync'd (benchmarks).
    pub fn start_durable() -> Etcd {
        Self::launch(false, true)
    }

    fn launch(tls: bool, durable: bool) -> Etcd {
        assert!(
            Path::new(ETCD).exists(),
            "etcd is required at {ETCD}: run hack/install-deps.sh (it unpacks Debian sid's etcd-server 3.5)"
        );
        let dir = tempfile::Builder::new()
            .prefix("etcd-test-")
            .tempdir_in(if durable {
                std::env::temp_dir()
            } else {
                scratch()
            })
            .expect("etcd temp dir");
        let tls = tls.then(|| make_pki(&dir.path().join("pki")));
        let scheme = if tls.is_some() { "https" } else { "http" };
        // A port picked free may be taken before etcd binds it: retry with new ports.
        let mut last_log = String::new();
        for _ in 0..3 {
            let (client, peer) = (free_port(), free_port());
            let endpoint = format!("{scheme}://127.0.0.1:{client}");
            let mut args = etcd_args(dir.path(), &endpoint, peer, tls.as_ref());
            if durable {
                args.retain(|a| a != "--unsafe-no-fsync");
            }
            let _ = std::fs::remove_dir_all(dir.path().join("data"));
            match spawn(dir.path(), &args, 1) {
                Ok(child) => {
                    return Etcd {
                        endpoint,
                        tls,
                        dir,
                        args,
                        child: Some(child),
                        starts: 1,
                    };
                }
                Err(log) if log.contains("address already in use") => last_log = log,
                Err(log) => panic!("etcd did not start:\n{log}"),
            }
        }
        panic!("etcd did not start:\n{last_log}")
    }

    fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Kills etcd (SIGKILL); its data dir and ports stay for [`Etcd::restart`].
    pub fn stop(&mut self) {
        assert!(self.child.is_some(), "etcd is not running");
        self.kill();
    }

    /// Starts etcd again on the same ports and data (stopping it first if running).
    /// While it was down another test may have briefly held one of its ports: retry.
    pub fn restart(&mut self) {
        self.kill();
        let mut last_log = String::new();
        for _ in 0..10 {
            self.starts += 1;
            match spawn(self.dir.path(), &self.args, self.starts) {
                Ok(child) => {
                    self.child = Some(child);
                    return;
                }
                Err(log) if log.contains("address already in use") => {
                    last_log = log;
                    std::thread::sleep(Duration::from_millis(200));
                }
                Err(log) => panic!("etcd did not restart:\n{log}"),
            }
        }
        panic!("etcd did not restart:\n{last_log}")
    }

    /// Freezes etcd (SIGSTOP): connections stay open but nothing answers. Returns once
    /// the kernel reports the stop to this process, etcd's parent, which it does only
    /// when every thread has stopped: no request sent after it is served.
    pub fn pause(&self) {
        self.signal("-STOP");
        self.wait_reported("stopped", WaitOptions::UNTRACED, WaitStatus::stopped);
    }

    /// Resumes a paused etcd (SIGCONT), once the kernel reports it continued.
    pub fn resume(&self) {
        self.signal("-CONT");
        self.wait_reported("resumed", WaitOptions::CONTINUED, WaitStatus::continued);
    }

    /// The state letter of each of etcd's threads (`/proc/<pid>/task/*/stat`).
    pub fn thread_states(&self) -> Vec<char> {
        let tasks = PathBuf::from(format!("/proc/{}/task", self.pid()));
        let mut states = Vec::new();
        for task in std::fs::read_dir(&tasks).expect("read etcd's /proc tasks") {
            let stat = task.expect("task entry").path().join("stat");
            // A thread may exit between the listing and the read.
            let Ok(text) = std::fs::read_to_string(stat) else {
                continue;
            };
            // "pid (comm) S …": the state follows the last ')'.
            let state = text
                .rsplit_once(')')
                .and_then(|(_, rest)| rest.trim_start().chars().next());
            states.push(state.expect("state in /proc stat"));
        }
        states
    }

    /// Waits (`waitpid`, on a thread so that a deadline applies) for the kernel's report
    /// of etcd's stop or continue; an exit instead is a failure.
    fn wait_reported(&self, what: &str, options: WaitOptions, reported: fn(WaitStatus) -> bool) {
        let pid = Pid::from_child(self.child.as_ref().expect("etcd is running"));
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(waitpid(Some(pid), options));
        });
        match rx.recv_timeout(Duration::from_secs(10)) {
            Ok(Ok(Some((_, status)))) => {
                assert!(reported(status), "etcd not {what}: wait status {status:?}")
            }
            Ok(other) => panic!("waitpid for etcd {what}: {other:?}"),
            Err(_) => panic!(
                "etcd not {what} after 10s: thread states {:?}",
                self.thread_states()
            ),
        }
    }

    fn signal(&self, signal: &str) {
        let child = self.child.as_ref().expect("etcd is running");
        let status = Command::new("kill")
            .args([signal, &child.id().to_string()])
            .status()
            .expect("run kill");
        assert!(status.success(), "kill {signal} failed");
    }

    pub fn is_running(&self) -> bool {
        self.child.is_some()
    }

    /// The etcd process's id (benchmarks read its CPU time).
    pub fn pid(&self) -> u32 {
        self.child.as_ref().expect("etcd is not running").id()
    }

    /// A client configuration for this etcd (with the trusted client certificate).
    pub fn config(&self) -> EtcdConfig {
        let mut config = EtcdConfig::new(vec![self.endpoint.clone()]);
        if let Some(tls) = &self.tls {
            config.ca_file = Some(tls.ca.clone());
            config.cert_file = Some(tls.cert.clone());
            config.key_file = Some(tls.key.clone());
        }
        config
    }

    /// The crd-apiserver flags that point at this etcd.
    pub fn flags(&self) -> Vec<String> {
        let mut flags = vec![format!("--etcd-servers={}", self.endpoint)];
        if let Some(tls) = &self.tls {
            flags.push(format!("--etcd-cafile={}", tls.ca.display()));
            flags.push(format!("--etcd-certfile={}", tls.cert.display()));
            flags.push(format!("--etcd-keyfile={}", tls.key.display()));
        }
        flags
    }

    /// A connected store.
    pub async fn store(&self) -> Arc<dyn Store> {
        EtcdStore::connect(self.config())
            .await
            .unwrap_or_else(|err| panic!("connect to {}: {err}", self.endpoint))
    }
}

impl Drop for Etcd {
    fn drop(&mut self) {
        if let Some(child) = &self.child {
            // A paused process must be resumed to die promptly and release its ports.
            let _ = Command::new("kill")
                .args(["-CONT", &child.id().to_string()])
                .status();
        }
        self.kill();
    }
}

/// Starts etcd and waits until it serves clients; its log on failure. Each start logs to
/// its own file so that readiness is never read from an earlier run.
fn spawn(dir: &Path, args: &[String], start: usize) -> Result<Child, String> {
    let log = dir.join(format!("etcd-{start}.log"));
    let mut cmd = Command::new(ETCD);
    cmd.args(args)
        .arg(format!("--log-outputs={}", log.display()))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if !matches!(std::env::consts::ARCH, "x86_64" | "aarch64") {
        cmd.env("ETCD_UNSUPPORTED_ARCH", std::env::consts::ARCH);
    }
    let mut child = cmd.spawn().expect("spawn etcd");
    let deadline = Instant::now() + START_TIMEOUT;
    loop {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        if text.contains(READY) {
            return Ok(child);
        }
        if let Ok(Some(status)) = child.try_wait() {
            return Err(format!("etcd exited with {status}:\n{text}"));
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("etcd not ready after {START_TIMEOUT:?}:\n{text}"));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Where etcd data goes: memory when available (tests write thousands of keys).
fn scratch() -> PathBuf {
    let shm = PathBuf::from("/dev/shm");
    if shm.is_dir() && tempfile::tempdir_in(&shm).is_ok() {
        shm
    } else {
        std::env::temp_dir()
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("bind a free port")
        .port()
}

fn etcd_args(dir: &Path, endpoint: &str, peer: u16, tls: Option<&TlsFiles>) -> Vec<String> {
    let peer_url = format!("http://127.0.0.1:{peer}");
    let mut args = vec![
        "--name=test".to_string(),
        format!("--data-dir={}", dir.join("data").display()),
        format!("--listen-client-urls={endpoint}"),
        format!("--advertise-client-urls={endpoint}"),
        format!("--listen-peer-urls={peer_url}"),
        format!("--initial-advertise-peer-urls={peer_url}"),
        format!("--initial-cluster=test={peer_url}"),
        "--logger=zap".to_string(),
        "--unsafe-no-fsync".to_string(),
        "--experimental-watch-progress-notify-interval=100ms".to_string(),
    ];
    if let Some(tls) = tls {
        let pki = dir.join("pki");
        args.push(format!("--cert-file={}", pki.join("server.crt").display()));
        args.push(format!("--key-file={}", pki.join("server.key").display()));
        args.push(format!("--trusted-ca-file={}", tls.ca.display()));
        args.push("--client-cert-auth".to_string());
    }
    args
}

/// A CA, etcd's serving pair, a trusted client pair and a client pair from another CA.
fn make_pki(dir: &Path) -> TlsFiles {
    let ca = pki::new_authority("etcd-test-ca").expect("ca");
    let ca_path = dir.join("ca.crt");
    std::fs::create_dir_all(dir).expect("pki dir");
    std::fs::write(&ca_path, &ca.pem.cert).expect("write ca");
    let hosts = ["127.0.0.1", "localhost"];
    let server = ca.issue(Leaf::Serving { hosts: &hosts }).expect("server");
    pki::write_pair(dir, "server", &server).expect("server pair");
    let client = ca
        .issue(Leaf::Client {
            user: "crd-apiserver",
            groups: &[],
        })
        .expect("client");
    let (cert, key) = pki::write_pair(dir, "client", &client).expect("client pair");
    let other = pki::new_authority("other-ca").expect("other ca");
    let foreign = other
        .issue(Leaf::Client {
            user: "intruder",
            groups: &[],
        })
        .expect("foreign client");
    let (foreign_cert, foreign_key) =
        pki::write_pair(dir, "foreign", &foreign).expect("foreign pair");
    TlsFiles {
        ca: ca_path,
        cert,
        key,
        foreign_cert,
        foreign_key,
    }
}
