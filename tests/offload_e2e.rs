//! Issue 34 end to end, with the real components: the reference apiextensions-apiserver
//! 0.36.4 as the host's CRD store (its real ValidatingAdmissionPolicy plugin enforcing the
//! fence), the real kube-aggregator v0.36.2 routing APIServices, and our server registering
//! itself and taking a host CRD group over. The cluster around them is
//! tests/offload_e2e/cluster.rs; how to build the Go components and run this:
//! tests/offload_e2e/README.md. Ignored by default (hack/test.sh): the aggregator is built
//! locally, not scripted.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

#[path = "offload_e2e/cluster.rs"]
mod cluster;
mod common;
#[path = "common/etcd.rs"]
mod etcd;
#[path = "common/fake_kube.rs"]
mod fake_kube;
#[path = "offload_e2e/front.rs"]
mod front;
#[path = "offload_e2e/peers.rs"]
mod peers;

use std::path::PathBuf;
use std::time::Duration;

use base64::Engine;
use cluster::{APISERVICES, Cluster, OUR_SERVICE, apiservice, available, create, get};
use serde_json::{Value, json};

const IGNORED: &str = "needs the reference apiextensions-apiserver and a locally built kube-aggregator (see tests/offload_e2e/README.md)";

/// Our own CRDs (`--crd-dir`): CronTab, `stable.example.com/v1`.
const OWN_GROUP: &str = "stable.example.com";
const CRONTABS: &str = "/apis/stable.example.com/v1/namespaces/default/crontabs";

fn own_crds(cluster: &Cluster) -> PathBuf {
    let dir = cluster.dir.path().join("crds");
    std::fs::create_dir_all(&dir).unwrap();
    let example = common::repo_root().join("manifests/examples/crontab-crd.yaml");
    std::fs::copy(example, dir.join("crontab-crd.yaml")).unwrap();
    dir
}

fn crontab(name: &str) -> Value {
    json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"cronSpec": "* * * * *", "image": "img", "replicas": 1}})
}

/// kubectl against the aggregator as the admin; must succeed; stdout.
fn kubectl(cluster: &Cluster, args: &[&str]) -> String {
    let out = common::kubectl_at(&cluster.aggregator_kubeconfig(), args);
    assert!(
        out.status.success(),
        "kubectl {args:?}: {}\n{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the reference apiextensions-apiserver and a locally built kube-aggregator (see tests/offload_e2e/README.md)"]
async fn registration_hand_made_apiservice_routes_kubectl_to_us() {
    let _ = IGNORED;
    let mut cluster = Cluster::start(&[]).await;
    let crds = own_crds(&cluster);
    cluster.start_ours(&crds, &[]);
    let ours = apiservice(
        OWN_GROUP,
        "v1",
        OUR_SERVICE,
        cluster.our_port,
        &cluster.our_ca.pem.cert,
        (1000, 100),
        false,
    );
    create(&cluster.admin(), APISERVICES, &ours).await;
    let condition = cluster
        .wait_available("v1.stable.example.com", Duration::from_secs(60))
        .await;
    assert_eq!(condition["reason"], "Passed", "{condition}");

    create(&cluster.admin(), CRONTABS, &crontab("through-aggregator")).await;
    let listed: Value = serde_json::from_str(&kubectl(
        &cluster,
        &["get", "crontabs", "-n", "default", "-o", "json"],
    ))
    .unwrap();
    assert_eq!(common::item_names(&listed), ["through-aggregator"]);
    // The object is ours: our server, asked directly, has it with the same uid.
    let direct = cluster.ours_client();
    let (code, body) = get(&direct, &format!("{CRONTABS}/through-aggregator")).await;
    assert_eq!(code, 200, "{body}");
    assert_eq!(
        body["metadata"]["uid"],
        listed["items"][0]["metadata"]["uid"]
    );
    let _ = base64::engine::general_purpose::STANDARD;
    let _ = available;
}
