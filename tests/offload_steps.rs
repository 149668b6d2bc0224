//! offload's steps against the fake host cluster, each driven alone through the real
//! `Mover` over our serving state built in-process (tests/offload_steps/harness.rs):
//! the fence refuses the host's writes (but ours) with its message and lifting it lets
//! them through; the copy keeps every metadata field and status, a copy done again writes
//! nothing, and a uid clash is refused with nothing written; serve and stop serving move
//! the live catalog; the switch edits only the unit's APIServices, once; sync back makes
//! the host's objects ours.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

/// The switch, availability, the switch back and sync back.
#[path = "offload_steps/back.rs"]
mod back;
mod common;
#[path = "common/fake_kube.rs"]
mod fake_kube;
#[path = "offload_steps/harness.rs"]
mod harness;

use crd_apiserver::offload::steps::{fence, host, sync_back};
use crd_apiserver::offload::{Copied, StepError, Steps};
use fake_kube::collections::{Resource, VALIDATING_POLICIES, VALIDATING_POLICY_BINDINGS};
use fake_kube::host::APISERVICES;
use fake_kube::users::SERVICE_ACCOUNT_USER;
use harness::{Admission, GROUP, Harness, widget};
use serde_json::{Value, json};

const WIDGETS: &str = "/apis/widgets.example.com/v1/namespaces/default/widgets";

fn widgets_v1() -> Resource {
    fake_kube::host::crd_resources(&harness::widget_crd())
        .into_iter()
        .find(|r| r.version == "v1")
        .unwrap()
}

fn host_widget(h: &Harness, name: &str) -> Option<Value> {
    h.host.object(&widgets_v1(), Some("default"), name)
}

/// A client of a user the fence does not exempt.
async fn alice(h: &Harness) -> kube::Client {
    h.host.add_user("alice-token", "alice", &["devs"]);
    h.host.client_for("alice-token").await
}

fn writes_under(h: &Harness, path: &str) -> usize {
    h.host
        .writes()
        .iter()
        .filter(|w| w.path.starts_with(path))
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fence_denies_host_writes_but_ours_and_lifting_restores_them() {
    let h = Harness::start().await;
    h.host.put_object(widget("a"));
    let unit = h.unit();
    let alice = alice(&h).await;

    h.mover.fence(&unit).await.unwrap();

    let policy = h
        .host
        .object(&VALIDATING_POLICIES, None, &fence::name(GROUP))
        .unwrap();
    assert_eq!(
        policy["spec"]["matchConditions"][0]["expression"],
        fence::match_condition(SERVICE_ACCOUNT_USER)
    );
    assert_eq!(
        policy["spec"]["matchConstraints"]["resourceRules"][0]["resources"],
        json!(["*/*"])
    );
    let binding = h
        .host
        .object(&VALIDATING_POLICY_BINDINGS, None, &fence::name(GROUP))
        .unwrap();
    assert_eq!(binding["spec"]["validationActions"], json!(["Deny"]));

    let refused = host::create(&alice, WIDGETS, &widget("b"), false)
        .await
        .unwrap_err();
    let status = host::status(&refused).unwrap();
    assert_eq!(
        (status.code, status.reason.as_str()),
        (403, "Forbidden"),
        "{status:?}"
    );
    assert!(
        status.message.contains(&fence::denial(GROUP)),
        "{}",
        status.message
    );
    let current = host_widget(&h, "a").unwrap();
    let mut changed = current.clone();
    changed["status"]["phase"] = json!("Changed");
    let refused = host::replace(&alice, WIDGETS, &changed, Some("status"), false)
        .await
        .unwrap_err();
    assert_eq!(host::code(&refused), Some(403), "/status is fenced too");
    assert!(host_widget(&h, "b").is_none());
    assert_eq!(host_widget(&h, "a").unwrap()["status"], current["status"]);

    // Our own writes pass (give-back's sync writes through the fence).
    host::replace(&h.client, WIDGETS, &changed, Some("status"), false)
        .await
        .unwrap();
    assert_eq!(host_widget(&h, "a").unwrap()["status"]["phase"], "Changed");

    // Fencing again writes nothing.
    let before = writes_under(&h, "/apis/admissionregistration.k8s.io/");
    h.mover.fence(&unit).await.unwrap();
    assert_eq!(
        writes_under(&h, "/apis/admissionregistration.k8s.io/"),
        before
    );

    h.mover.lift_fence(&unit).await.unwrap();
    assert!(
        h.host
            .object(&VALIDATING_POLICIES, None, &fence::name(GROUP))
            .is_none()
    );
    assert!(
        h.host
            .object(&VALIDATING_POLICY_BINDINGS, None, &fence::name(GROUP))
            .is_none()
    );
    host::create(&alice, WIDGETS, &widget("b"), false)
        .await
        .unwrap();
    assert!(host_widget(&h, "b").is_some());
    h.mover.lift_fence(&unit).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fence_while_served_here_waits_for_our_own_admission_to_deny() {
    let h = Harness::with(Admission::HostPolicies).await;
    let unit = h.unit();
    h.mover.serve(&unit).await.unwrap();
    // Give-back: we serve the group, so the fence must hold the writes that reach us too;
    // it returns only once our ValidatingAdmissionPolicy plugin has the host's policy.
    // (Before the fence had kube's default selectors written out, our plugin refused the
    // undefaulted policy and this probe never met the fence's denial.)
    h.mover.fence(&unit).await.unwrap();
    h.mover.lift_fence(&unit).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fence_while_served_here_without_our_policy_plugin_is_transient() {
    let h = Harness::start().await;
    let unit = h.unit();
    h.mover.serve(&unit).await.unwrap();
    let err = h.mover.fence(&unit).await.unwrap_err();
    assert!(
        matches!(&err, StepError::Transient(m) if m.contains("ValidatingAdmissionPolicy admission plugin is not enabled here")),
        "{err:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fence_without_objects_probes_with_a_dry_run_create_that_stores_nothing() {
    let h = Harness::start().await;
    let unit = h.unit();
    h.mover.fence(&unit).await.unwrap();
    let probes: Vec<_> = h
        .host
        .writes()
        .into_iter()
        .filter(|w| w.method == "POST" && w.path == WIDGETS)
        .collect();
    assert!(!probes.is_empty());
    assert!(
        probes.iter().all(|p| p.query.contains("dryRun=All")),
        "{probes:?}"
    );
    assert_eq!(
        probes[0].json()["metadata"]["name"],
        "crd-apiserver-fence-probe"
    );
    assert!(host_widget(&h, "crd-apiserver-fence-probe").is_none());
}

/// The fields the copy must keep, as the host serves them.
fn kept(object: &Value) -> Value {
    let meta = &object["metadata"];
    let fields = [
        "name",
        "namespace",
        "uid",
        "creationTimestamp",
        "generation",
        "labels",
        "annotations",
        "finalizers",
        "ownerReferences",
        "managedFields",
    ];
    let kept_meta: Vec<(&str, Value)> = fields.iter().map(|f| (*f, meta[*f].clone())).collect();
    json!({
        "meta": kept_meta,
        "spec": object["spec"], "status": object["status"], "apiVersion": object["apiVersion"],
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn copy_keeps_metadata_and_status_and_copying_again_writes_nothing() {
    let h = Harness::start().await;
    h.host.put_object(widget("a"));
    h.host.put_object(widget("b"));
    let unit = h.unit();

    let copied = h.mover.copy(&unit).await.unwrap();
    assert_eq!(
        copied,
        Copied {
            listed: 2,
            written: 2,
            deleted: 0,
            recreated: 0
        }
    );
    for name in ["a", "b"] {
        let theirs = host_widget(&h, name).unwrap();
        let ours = h.here("default", name).await.unwrap();
        assert_eq!(kept(&ours), kept(&theirs), "{name}");
        assert!(
            ours["metadata"].get("resourceVersion").is_none(),
            "ours is assigned: {ours}"
        );
    }

    let revision = h.revision().await;
    let again = h.mover.copy(&unit).await.unwrap();
    assert_eq!(
        again,
        Copied {
            listed: 2,
            written: 0,
            deleted: 0,
            recreated: 0
        }
    );
    assert_eq!(h.revision().await, revision, "nothing written");

    // Gone at the host: deleted here.
    h.host.delete_object(&widgets_v1(), Some("default"), "b");
    let third = h.mover.copy(&unit).await.unwrap();
    assert_eq!(
        third,
        Copied {
            listed: 1,
            written: 0,
            deleted: 1,
            recreated: 0
        }
    );
    assert!(h.here("default", "b").await.is_none());
    assert_eq!(h.mover.count_here(&unit).await.unwrap(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn copy_with_a_uid_clash_is_refused_and_writes_nothing() {
    let h = Harness::start().await;
    h.host.put_object(widget("a"));
    h.host.put_object(widget("b"));
    let mut other = widget("b");
    other["metadata"]["uid"] = json!("0b0b0b0b-0000-4000-8000-00000000000b");
    h.put_here(&other).await;
    let revision = h.revision().await;

    let refused = h.mover.copy(&h.unit()).await.unwrap_err();
    let StepError::Refused(message) = refused else {
        panic!("{refused:?}")
    };
    assert!(
        message.contains("\"default/b\" is stored here with uid 0b0b0b0b"),
        "{message}"
    );
    assert_eq!(h.revision().await, revision, "nothing written");
    assert!(h.here("default", "a").await.is_none());
    assert_eq!(h.here("default", "b").await.unwrap(), other);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_and_stop_serving_move_the_live_catalog() {
    let h = Harness::start().await;
    let unit = h.unit();
    assert!(h.state.catalog().lookup(GROUP, "v1", "widgets").is_none());
    h.mover.serve(&unit).await.unwrap();
    assert!(
        h.state
            .catalog()
            .lookup(GROUP, "v1beta1", "widgets")
            .is_some()
    );
    h.mover.serve(&unit).await.unwrap();
    h.mover.stop_serving(&unit).await.unwrap();
    assert!(h.state.catalog().lookup(GROUP, "v1", "widgets").is_none());

    let mut bad = unit.clone();
    bad.crds[0].spec.scope = "Galactic".into();
    let refused = h.mover.serve(&bad).await.unwrap_err();
    assert!(
        matches!(&refused, StepError::Refused(m) if m.contains("scope")),
        "{refused:?}"
    );
    assert!(h.state.catalog().lookup(GROUP, "v1", "widgets").is_none());
}
