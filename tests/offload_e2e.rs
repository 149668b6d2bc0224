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
#[path = "offload_e2e/moves.rs"]
mod moves;
#[path = "offload_e2e/peers.rs"]
mod peers;

use std::path::PathBuf;
use std::time::Duration;

use base64::Engine;
use cluster::{APISERVICES, Cluster, OUR_SERVICE, apiservice, available, create, get};
use fake_kube::collections::VALIDATING_POLICY_BINDINGS;
use front::{HOST_USER, Upstream};
use moves::{Write, Writer};
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

/// The cluster itself, without registration: an APIService made by hand for our Service and
/// CA routes kubectl through the real aggregator to our server (a failing registration test
/// with this one passing points at registration, not at the harness).
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

fn our_ca_bundle(cluster: &Cluster) -> Value {
    json!(base64::engine::general_purpose::STANDARD.encode(&cluster.our_ca.pem.cert))
}

/// Registration: `--register-apiservices` makes our APIService, which the real aggregator finds
/// Available with our CA in `caBundle` (its discovery check verified our serving certificate
/// with it), and kubectl through the aggregator lists what we serve.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the reference apiextensions-apiserver and a locally built kube-aggregator (see tests/offload_e2e/README.md)"]
async fn registration_flag_apiservice_available_with_our_ca_and_kubectl_lists_through_aggregator() {
    let mut cluster = Cluster::start(&[]).await;
    let crds = own_crds(&cluster);
    let flags = cluster.register_flags();
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    cluster.start_ours(&crds, &flags);
    let condition = cluster
        .wait_available("v1.stable.example.com", Duration::from_secs(90))
        .await;
    assert_eq!(condition["reason"], "Passed", "{condition}");
    let ours = cluster.apiservice("v1.stable.example.com").await;
    assert_eq!(ours["spec"]["caBundle"], our_ca_bundle(&cluster), "{ours}");
    assert_eq!(
        ours["spec"]["service"],
        json!({"namespace": "default", "name": "crd-apiserver", "port": cluster.our_port})
    );
    assert_eq!(
        ours["metadata"]["labels"]["crd-apiserver.io/service"],
        "default.crd-apiserver"
    );

    create(&cluster.admin(), CRONTABS, &crontab("through-aggregator")).await;
    let out = kubectl(
        &cluster,
        &["get", "crontabs", "-n", "default", "-o", "json"],
    );
    let listed: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(common::item_names(&listed), ["through-aggregator"]);
    let (code, direct) = get(
        &cluster.ours_client(),
        &format!("{CRONTABS}/through-aggregator"),
    )
    .await;
    assert_eq!(code, 200, "{direct}");
    assert_eq!(
        direct["metadata"]["uid"],
        listed["items"][0]["metadata"]["uid"]
    );
}

/// Uninstalling without `crd-apiserver unregister`: once our server is gone, the aggregator's
/// availability check marks our APIService `Available=False` with a reason and message (what
/// the README's uninstall section quotes) — not a silent hang: `FailedDiscoveryCheck` while the
/// Service still has endpoints, `MissingEndpoints` once the pods are gone, `ServiceNotFound`
/// once the Service is deleted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the reference apiextensions-apiserver and a locally built kube-aggregator (see tests/offload_e2e/README.md)"]
async fn registration_server_stopped_apiservice_unavailable_with_reason() {
    let mut cluster = Cluster::start(&[]).await;
    let crds = own_crds(&cluster);
    let flags = cluster.register_flags();
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    cluster.start_ours(&crds, &flags);
    cluster
        .wait_available("v1.stable.example.com", Duration::from_secs(90))
        .await;
    cluster.stop_ours();
    // The aggregator re-checks every 30 s (remote_available_controller.go's resync).
    let condition = cluster
        .wait_condition("v1.stable.example.com", "False", Duration::from_secs(75))
        .await;
    eprintln!("Available after our server stopped: {condition}");
    assert_eq!(condition["reason"], "FailedDiscoveryCheck", "{condition}");
    let message = condition["message"].as_str().unwrap();
    let url = format!(
        "https://127.0.0.1:{}/apis/stable.example.com/v1",
        cluster.our_port
    );
    assert!(
        message.starts_with(&format!("failing or missing response from {url}")),
        "{message}"
    );
    assert!(message.contains("connection refused"), "{message}");
    let out = common::kubectl_at(
        &cluster.aggregator_kubeconfig(),
        &["get", "crontabs", "-n", "default"],
    );
    assert!(
        !out.status.success(),
        "kubectl must fail while our APIService is unavailable"
    );
    eprintln!("kubectl: {}", String::from_utf8_lossy(&out.stderr));

    cluster::empty_endpoints(&cluster.fake, OUR_SERVICE, cluster.our_port);
    let name = "v1.stable.example.com";
    let within = Duration::from_secs(45);
    let condition = cluster
        .wait_reason(name, "False", Some("MissingEndpoints"), within)
        .await;
    eprintln!("Available once the endpoints are gone: {condition}");
    assert_eq!(
        condition["message"],
        "endpointslices for service/crd-apiserver in \"default\" have no addresses with port name \"https\""
    );
    cluster
        .fake
        .delete_object(&cluster::SERVICES, Some("default"), "crd-apiserver");
    let condition = cluster
        .wait_reason(name, "False", Some("ServiceNotFound"), within)
        .await;
    eprintln!("Available once the Service is gone: {condition}");
    assert_eq!(
        condition["message"],
        "service/crd-apiserver in \"default\" is not present"
    );
}

/// Our server with registration and `--offload-selector`, started against the cluster.
fn start_offloading(cluster: &mut Cluster) {
    let crds = own_crds(cluster);
    let mut flags = cluster.register_flags();
    flags.push(format!("--offload-selector={}", host::SELECTOR));
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    cluster.start_ours(&crds, &flags);
}

/// The Gadgets served through the aggregator now, by name.
async fn gadgets(to: &Upstream) -> Vec<Value> {
    let (code, list) = get(to, host::GADGETS).await;
    assert_eq!(code, 200, "{list}");
    list["items"].as_array().unwrap().clone()
}

fn named<'a>(items: &'a [Value], name: &str) -> &'a Value {
    items
        .iter()
        .find(|i| i["metadata"]["name"] == name)
        .unwrap_or_else(|| panic!("{name} missing"))
}

/// The take-over: Gadgets made in the reference before it are served by us afterwards,
/// through the aggregator, with the same uid, creationTimestamp, generation, metadata,
/// managedFields and status; a writer creating and updating through the aggregator all the
/// while sees each write either denied by the fence with kube's text (and absent afterwards)
/// or landed exactly once; the group's APIService is switched to us (no automanaged label,
/// our owner label, our Service and caBundle) and stays so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the reference apiextensions-apiserver and a locally built kube-aggregator (see tests/offload_e2e/README.md)"]
async fn offload_take_over_under_writes_keeps_objects_and_lands_each_write_once() {
    let mut cluster = Cluster::start(&[host::GROUP]).await;
    host::install(&cluster).await;
    let before = moves::made_before(&cluster, 4).await;
    start_offloading(&mut cluster);
    cluster
        .wait_available("v1.stable.example.com", Duration::from_secs(90))
        .await;

    let writer = Writer::start(cluster.user("writer"));
    common::eventually(
        Duration::from_secs(30),
        "writes landing before the move",
        || {
            let landed = writer.landed();
            async move { (landed >= 4).then_some(()) }
        },
    )
    .await;
    moves::select(&cluster).await;
    moves::wait_phase(&cluster, "Offloaded", Duration::from_secs(180)).await;
    let landed = writer.landed();
    common::eventually(
        Duration::from_secs(30),
        "writes landing after the move",
        || {
            let now = writer.landed();
            async move { (now >= landed + 4).then_some(()) }
        },
    )
    .await;
    let writes = writer.stop().await;

    let admin = cluster.admin();
    let now = gadgets(&admin).await;
    for made in &before[1..] {
        let name = made["metadata"]["name"].as_str().unwrap();
        assert_eq!(moves::kept(named(&now, name)), moves::kept(made), "{name}");
    }
    let g0 = named(&now, "g-0");
    assert_eq!(g0["metadata"]["uid"], before[0]["metadata"]["uid"]);
    assert_eq!(
        g0["metadata"]["creationTimestamp"],
        before[0]["metadata"]["creationTimestamp"]
    );
    assert_eq!(g0["status"], before[0]["status"]);

    let mut fenced = 0;
    let mut last_size = None;
    for write in &writes {
        match write {
            Write::Create {
                seq,
                code: 201,
                body,
            } => {
                let found: Vec<&Value> = now
                    .iter()
                    .filter(|o| o["metadata"]["labels"]["seq"] == json!(seq.to_string()))
                    .collect();
                assert_eq!(found.len(), 1, "acknowledged create {seq} present once");
                assert_eq!(found[0]["metadata"]["uid"], body["metadata"]["uid"]);
            }
            Write::Create { seq, code, body } if host::fenced(*code, body) => {
                fenced += 1;
                let present = now
                    .iter()
                    .any(|o| o["metadata"]["labels"]["seq"] == json!(seq.to_string()));
                assert!(!present, "fenced create {seq} is absent");
            }
            Write::Update {
                size, code: 200, ..
            } => last_size = Some(*size),
            Write::Update { code, body, .. } if host::fenced(*code, body) => fenced += 1,
            other => panic!("a write neither landed nor was fenced: {other:?}"),
        }
    }
    eprintln!(
        "writes during the take-over: {} ({fenced} fenced)",
        writes.len()
    );
    assert!(
        fenced > 0,
        "the fence held some writes ({} writes)",
        writes.len()
    );
    assert_eq!(
        g0["spec"]["size"],
        json!(last_size.unwrap()),
        "g-0 holds the last landed update"
    );

    // Served by us: our server, asked directly, has them.
    let (code, direct) = get(&cluster.ours_client(), &format!("{}/g-1", host::GADGETS)).await;
    assert_eq!(code, 200, "{direct}");
    assert_eq!(direct["metadata"]["uid"], before[1]["metadata"]["uid"]);
    let switched = cluster.apiservice(host::APISERVICE).await;
    let labels = &switched["metadata"]["labels"];
    assert_eq!(
        labels["kube-aggregator.kubernetes.io/automanaged"],
        Value::Null,
        "{switched}"
    );
    assert_eq!(
        labels["crd-apiserver.io/service"], "default.crd-apiserver",
        "{switched}"
    );
    assert_eq!(switched["spec"]["service"]["name"], "crd-apiserver");
    assert_eq!(switched["spec"]["caBundle"], our_ca_bundle(&cluster));
    assert_eq!(available(&switched)["status"], "True", "{switched}");
}

/// The give-back: `crd-apiserver offload --undo` moves the group back — the APIService is
/// automanaged and local again, and the reference holds the objects: those it had with their
/// uids, the one made while we served it (created anew).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the reference apiextensions-apiserver and a locally built kube-aggregator (see tests/offload_e2e/README.md)"]
async fn offload_undo_gives_the_objects_back_to_the_reference() {
    let mut cluster = Cluster::start(&[host::GROUP]).await;
    host::install(&cluster).await;
    let before = moves::made_before(&cluster, 3).await;
    start_offloading(&mut cluster);
    moves::select(&cluster).await;
    moves::wait_phase(&cluster, "Offloaded", Duration::from_secs(180)).await;
    let admin = cluster.admin();
    let (code, here) = host::post(&admin, &host::gadget("made-here", 7), "").await;
    assert_eq!(code, 201, "{here}");

    let undo = std::process::Command::new(env!("CARGO_BIN_EXE_crd-apiserver"))
        .args(["offload", "--undo", host::CRD, "--kubeconfig"])
        .arg(cluster.front_kubeconfig())
        .output()
        .unwrap();
    assert!(
        undo.status.success(),
        "offload --undo: {}",
        String::from_utf8_lossy(&undo.stderr)
    );
    let record = moves::wait_phase(&cluster, "Returned", Duration::from_secs(180)).await;
    assert_eq!(record["direction"], "GiveBack", "{record}");

    let back = cluster.apiservice(host::APISERVICE).await;
    let labels = &back["metadata"]["labels"];
    assert_eq!(
        labels["kube-aggregator.kubernetes.io/automanaged"], "true",
        "{back}"
    );
    assert_eq!(labels["crd-apiserver.io/service"], Value::Null, "{back}");
    assert_eq!(back["spec"]["service"], Value::Null, "{back}");
    // Local now: the host (the front, as kube-apiserver would) serves the group from the
    // reference, which has every object.
    let at_reference = gadgets(&cluster.reference_admin()).await;
    for made in &before {
        let name = made["metadata"]["name"].as_str().unwrap();
        let now = named(&at_reference, name);
        assert_eq!(now["metadata"]["uid"], made["metadata"]["uid"], "{name}");
        assert_eq!(now["status"], made["status"], "{name}");
        assert_eq!(now["spec"], made["spec"], "{name}");
    }
    assert_eq!(named(&at_reference, "made-here")["spec"]["size"], 7);
    let through_host = gadgets(&cluster.as_our_server()).await;
    assert_eq!(through_host.len(), at_reference.len());
}
