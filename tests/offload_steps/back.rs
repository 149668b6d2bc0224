//! The way back and the way there at the host's routing: the switch edits only the unit's
//! APIServices (once), availability needs our route and kube-aggregator's remote check,
//! the switch back restores kube's local APIServices, sync back makes the host's objects
//! ours through the fence.

use super::*;

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
                "caBundle": "Q0EgUEVN", "insecureSkipTLSVerify": false})
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
