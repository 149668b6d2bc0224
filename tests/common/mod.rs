//! Test fixture: starts the real `crd-apiserver` binary in dev mode on 127.0.0.1:0 with a
//! temporary data dir and PKI, and talks to it over real TLS (reqwest, kubectl).
#![allow(dead_code)]

pub mod crontabs;
pub mod process_log;
pub mod raw;

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::Arc;
use std::time::Duration;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

pub const KUBECTL: &str = "/usr/bin/kubectl";

/// The repository root (manifests live there).
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A running server process; SIGKILLed on drop if still running.
pub struct Server {
    child: Option<Child>,
    pub addr: SocketAddr,
    pub dir: Arc<tempfile::TempDir>,
    pub pki: PathBuf,
    pub data: PathBuf,
    extra: Vec<String>,
    stdout: Option<std::thread::JoinHandle<()>>,
    /// The server's log (stderr).
    pub log: process_log::ProcessLog,
}

impl Server {
    /// Dev mode with the example CRDs.
    pub fn start() -> Server {
        Self::start_with(&[])
    }

    /// Dev mode with extra flags.
    pub fn start_with(extra: &[&str]) -> Server {
        Self::start_binary(Path::new(env!("CARGO_BIN_EXE_crd-apiserver")), extra)
    }

    /// Dev mode of another build of the server (the benchmark's baseline).
    pub fn start_binary(binary: &Path, extra: &[&str]) -> Server {
        let dir = Arc::new(tempfile::tempdir().expect("tempdir"));
        Self::spawn(binary, dir, extra.iter().map(|s| s.to_string()).collect())
    }

    fn spawn(binary: &Path, dir: Arc<tempfile::TempDir>, extra: Vec<String>) -> Server {
        let pki = dir.path().join("pki");
        let data = dir.path().join("data");
        let mut cmd = Command::new(binary);
        cmd.current_dir(repo_root())
            .arg("dev")
            .args(["--secure-port", "0", "--bind-address", "127.0.0.1"])
            .arg("--dev-pki-dir")
            .arg(&pki)
            .arg("--data-dir")
            .arg(&data)
            .args(&extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("spawn crd-apiserver");
        let log = process_log::ProcessLog::follow(child.stderr.take().expect("stderr"));
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = std::sync::mpsc::channel();
        let reader = std::thread::spawn(move || {
            let mut lines = BufReader::new(stdout).lines();
            if let Some(Ok(line)) = lines.next() {
                let _ = tx.send(line);
            }
            for _ in lines {}
        });
        let line = rx
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| {
                panic!(
                    "crd-apiserver did not report its address (exit: {:?})",
                    child.try_wait()
                )
            });
        let addr = line
            .rsplit("https://")
            .next()
            .and_then(|a| a.trim().parse().ok())
            .unwrap_or_else(|| panic!("unexpected first line: {line}"));
        // Clients (kubectl here, scripts elsewhere) use the kubeconfig once they read
        // the address: dev mode writes it first.
        assert!(
            pki.join("kubeconfig").exists(),
            "the dev kubeconfig is missing when the address is announced"
        );
        Server {
            child: Some(child),
            addr,
            dir,
            pki,
            data,
            extra,
            stdout: Some(reader),
            log,
        }
    }

    /// Stops with SIGTERM and waits for the exit status.
    pub fn terminate(&mut self) -> std::process::ExitStatus {
        let mut child = self.child.take().expect("running");
        let status = Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .expect("kill");
        assert!(status.success());
        let exit = child.wait().expect("wait");
        if let Some(h) = self.stdout.take() {
            let _ = h.join();
        }
        exit
    }

    /// Kills with SIGKILL (no shutdown at all: a crash) and waits for it.
    pub fn sigkill(&mut self) {
        let mut child = self.child.take().expect("running");
        child.kill().expect("kill");
        child.wait().expect("wait");
        if let Some(h) = self.stdout.take() {
            let _ = h.join();
        }
    }

    /// Sends SIGTERM and returns at once.
    pub fn sigterm(&self) {
        let child = self.child.as_ref().expect("running");
        let status = Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .expect("kill");
        assert!(status.success());
    }

    /// The exit status if the process has exited.
    pub fn exited(&mut self) -> Option<std::process::ExitStatus> {
        self.child
            .as_mut()
            .expect("running")
            .try_wait()
            .expect("try_wait")
    }

    /// Stops and starts again on the same data dir and PKI.
    pub fn restart(mut self) -> Server {
        self.terminate();
        self.start_again()
    }

    /// Starts a [`Server::terminate`]d server again on the same data dir, PKI and flags
    /// (between the two, a test may open the data dir's store).
    pub fn start_again(mut self) -> Server {
        assert!(
            self.child.is_none(),
            "start_again needs a terminated server"
        );
        let dir = self.dir.clone();
        let extra = std::mem::take(&mut self.extra);
        Self::spawn(Path::new(env!("CARGO_BIN_EXE_crd-apiserver")), dir, extra)
    }

    /// Stops and starts again on the same data dir and PKI with other flags (another
    /// `--crd-dir`, say).
    pub fn restart_with(mut self, extra: &[&str]) -> Server {
        self.terminate();
        let dir = self.dir.clone();
        let extra = extra.iter().map(|s| s.to_string()).collect();
        Self::spawn(Path::new(env!("CARGO_BIN_EXE_crd-apiserver")), dir, extra)
    }

    /// The `/metrics` text, read as the dev admin.
    pub async fn metrics(&self) -> String {
        let resp = self
            .client()
            .get(self.url("/metrics"))
            .send()
            .await
            .expect("metrics");
        assert_eq!(resp.status(), 200, "GET /metrics");
        resp.text().await.expect("metrics text")
    }

    /// The server process's id (benches read its CPU time from /proc).
    pub fn pid(&self) -> u32 {
        self.child.as_ref().expect("running").id()
    }

    pub fn url(&self, path: &str) -> String {
        format!("https://{}{}", self.addr, path)
    }

    pub fn kubeconfig(&self) -> PathBuf {
        self.pki.join("kubeconfig")
    }

    /// A client with the dev admin certificate (system:masters).
    pub fn client(&self) -> reqwest::Client {
        client_with(&self.pki, Some(("admin.crt", "admin.key")))
    }

    /// A client with no client certificate.
    pub fn anonymous(&self) -> reqwest::Client {
        client_with(&self.pki, None)
    }

    /// Runs the real kubectl against this server.
    pub fn kubectl(&self, args: &[&str]) -> Output {
        kubectl_at(&self.kubeconfig(), args)
    }

    /// kubectl that must succeed; returns stdout.
    pub fn kubectl_ok(&self, args: &[&str]) -> String {
        let out = self.kubectl(args);
        assert!(
            out.status.success(),
            "kubectl {args:?} failed: {}\n{}",
            String::from_utf8_lossy(&out.stderr),
            String::from_utf8_lossy(&out.stdout)
        );
        String::from_utf8(out.stdout).expect("utf8")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// kubectl must be installed; a missing one is a loud failure with the install hint.
pub fn kubectl_at(kubeconfig: &Path, args: &[&str]) -> Output {
    assert!(
        Path::new(KUBECTL).exists(),
        "kubectl is required at {KUBECTL}: install it with `hack/install-deps.sh` (Debian package kubernetes-client)"
    );
    Command::new(KUBECTL)
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .args(args)
        .output()
        .expect("run kubectl")
}

pub fn client_with(pki: &Path, identity: Option<(&str, &str)>) -> reqwest::Client {
    reqwest::Client::builder()
        .use_preconfigured_tls(tls_config(pki, identity))
        .timeout(Duration::from_secs(30))
        .build()
        .expect("client")
}

/// TLS trusting the dev serving CA, with the client certificate `identity` (cert and key
/// file names under `pki`) when given.
pub fn tls_config(pki: &Path, identity: Option<(&str, &str)>) -> rustls::ClientConfig {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut roots = rustls::RootCertStore::empty();
    for ca in CertificateDer::pem_file_iter(pki.join("serving-ca.crt")).expect("ca") {
        roots.add(ca.expect("ca pem")).expect("add root");
    }
    let builder = rustls::ClientConfig::builder().with_root_certificates(roots);
    match identity {
        Some((cert, key)) => {
            let chain: Vec<_> = CertificateDer::pem_file_iter(pki.join(cert))
                .expect("cert")
                .map(|c| c.expect("cert pem"))
                .collect();
            let key = PrivateKeyDer::from_pem_file(pki.join(key)).expect("key");
            builder
                .with_client_auth_cert(chain, key)
                .expect("client auth")
        }
        None => builder.with_no_client_auth(),
    }
}

/// Runs the server (not dev mode) on the definitions at `crds` until it exits: for
/// definitions that must stop start-up. Data (`<dir>/data`) and certificates go to `dir`.
pub fn start_with_definitions(crds: &Path, dir: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_crd-apiserver"))
        .arg("--crd-dir")
        .arg(crds)
        .args(["--secure-port", "0", "--bind-address", "127.0.0.1"])
        .arg("--data-dir")
        .arg(dir.join("data"))
        .arg("--cert-dir")
        .arg(dir.join("certs"))
        .output()
        .expect("run crd-apiserver")
}

/// Calls `attempt` every 50 ms until it yields a value; fails the test after `within`.
/// For waiting on the server's own clocks (cache TTLs, compaction ticks) without
/// sleeping a guessed time.
pub async fn eventually<T, F>(within: Duration, what: &str, mut attempt: impl FnMut() -> F) -> T
where
    F: std::future::Future<Output = Option<T>>,
{
    let deadline = tokio::time::Instant::now() + within;
    loop {
        if let Some(value) = attempt().await {
            return value;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out after {within:?} waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Writes a file into the server's temp dir and returns its path.
pub fn write_temp(server: &Server, name: &str, contents: &str) -> PathBuf {
    let path = server.dir.path().join(name);
    std::fs::write(&path, contents).expect("write temp file");
    path
}

/// Sends a request and decodes its JSON body, whatever the status.
pub async fn json_of(req: reqwest::RequestBuilder) -> serde_json::Value {
    req.send()
        .await
        .expect("request")
        .json()
        .await
        .expect("JSON body")
}

/// `metadata.name` of each item of a list.
pub fn item_names(list: &serde_json::Value) -> Vec<String> {
    list["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|i| i["metadata"]["name"].as_str().expect("name").to_string())
        .collect()
}

/// `metadata.resourceVersion` of an object or a list.
pub fn resource_version(value: &serde_json::Value) -> String {
    value["metadata"]["resourceVersion"]
        .as_str()
        .expect("resourceVersion")
        .to_string()
}
