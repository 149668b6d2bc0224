//! Kube's own CRD server on the same machine (`BENCH_ONLY=reference`, never by default):
//! the crud cells and the rate goals' rounds against the real `apiextensions-apiserver`,
//! the Go server kube-apiserver runs for CRDs, on an etcd of its own. It gives the goals'
//! ratios a baseline: what serving the same CronTab costs kube, on the same two cores,
//! measured with the same load generator against raw ranges and puts on its etcd.
//!
//! The server is one a script already started (the team's `reference/run-peers.sh`, or
//! any kube-apiserver): `APIEXT_URL` is its address, `ETCD_URL` its etcd's, `PEERS_PKI`
//! holds `serving-ca.crt`, `admin.crt` and `admin.key` (a client certificate it trusts,
//! in `system:masters`), and `PEERS_ROOT/run/{apiext,etcd}.pid` name the processes
//! whose CPU time each cell charges (`run-peers.sh` writes them).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::crud::{Row, full_stack, raw_etcd};
use crate::meters::Meters;
use crate::rounds::{self, Goal};
use crate::{CONCURRENCY, CT, common, h2_client};

/// Where the reference server, its etcd and its certificates are.
struct Reference {
    url: String,
    etcd: String,
    pki: PathBuf,
    pids: (Option<u32>, Option<u32>),
}

impl Reference {
    fn from_env() -> Reference {
        let var = |name: &str| {
            std::env::var(name).unwrap_or_else(|_| {
                panic!(
                    "BENCH_ONLY=reference needs {name}: build and start the reference server \
                     (PEERS_ROOT=DIR reference/setup-debian.sh; reference/run-peers.sh start), \
                     then `. $PEERS_ROOT/run/peers.env` before `cargo bench`"
                )
            })
        };
        let run = PathBuf::from(var("PEERS_ROOT")).join("run");
        let pid = |name: &str| {
            let text = std::fs::read_to_string(run.join(format!("{name}.pid"))).ok()?;
            text.trim().parse().ok()
        };
        Reference {
            url: var("APIEXT_URL"),
            etcd: var("ETCD_URL"),
            pki: PathBuf::from(var("PEERS_PKI")),
            pids: (pid("apiext"), pid("etcd")),
        }
    }
}

/// The crud rows and the goals' rounds of the reference server.
pub async fn run() -> (Vec<Row>, Vec<Goal>) {
    let reference = Reference::from_env();
    // h2 with the admin certificate, as `kubectl_like`'s.
    let client = h2_client(&reference.pki);
    define_crontab(&client, &reference.url).await;
    let url = format!("{}{CT}", reference.url);
    let meters = Meters::new(reference.pids.0, reference.pids.1);
    // Its own names: the cells' names under one tag must not exist yet.
    let tag = format!("ref{}", std::process::id());
    let mut rows = Vec::new();
    for c in CONCURRENCY {
        let (raw_puts, raw_gets) = raw_etcd(&reference.etcd, c, &meters).await;
        let (creates, gets) = full_stack(&client, &url, &tag, c, &meters).await;
        rows.extend(Row::against_etcd(
            "kube",
            c,
            (creates, gets),
            (raw_puts, raw_gets),
        ));
    }
    let goals = rounds::run(&client, &url, "kube's server", &tag, &reference.etcd).await;
    (rows, goals)
}

/// Creates the CronTab definition the server in dev mode serves (unless it exists), and
/// waits until its collection answers.
pub async fn define_crontab(client: &reqwest::Client, base: &str) {
    let crd =
        std::fs::read(common::repo_root().join("manifests/examples/crontab-crd.yaml")).unwrap();
    let created = client
        .post(format!(
            "{base}/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
        ))
        .header("Content-Type", "application/yaml")
        .body(crd)
        .send()
        .await
        .unwrap();
    let status = created.status().as_u16();
    assert!(
        status == 201 || status == 409,
        "creating the CronTab definition: {status} {}",
        created.text().await.unwrap_or_default()
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let list = client.get(format!("{base}{CT}?limit=1")).send().await;
        if list.is_ok_and(|r| r.status().is_success()) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the reference server did not serve {CT} within 30 s"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
