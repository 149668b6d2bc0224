//! offload's steps against the fake host cluster, each driven alone through the real
//! `Mover` over our serving state built in-process (tests/offload_steps/harness.rs):
//! the fence refuses the host's writes (but ours) with its message and lifting it lets
//! them through; the copy keeps every metadata field and status, a copy done again writes
//! nothing, and a uid clash is refused with nothing written; serve and stop serving move
//! the live catalog; the switch edits only the unit's APIServices, once; sync back makes
//! the host's objects ours.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

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

fn local_apiservice(group: &str, version: &str) -> Value {
    json!({"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
        "metadata": {"name": format!("{version}.{group}"),
            "labels": {"kube-aggregator.kubernetes.io/automanaged": "true"}},
        "spec": {"group": group, "version": version, "groupPriorityMinimum": 1000, "versionPriority": 100},
        "status": {"conditions": [{"type": "Available", "status": "True", "reason": "Local",
            "message": "Local APIServices are always available", "lastTransitionTime": "2025-01-01T00:00:00Z"}]}})
}

fn apiservice(h: &Harness, name: &str) -> Value {
    h.host.object(&APISERVICES, None, name).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn switch_edits_only_the_units_apiservices_once_and_switching_back_restores_them() {
    let h = Harness::start().await;
    for (group, version) in [
        (GROUP, "v1"),
        (GROUP, "v1beta1"),
        ("other.example.com", "v1"),
    ] {
        h.host.put_object(local_apiservice(group, version));
    }
    let other = apiservice(&h, "v1.other.example.com");
    let unit = h.unit();

    h.mover.switch(&unit).await.unwrap();
    for version in ["v1", "v1beta1"] {
        let switched = apiservice(&h, &format!("{version}.{GROUP}"));
        assert_eq!(
            switched["metadata"]["labels"],
            json!({"crd-apiserver.io/service": "crd-system.crd-apiserver"})
        );
        assert_eq!(
            switched["spec"],
            json!({"group": GROUP, "version": version, "groupPriorityMinimum": 1000, "versionPriority": 100,
                "service": {"namespace": "crd-system", "name": "crd-apiserver", "port": 443},
                "caBundle": "Q0EgUEVN"})
        );
    }
    assert_eq!(
        apiservice(&h, "v1.other.example.com"),
        other,
        "not the unit's: untouched"
    );

    let before = writes_under(&h, "/apis/apiregistration.k8s.io/");
    h.mover.switch(&unit).await.unwrap();
    assert_eq!(
        writes_under(&h, "/apis/apiregistration.k8s.io/"),
        before,
        "switching again writes nothing"
    );

    assert!(
        !h.mover.available(&unit).await.unwrap(),
        "the Local condition proves nothing"
    );
    h.host
        .set_apiservice_available(&format!("v1.{GROUP}"), true, "Passed");
    assert!(
        !h.mover.available(&unit).await.unwrap(),
        "v1beta1 is not yet"
    );
    h.host
        .set_apiservice_available(&format!("v1beta1.{GROUP}"), true, "Passed");
    assert!(h.mover.available(&unit).await.unwrap());

    h.mover.switch_back(&unit).await.unwrap();
    for version in ["v1", "v1beta1"] {
        let back = apiservice(&h, &format!("{version}.{GROUP}"));
        assert_eq!(
            back["metadata"]["labels"],
            json!({"kube-aggregator.kubernetes.io/automanaged": "true"})
        );
        assert_eq!(
            back["spec"],
            json!({"group": GROUP, "version": version, "groupPriorityMinimum": 1000, "versionPriority": 100})
        );
    }
    assert_eq!(apiservice(&h, "v1.other.example.com"), other);
    let before = writes_under(&h, "/apis/apiregistration.k8s.io/");
    h.mover.switch_back(&unit).await.unwrap();
    assert_eq!(writes_under(&h, "/apis/apiregistration.k8s.io/"), before);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sync_back_updates_creates_and_deletes_at_the_host_through_the_fence() {
    let h = Harness::start().await;
    h.host.put_object(widget("a"));
    h.host.put_object(widget("extra"));
    let unit = h.unit();
    let theirs_a = host_widget(&h, "a").unwrap();
    // Ours: `a` changed here (spec and status), `c` created here.
    let mut ours_a = theirs_a.clone();
    ours_a["metadata"]
        .as_object_mut()
        .unwrap()
        .remove("resourceVersion");
    ours_a["spec"]["size"] = json!(5);
    ours_a["status"]["phase"] = json!("Moved");
    h.put_here(&ours_a).await;
    let mut ours_c = widget("c");
    ours_c["metadata"]["uid"] = json!("0c0c0c0c-0000-4000-8000-00000000000c");
    ours_c["metadata"]["creationTimestamp"] = json!("2025-03-03T00:00:00Z");
    h.put_here(&ours_c).await;
    h.mover.fence(&unit).await.unwrap();

    let synced = h.mover.sync_back(&unit).await.unwrap();
    assert_eq!(
        synced,
        Copied {
            listed: 2,
            written: 2,
            deleted: 1,
            recreated: 1
        }
    );
    let a = host_widget(&h, "a").unwrap();
    assert_eq!(a["metadata"]["uid"], theirs_a["metadata"]["uid"]);
    assert_eq!(
        (&a["spec"]["size"], &a["status"]["phase"]),
        (&json!(5), &json!("Moved"))
    );
    let c = host_widget(&h, "c").unwrap();
    assert_ne!(
        c["metadata"]["uid"], ours_c["metadata"]["uid"],
        "a create gets a new uid"
    );
    assert_eq!(
        c["metadata"]["annotations"][sync_back::ORIGIN_UID],
        ours_c["metadata"]["uid"]
    );
    assert_eq!(
        (&c["spec"], &c["status"]),
        (&ours_c["spec"], &ours_c["status"])
    );
    assert_eq!(c["metadata"]["labels"], ours_c["metadata"]["labels"]);
    assert_eq!(
        c["metadata"]["ownerReferences"],
        ours_c["metadata"]["ownerReferences"]
    );
    let extra = host_widget(&h, "extra").unwrap();
    assert!(
        extra["metadata"]["deletionTimestamp"].is_string(),
        "deleted, held by its finalizer: {extra}"
    );

    let again = h.mover.sync_back(&unit).await.unwrap();
    assert_eq!(
        again,
        Copied {
            listed: 2,
            written: 0,
            deleted: 0,
            recreated: 0
        },
        "synced again: nothing to write"
    );
    assert_eq!(
        host_widget(&h, "c").unwrap()["metadata"]["uid"],
        c["metadata"]["uid"]
    );
    h.mover.lift_fence(&unit).await.unwrap();
}
