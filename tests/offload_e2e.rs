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
#[path = "offload_e2e/host.rs"]
mod host;
#[path = "offload_e2e/peers.rs"]
mod peers;

use std::path::PathBuf;
use std::time::Duration;

use cluster::{APISERVICES, Cluster, OUR_SERVICE, apiservice, create, get};
use fake_kube::collections::VALIDATING_POLICY_BINDINGS;
use front::{HOST_USER, Upstream};
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
}

/// Creates uniquely named Gadgets as `to` until one answers as `wanted` says (other answers
/// retried until 30 s); returns that answer.
async fn post_until(to: &Upstream, what: &str, wanted: impl Fn(u16, &Value) -> bool) -> Value {
    common::eventually(Duration::from_secs(30), what, || {
        let object = host::gadget(&format!("probe-{}", uuid::Uuid::new_v4()), 1);
        let wanted = &wanted;
        async move {
            let (code, body) = host::post(to, &object, "").await;
            wanted(code, &body).then_some(body)
        }
    })
    .await
}

/// The real fence: the design's ValidatingAdmissionPolicy (as offload's steps write it,
/// defaulted as kube-apiserver stores it) at the host is enforced by the reference's own
/// policy plugin: others' creates, status updates and deletes are denied with kube's text,
/// our server's user still writes, but its dry runs (the in-effect probe) are denied; the
/// binding removed, writes land again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the reference apiextensions-apiserver and a locally built kube-aggregator (see tests/offload_e2e/README.md)"]
async fn fence_at_the_reference_denies_others_and_our_dry_runs_not_our_writes() {
    let cluster = Cluster::start(&[host::GROUP]).await;
    host::install(&cluster).await;
    let writer = cluster.user("writer");
    let (code, before) = host::post(&writer, &host::gadget("before", 1), "").await;
    assert_eq!(code, 201, "{before}");

    host::put_fence(&cluster, HOST_USER);
    let denied = post_until(&writer, "the fence in effect", host::fenced).await;
    assert_eq!(denied["code"], 403, "{denied}");
    let us = cluster.as_our_server();
    let (code, body) = host::post(&us, &host::gadget("ours", 2), "").await;
    assert_eq!(code, 201, "our own write passes the fence: {body}");
    let (code, body) = host::post(&us, &host::gadget("ours-dry", 2), "?dryRun=All").await;
    assert!(
        host::fenced(code, &body),
        "our dry run is fenced: {code} {body}"
    );
    let mut status = before.clone();
    status["status"] = json!({"phase": "Ready"});
    let put = writer
        .client
        .put(format!("{}{}/before/status", writer.base, host::GADGETS))
        .json(&status);
    let (code, body) = host::send(put).await;
    assert!(host::fenced(code, &body), "status is fenced: {code} {body}");
    let delete = writer
        .client
        .delete(format!("{}{}/before", writer.base, host::GADGETS));
    let (code, body) = host::send(delete).await;
    assert!(host::fenced(code, &body), "delete is fenced: {code} {body}");

    cluster
        .fake
        .delete_object(&VALIDATING_POLICY_BINDINGS, None, &host::fence_name());
    post_until(&writer, "writes after the fence is lifted", |code, _| {
        code == 201
    })
    .await;
    let (_, stored) = get(&cluster.admin(), &format!("{}/before", host::GADGETS)).await;
    assert_eq!(stored["metadata"]["uid"], before["metadata"]["uid"]);
    assert_eq!(
        stored["status"],
        Value::Null,
        "the fenced status write changed nothing"
    );
}
