//! Certificates from files are live: the real binary (not dev mode) serving with
//! `--tls-cert-file`, `--client-ca-file` and `--requestheader-client-ca-file` picks up
//! replaced files without a restart, keeps the last good content when a file breaks, and
//! warns about a front-proxy CA shared with the client CA. Dev mode's keys and
//! directories are private.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::process_log::ProcessLog;
use crd_apiserver::server::pki::{self, Authority, Leaf, Pem};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

const CRONTABS: &str = "/apis/stable.example.com/v1/namespaces/default/crontabs";
const DEADLINE: Duration = Duration::from_secs(15);

/// The server process with its files; its stderr (the log) is collected.
struct Served {
    child: Child,
    addr: SocketAddr,
    dir: tempfile::TempDir,
    log: ProcessLog,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn ca(name: &str) -> Authority {
    pki::new_authority(name).unwrap()
}

fn serving(ca: &Authority) -> Pem {
    ca.issue(Leaf::Serving {
        hosts: &["localhost", "127.0.0.1"],
    })
    .unwrap()
}

fn client_cert(ca: &Authority, cn: &str, groups: &[&str]) -> Pem {
    ca.issue(Leaf::Client { user: cn, groups }).unwrap()
}

/// Replaces a file the way Secret volumes do: a new file renamed over the old one.
fn replace(path: &Path, content: &str) {
    pki::write_file(path, content.as_bytes(), 0o600).unwrap();
}

impl Served {
    /// Starts with the files written into a fresh dir; `args` may name them by their
    /// file names (`{dir}/name` is substituted for `@name`).
    fn start(files: &[(&str, &str)], args: &[&str]) -> Served {
        let dir = tempfile::tempdir().unwrap();
        for (name, content) in files {
            replace(&dir.path().join(name), content);
        }
        let args: Vec<String> = args
            .iter()
            .map(|a| match a.strip_prefix('@') {
                Some(name) => dir.path().join(name).display().to_string(),
                None => a.to_string(),
            })
            .collect();
        let mut child = Command::new(env!("CARGO_BIN_EXE_crd-apiserver"))
            .current_dir(common::repo_root())
            .args(["--crd-dir", "manifests/examples"])
            .args(["--secure-port", "0", "--bind-address", "127.0.0.1"])
            .arg("--data-dir")
            .arg(dir.path().join("data"))
            .arg("--authentication-skip-lookup")
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let log = ProcessLog::follow(child.stderr.take().unwrap());
        let mut stdout = BufReader::new(child.stdout.take().unwrap()).lines();
        let first = stdout
            .next()
            .map(|l| l.unwrap())
            .unwrap_or_else(|| panic!("no address line; log:\n{}", log.text()));
        std::thread::spawn(move || stdout.for_each(drop));
        let addr = first
            .rsplit("https://")
            .next()
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        Served {
            child,
            addr,
            dir,
            log,
        }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn url(&self, path: &str) -> String {
        format!("https://{}{}", self.addr, path)
    }
}

/// A client trusting only `trusted` (PEM), with an optional client certificate. Each
/// client has its own connection pool, so a new client means a new TLS handshake.
fn client(trusted: &str, identity: Option<&Pem>) -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut roots = rustls::RootCertStore::empty();
    for ca in CertificateDer::pem_slice_iter(trusted.as_bytes()) {
        roots.add(ca.unwrap()).unwrap();
    }
    let builder = rustls::ClientConfig::builder().with_root_certificates(roots);
    let config = match identity {
        Some(pem) => {
            let chain = CertificateDer::pem_slice_iter(pem.cert.as_bytes())
                .map(|c| c.unwrap())
                .collect();
            let key = PrivateKeyDer::from_pem_slice(pem.key.as_bytes()).unwrap();
            builder.with_client_auth_cert(chain, key).unwrap()
        }
        None => builder.with_no_client_auth(),
    };
    reqwest::Client::builder()
        .use_preconfigured_tls(config)
        .timeout(Duration::from_secs(10))
        .build()
        .unwrap()
}

/// The status code of listing crontabs as `client`, with `X-Remote-*` headers claiming
/// an admin (they only count for a front-proxy certificate); `None` when TLS failed.
async fn list_code(served: &Served, client: &reqwest::Client) -> Option<u16> {
    let resp = client
        .get(served.url(CRONTABS))
        .header("X-Remote-User", "proxied-admin")
        .header("X-Remote-Group", "system:masters")
        .send()
        .await
        .ok()?;
    Some(resp.status().as_u16())
}

/// Polls until `check` gives `want`, for at most [`DEADLINE`].
async fn until<F, Fut>(what: &str, want: Option<u16>, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<u16>>,
{
    common::eventually(DEADLINE, &format!("{what}: {want:?}"), || {
        let got = check();
        async move { (got.await == want).then_some(()) }
    })
    .await;
}

/// The PKI of one test: a serving CA and pair, a client CA and a front-proxy CA.
struct Pki {
    serving_ca: Authority,
    client_ca: Authority,
    proxy_ca: Authority,
}

impl Pki {
    fn new() -> Pki {
        Pki {
            serving_ca: ca("serving-ca"),
            client_ca: ca("client-ca"),
            proxy_ca: ca("front-proxy-ca"),
        }
    }

    /// Starts the server on this PKI with `--requestheader-allowed-names` as given.
    fn start(&self, allowed_names: &str) -> Served {
        let pair = serving(&self.serving_ca);
        let allowed = format!("--requestheader-allowed-names={allowed_names}");
        Served::start(
            &[
                ("tls.crt", pair.cert.as_str()),
                ("tls.key", pair.key.as_str()),
                ("client-ca.crt", self.client_ca.pem.cert.as_str()),
                ("proxy-ca.crt", self.proxy_ca.pem.cert.as_str()),
            ],
            &[
                "--tls-cert-file",
                "@tls.crt",
                "--tls-private-key-file",
                "@tls.key",
                "--client-ca-file",
                "@client-ca.crt",
                "--requestheader-client-ca-file",
                "@proxy-ca.crt",
                allowed.as_str(),
            ],
        )
    }

    /// A client trusting the serving CA with a `system:masters` certificate from `ca`.
    fn admin_of(&self, ca: &Authority) -> reqwest::Client {
        let pem = client_cert(ca, "admin", &["system:masters"]);
        client(&self.serving_ca.pem.cert, Some(&pem))
    }

    /// The front proxy (`CN=front-proxy-client`) with a certificate from `ca`.
    fn proxy_of(&self, ca: &Authority) -> reqwest::Client {
        let pem = client_cert(ca, "front-proxy-client", &[]);
        client(&self.serving_ca.pem.cert, Some(&pem))
    }
}

#[tokio::test]
async fn client_ca_file_rotation_applies_without_restart() {
    let pki = Pki::new();
    let served = pki.start("front-proxy-client");
    let rotated = ca("client-ca-rotated");
    let (old, new) = (pki.admin_of(&pki.client_ca), pki.admin_of(&rotated));
    assert_eq!(list_code(&served, &old).await, Some(200));
    assert_eq!(list_code(&served, &new).await, Some(401));

    // Written in place, as an editor or `cp` would.
    std::fs::write(served.path("client-ca.crt"), &rotated.pem.cert).unwrap();
    until("old CA's client", Some(401), || list_code(&served, &old)).await;
    assert_eq!(list_code(&served, &new).await, Some(200), "new CA's client");
    served
        .log
        .wait_for(&["loaded a new CA bundle", "--client-ca-file"], DEADLINE);
}

#[tokio::test]
async fn requestheader_ca_file_rotation_applies_without_restart() {
    let pki = Pki::new();
    let served = pki.start("front-proxy-client");
    let rotated = ca("front-proxy-ca-rotated");
    let (old, new) = (pki.proxy_of(&pki.proxy_ca), pki.proxy_of(&rotated));
    assert_eq!(list_code(&served, &old).await, Some(200));
    assert_eq!(list_code(&served, &new).await, Some(401));

    replace(&served.path("proxy-ca.crt"), &rotated.pem.cert);
    until("old front-proxy CA", Some(401), || list_code(&served, &old)).await;
    assert_eq!(
        list_code(&served, &new).await,
        Some(200),
        "new front-proxy CA"
    );
}

/// `/healthz` over a new connection from a client trusting only `ca`.
async fn healthz_trusting(served: &Served, ca: &Authority) -> Option<u16> {
    let resp = client(&ca.pem.cert, None)
        .get(served.url("/healthz"))
        .send()
        .await
        .ok()?;
    Some(resp.status().as_u16())
}

#[tokio::test]
async fn serving_certificate_renewal_served_to_new_connections() {
    let pki = Pki::new();
    let served = pki.start("front-proxy-client");
    let renewed_ca = ca("serving-ca-renewed");
    assert_eq!(healthz_trusting(&served, &pki.serving_ca).await, Some(200));
    assert_eq!(healthz_trusting(&served, &renewed_ca).await, None);
    let open = client(&pki.serving_ca.pem.cert, None);
    assert_eq!(
        open.get(served.url("/healthz"))
            .send()
            .await
            .unwrap()
            .status(),
        200
    );

    // The certificate lands before its key: in between, the files do not match.
    let renewed = serving(&renewed_ca);
    replace(&served.path("tls.crt"), &renewed.cert);
    replace(&served.path("tls.key"), &renewed.key);
    until("client trusting the new CA", Some(200), || {
        healthz_trusting(&served, &renewed_ca)
    })
    .await;
    assert_eq!(
        healthz_trusting(&served, &pki.serving_ca).await,
        None,
        "a new connection gets the renewed certificate"
    );
    let resp = open.get(served.url("/healthz")).send().await.unwrap();
    assert_eq!(resp.status(), 200, "an open connection keeps working");
}

#[tokio::test]
async fn broken_files_keep_last_good_content() {
    let pki = Pki::new();
    let served = pki.start("front-proxy-client");
    let (admin, proxy) = (pki.admin_of(&pki.client_ca), pki.proxy_of(&pki.proxy_ca));

    replace(&served.path("client-ca.crt"), "not a certificate\n");
    served.log.wait_for(
        &["keeping the last good content", "--client-ca-file"],
        DEADLINE,
    );
    assert_eq!(
        list_code(&served, &admin).await,
        Some(200),
        "client CA kept"
    );

    std::fs::remove_file(served.path("proxy-ca.crt")).unwrap();
    served.log.wait_for(
        &[
            "keeping the last good content",
            "--requestheader-client-ca-file",
        ],
        DEADLINE,
    );
    assert_eq!(
        list_code(&served, &proxy).await,
        Some(200),
        "front-proxy CA kept"
    );
    // The CA files are checked in turn on each tick: the requestheader problem was
    // logged on a later tick than the client CA's, which was not logged again.
    assert_eq!(
        served
            .log
            .count(&["keeping the last good content", "--client-ca-file"]),
        1,
        "a problem is logged once"
    );

    let other = serving(&ca("other-serving-ca"));
    replace(&served.path("tls.crt"), &other.cert);
    served
        .log
        .wait_for(&["does not match the certificate"], DEADLINE);
    assert_eq!(
        healthz_trusting(&served, &pki.serving_ca).await,
        Some(200),
        "the old pair is served while the key does not match"
    );
}

#[tokio::test]
async fn shared_requestheader_ca_without_allowed_names_warned() {
    let pki = Pki::new();
    let shared = pki.client_ca.pem.cert.clone();
    let pair = serving(&pki.serving_ca);
    let served = Served::start(
        &[
            ("tls.crt", pair.cert.as_str()),
            ("tls.key", pair.key.as_str()),
            ("client-ca.crt", shared.as_str()),
            ("proxy-ca.crt", shared.as_str()),
        ],
        &[
            "--tls-cert-file",
            "@tls.crt",
            "--tls-private-key-file",
            "@tls.key",
            "--client-ca-file",
            "@client-ca.crt",
            "--requestheader-client-ca-file",
            "@proxy-ca.crt",
        ],
    );
    served.log.wait_for(
        &["shares CAs with the client CA bundle", "CN=client-ca"],
        DEADLINE,
    );
    let admin = pki.admin_of(&pki.client_ca);
    let gauge = "crd_apiserver_requestheader_ca_shared_with_client_ca";
    let metric = || async {
        let text = admin
            .get(served.url("/metrics"))
            .send()
            .await
            .ok()?
            .text()
            .await
            .ok()?;
        let line = text.lines().find(|l| l.starts_with(&format!("{gauge} ")))?;
        line.rsplit(' ').next()?.parse::<u16>().ok()
    };
    assert_eq!(metric().await, Some(1));

    // The hazard is real: any client certificate now speaks for any user.
    let user = client(
        &pki.serving_ca.pem.cert,
        Some(&client_cert(&pki.client_ca, "someone", &[])),
    );
    assert_eq!(
        list_code(&served, &user).await,
        Some(200),
        "X-Remote-Group honoured"
    );

    replace(&served.path("proxy-ca.crt"), &pki.proxy_ca.pem.cert);
    until("gauge after the front-proxy CA changed", Some(0), metric).await;
    assert_eq!(
        list_code(&served, &user).await,
        Some(403),
        "only the certificate's own user, who may not list"
    );
}

fn mode(path: &Path) -> u32 {
    let meta = std::fs::metadata(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    meta.permissions().mode() & 0o777
}

#[test]
fn dev_mode_keys_and_directories_private() {
    let server = common::Server::start();
    // The kubeconfig is written just after the address is announced.
    let deadline = Instant::now() + DEADLINE;
    while !server.kubeconfig().exists() {
        assert!(Instant::now() < deadline, "no kubeconfig");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(mode(&server.pki), 0o700, "PKI directory");
    assert_eq!(mode(&server.data), 0o700, "data directory");
    for name in [
        "serving-ca.key",
        "client-ca.key",
        "serving.key",
        "admin.key",
        "kubeconfig",
    ] {
        assert_eq!(mode(&server.pki.join(name)), 0o600, "{name}");
    }
}

#[test]
fn self_signed_serving_key_private() {
    let served = Served::start(&[], &["--cert-dir", "@certs"]);
    assert_eq!(mode(&served.path("certs")), 0o700, "--cert-dir");
    assert_eq!(mode(&served.path("certs/apiserver.key")), 0o600, "key");
}
