//! The real Go components of the end-to-end test, started as child processes: the reference
//! apiextensions-apiserver 0.36.4 (`$PEERS_ROOT/bin/apiextensions-apiserver`, built by
//! ../shared/reference/setup-debian.sh) and the real kube-aggregator v0.36.2
//! (`$PEERS_ROOT/bin/kube-aggregator`, built as ../shared/reference/aggregator.md says), with
//! the test's PKI: a client CA (users), a serving CA (the peers' and the front's serving
//! certificates) and a front-proxy CA (the aggregator's proxy client certificate).
//! A missing binary is a loud failure naming how to build it.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crd_apiserver::server::pki::{self, Authority, Leaf, Pem};

use crate::common::process_log::ProcessLog;

/// `$PEERS_ROOT`, default `/root/peers`.
pub fn peers_root() -> PathBuf {
    std::env::var_os("PEERS_ROOT")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/root/peers"))
}

/// A peer binary, or a loud failure saying how to build it.
pub fn binary(name: &str) -> PathBuf {
    let path = peers_root().join("bin").join(name);
    let how = match name {
        "kube-aggregator" => {
            "build it from kubernetes/kube-aggregator v0.36.2 as ../shared/reference/aggregator.md says \
             (GOPATH mode against the Debian Go sources setup-debian.sh unpacked)"
        }
        _ => "run ../shared/reference/setup-debian.sh with PEERS_ROOT set",
    };
    assert!(
        path.exists(),
        "{} is missing: {how}; set PEERS_ROOT if the peers live elsewhere than /root/peers",
        path.display()
    );
    path
}

/// A free loopback port (bound and released).
pub fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

/// The test's certificate authorities and the files the peers read.
pub struct Pki {
    pub dir: PathBuf,
    pub client_ca: Authority,
    pub serving_ca: Authority,
    pub proxy_ca: Authority,
}

impl Pki {
    pub fn new(dir: &Path) -> Pki {
        let pki = Pki {
            dir: dir.to_path_buf(),
            client_ca: pki::new_authority("e2e-client-ca").unwrap(),
            serving_ca: pki::new_authority("e2e-serving-ca").unwrap(),
            proxy_ca: pki::new_authority("e2e-front-proxy-ca").unwrap(),
        };
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(pki.path("client-ca.crt"), &pki.client_ca.pem.cert).unwrap();
        std::fs::write(pki.path("serving-ca.crt"), &pki.serving_ca.pem.cert).unwrap();
        std::fs::write(pki.path("front-proxy-ca.crt"), &pki.proxy_ca.pem.cert).unwrap();
        let proxy = pki
            .proxy_ca
            .issue(Leaf::Client {
                user: "front-proxy-client",
                groups: &[],
            })
            .unwrap();
        pki::write_pair(dir, "front-proxy-client", &proxy).unwrap();
        pki
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// A serving pair from the serving CA for loopback and `<name>.default.svc` (the name the
    /// aggregator verifies for a Service `default/<name>`), written as `<name>.crt`/`.key`.
    pub fn serving(&self, name: &str) -> Pem {
        let service = format!("{name}.default.svc");
        let pem = self
            .serving_ca
            .issue(Leaf::Serving {
                hosts: &["127.0.0.1", "localhost", &service],
            })
            .unwrap();
        pki::write_pair(&self.dir, name, &pem).unwrap();
        pem
    }

    /// A client pair `CN=user, O=groups` from the client CA, written as `<name>.crt`/`.key`.
    pub fn user(&self, name: &str, user: &str, groups: &[&str]) -> Pem {
        let pem = self.client_ca.issue(Leaf::Client { user, groups }).unwrap();
        pki::write_pair(&self.dir, name, &pem).unwrap();
        pem
    }

    /// A kubeconfig for `https://127.0.0.1:<port>` as the client pair `<name>`.
    pub fn kubeconfig(&self, file: &str, port: u16, name: &str) -> PathBuf {
        let text = format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:{port}\n    certificate-authority: {ca}\nusers:\n- name: u\n  user:\n    client-certificate: {dir}/{name}.crt\n    client-key: {dir}/{name}.key\ncontexts:\n- name: c\n  context: {{cluster: c, user: u}}\ncurrent-context: c\n",
            ca = self.path("serving-ca.crt").display(),
            dir = self.dir.display(),
        );
        let path = self.path(file);
        std::fs::write(&path, text).unwrap();
        path
    }

    /// The flags every peer shares: serving pair, client CA, front-proxy request headers.
    fn common_flags(&self, port: u16, serving: &str) -> Vec<String> {
        let p = |n: &str| self.path(n).display().to_string();
        [
            "--bind-address=127.0.0.1".to_string(),
            format!("--secure-port={port}"),
            format!("--tls-cert-file={}", p(&format!("{serving}.crt"))),
            format!("--tls-private-key-file={}", p(&format!("{serving}.key"))),
            format!("--client-ca-file={}", p("client-ca.crt")),
            format!("--requestheader-client-ca-file={}", p("front-proxy-ca.crt")),
            "--requestheader-allowed-names=front-proxy-client".to_string(),
            "--requestheader-username-headers=X-Remote-User".to_string(),
            "--requestheader-group-headers=X-Remote-Group".to_string(),
            "--requestheader-extra-headers-prefix=X-Remote-Extra-".to_string(),
            format!("--cert-dir={}", p(&format!("{serving}-certs"))),
        ]
        .into()
    }
}

/// A running peer; SIGKILLed on drop.
pub struct Peer {
    pub name: &'static str,
    pub port: u16,
    child: Child,
    pub log: ProcessLog,
}

impl Peer {
    pub fn url(&self, path: &str) -> String {
        format!("https://127.0.0.1:{}{path}", self.port)
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn spawn(name: &'static str, binary: &Path, port: u16, args: &[String]) -> Peer {
    let mut child = Command::new(binary)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("spawn {}: {e}", binary.display()));
    let log = ProcessLog::follow(child.stderr.take().unwrap());
    Peer {
        name,
        port,
        child,
        log,
    }
}

/// The reference apiextensions-apiserver: objects in `etcd` under `/registry/apiext`, its
/// core API (admission configuration, namespaces, SubjectAccessReview) the fake at
/// `host_kubeconfig`.
pub fn reference(pki: &Pki, etcd: &str, host_kubeconfig: &Path) -> Peer {
    pki.serving("apiext");
    let port = free_port();
    let kubeconfig = host_kubeconfig.display().to_string();
    let mut args = pki.common_flags(port, "apiext");
    args.extend([
        format!("--etcd-servers={etcd}"),
        "--etcd-prefix=/registry/apiext".to_string(),
        format!("--kubeconfig={kubeconfig}"),
        format!("--authentication-kubeconfig={kubeconfig}"),
        format!("--authorization-kubeconfig={kubeconfig}"),
        "--authentication-skip-lookup".to_string(),
    ]);
    spawn(
        "apiextensions-apiserver",
        &binary("apiextensions-apiserver"),
        port,
        &args,
    )
}

/// The real kube-aggregator: APIServices in `etcd`, Services, EndpointSlices and
/// SubjectAccessReviews from the fake at `host_kubeconfig`, `CN=front-proxy-client` to the
/// servers it proxies to.
pub fn aggregator(pki: &Pki, etcd: &str, host_kubeconfig: &Path) -> Peer {
    pki.serving("aggregator");
    let port = free_port();
    let kubeconfig = host_kubeconfig.display().to_string();
    let mut args = pki.common_flags(port, "aggregator");
    args.extend([
        format!("--etcd-servers={etcd}"),
        format!("--kubeconfig={kubeconfig}"),
        format!("--authentication-kubeconfig={kubeconfig}"),
        format!("--authorization-kubeconfig={kubeconfig}"),
        "--authentication-skip-lookup".to_string(),
        format!(
            "--proxy-client-cert-file={}",
            pki.path("front-proxy-client.crt").display()
        ),
        format!(
            "--proxy-client-key-file={}",
            pki.path("front-proxy-client.key").display()
        ),
    ]);
    spawn("kube-aggregator", &binary("kube-aggregator"), port, &args)
}

/// Waits until `peer` answers `/readyz` 200 to `admin` (the log in the failure).
pub async fn wait_ready(peer: &Peer, admin: &reqwest::Client) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(90);
    loop {
        let last = match admin.get(peer.url("/readyz")).send().await {
            Ok(resp) if resp.status() == 200 => return,
            Ok(resp) => format!(
                "{}: {}",
                resp.status(),
                resp.text().await.unwrap_or_default()
            ),
            Err(e) => e.to_string(),
        };
        assert!(
            tokio::time::Instant::now() < deadline,
            "{} not ready within 90 s ({last}); log:\n{}",
            peer.name,
            peer.log.text()
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}
