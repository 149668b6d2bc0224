//! Offload mode end to end against the fake host cluster (tests/common/fake_kube*) with
//! the real server binary and the real steps: a labelled host CRD with objects is taken
//! over (objects here with the same uids, its APIService switched, records, events,
//! metrics), host writes during the take-over either fail with the fence's message or are
//! here exactly once, a SIGKILL while switched resumes after a restart, `offload status`
//! shows it, `offload --undo` gives it back, and a partly selected group is refused.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;
#[path = "common/fake_kube.rs"]
mod fake_kube;
#[path = "offload/host.rs"]
mod host;

use std::time::Duration;

use common::eventually;
use host::*;
use k8s_openapi::kube_aggregator::pkg::apis::apiregistration::v1::APIService;
use kube::api::{Api, DynamicObject, ListParams, PostParams};
use serde_json::json;
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn offload_labelled_crd_taken_over_then_given_back_with_undo() {
    let (fake, client) = host(3).await;
    let at_host = host_uids(&client).await;
    let dir = tempfile::tempdir().unwrap();
    let server = serve(&fake, &dir);

    let switched = available_once_switched(&fake, &client).await;
    let offloaded = wait_phase(&client, CRD, "Offloaded").await;
    assert_eq!(
        (
            offloaded["direction"].as_str(),
            offloaded["objects"].as_u64()
        ),
        (Some("TakeOver"), Some(3))
    );
    // Served here, the same objects with the same uids.
    assert_eq!(uids(&here(&server).await), at_host);
    // The APIService is ours now: kube's autoregister leaves it alone without its label.
    let labels = switched.metadata.labels.clone().unwrap_or_default();
    assert!(
        !labels.contains_key("kube-aggregator.kubernetes.io/automanaged"),
        "{labels:?}"
    );
    assert_eq!(
        labels.get("crd-apiserver.io/service").map(String::as_str),
        Some("crd-test.crd-apiserver")
    );
    let service = switched.spec.unwrap().service.unwrap();
    assert_eq!(service.namespace.as_deref(), Some(NAMESPACE));
    let reasons = event_reasons(&client, CRD).await;
    let expected = [
        "OffloadPending",
        "OffloadFenced",
        "OffloadServing",
        "OffloadCopied",
        "OffloadSwitched",
        "OffloadAvailable",
        "OffloadOffloaded",
    ];
    assert_eq!(reasons, expected);
    let metrics = server.metrics().await;
    for line in [
        format!("crd_apiserver_offload_phase{{group=\"{GROUP}\",phase=\"Offloaded\"}} 1"),
        format!("crd_apiserver_offload_phase{{group=\"{GROUP}\",phase=\"Switched\"}} 0"),
        format!("crd_apiserver_offload_objects_copied_total{{group=\"{GROUP}\"}} 3"),
        format!("crd_apiserver_offload_transitions_total{{group=\"{GROUP}\",phase=\"Copied\"}} 1"),
    ] {
        assert!(metrics.lines().any(|l| l == line), "{line} in\n{metrics}");
    }

    // `offload status`: one row for the CRD.
    let status = offload_cli(&fake, &["status"]);
    assert!(status.status.success(), "{status:?}");
    let out = String::from_utf8(status.stdout).unwrap();
    let rows: Vec<Vec<&str>> = out
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(
        rows[0],
        [
            "NAME",
            "GROUP",
            "DIRECTION",
            "PHASE",
            "SINCE",
            "OBJECTS",
            "MESSAGE"
        ]
    );
    assert_eq!(rows.len(), 2, "{out}");
    assert_eq!(
        (rows[1][0], rows[1][1], rows[1][2], rows[1][3], rows[1][5]),
        (CRD, GROUP, "TakeOver", "Offloaded", "3")
    );

    // A write here while offloaded; then --undo gives the group back to the host.
    let made_here = json!({"apiVersion": format!("{GROUP}/v1"), "kind": "Gadget", "metadata": {"name": "made-here", "namespace": "default"}, "spec": {"size": 9}});
    let created = server
        .client()
        .post(server.url(&format!("/apis/{GROUP}/v1/namespaces/default/gadgets")))
        .json(&made_here)
        .send()
        .await
        .unwrap();
    assert_eq!(created.status(), 201);
    let undo = offload_cli(&fake, &["--undo", CRD]);
    assert!(undo.status.success(), "{undo:?}");
    let returned = wait_phase(&client, CRD, "Returned").await;
    assert_eq!(returned["direction"], "GiveBack");
    let back = host_uids(&client).await;
    assert_eq!(
        back.keys().cloned().collect::<Vec<_>>(),
        ["g0", "g1", "g2", "made-here"]
    );
    for (name, uid) in &at_host {
        assert_eq!(back.get(name), Some(uid), "{name} kept its uid at the host");
    }
    let apiservice = Api::<APIService>::all(client.clone())
        .get(APISERVICE)
        .await
        .unwrap();
    let labels = apiservice.metadata.labels.unwrap_or_default();
    assert_eq!(
        labels
            .get("kube-aggregator.kubernetes.io/automanaged")
            .map(String::as_str),
        Some("true")
    );
    assert!(apiservice.spec.unwrap().service.is_none(), "local again");
    let reasons = event_reasons(&client, CRD).await;
    assert!(
        reasons.ends_with(&[
            "OffloadFenced".into(),
            "OffloadSwitchedBack".into(),
            "OffloadSynced".into(),
            "OffloadReturned".into()
        ]),
        "{reasons:?}"
    );
    drop(server);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn offload_host_writes_during_take_over_fenced_or_here_exactly_once() {
    let (fake, client) = host(20).await;
    fake.add_user("alice-token", "alice", &["devs"]);
    let alice = fake.client_for("alice-token").await;
    let dir = tempfile::tempdir().unwrap();
    // A writer at the host until the APIService is switched (from then on the host's
    // aggregator would route to us).
    let (stop_tx, mut stop) = tokio::sync::watch::channel(false);
    let writer = tokio::spawn(async move {
        let api: Api<DynamicObject> = Api::namespaced_with(alice, "default", &gadgets());
        let (mut acknowledged, mut fenced) = (Vec::new(), 0usize);
        for i in 0.. {
            if *stop.borrow_and_update() {
                break;
            }
            let name = format!("w{i}");
            match api.create(&PostParams::default(), &gadget(&name)).await {
                Ok(o) => acknowledged.push((name, o.metadata.uid.unwrap())),
                Err(kube::Error::Api(s)) => {
                    assert_eq!(s.code, 403, "{s:?}");
                    assert!(s.message.contains(&format!("the resources of API group \"{GROUP}\" are being moved by crd-apiserver")), "{}", s.message);
                    fenced += 1;
                }
                Err(e) => panic!("{e}"),
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        (acknowledged, fenced)
    });
    let server = serve(&fake, &dir);
    available_once_switched(&fake, &client).await;
    stop_tx.send(true).unwrap();
    let (acknowledged, fenced) = writer.await.unwrap();
    wait_phase(&client, CRD, "Offloaded").await;
    assert!(fenced > 0, "the writer ran into the fence");
    let ours = uids(&here(&server).await);
    for (name, uid) in &acknowledged {
        assert_eq!(
            ours.get(name),
            Some(uid),
            "acknowledged {name} is here once, same uid"
        );
    }
    assert_eq!(
        ours.len(),
        20 + acknowledged.len(),
        "nothing else: {ours:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn offload_sigkill_while_switched_resumes_after_restart() {
    let (fake, client) = host(2).await;
    let at_host = host_uids(&client).await;
    let dir = tempfile::tempdir().unwrap();
    let mut server = serve(&fake, &dir);
    // The APIService never becomes Available: the move waits in Switched.
    wait_phase(&client, CRD, "Switched").await;
    server.sigkill();
    let server = server.start_again();
    available_once_switched(&fake, &client).await;
    wait_phase(&client, CRD, "Offloaded").await;
    assert_eq!(uids(&here(&server).await), at_host);
    let reasons = event_reasons(&client, CRD).await;
    assert_eq!(
        reasons.iter().filter(|r| *r == "OffloadCopied").count(),
        1,
        "{reasons:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn offload_partial_group_refused_with_event_nothing_moved() {
    let (fake, client) = host(1).await;
    fake.put_crd(gadget_crd("gizmos", "Gizmo", false));
    let dir = tempfile::tempdir().unwrap();
    let _server = serve(&fake, &dir);
    let reasons = eventually(DEADLINE, "the refusal", || async {
        let reasons = event_reasons(&client, CRD).await;
        (!reasons.is_empty()).then_some(reasons)
    })
    .await;
    assert_eq!(reasons, ["OffloadRefused"]);
    let api: Api<k8s_openapi::api::events::v1::Event> = Api::namespaced(client.clone(), "default");
    let event = api
        .list(&ListParams::default())
        .await
        .unwrap()
        .items
        .remove(0);
    assert_eq!(event.type_.as_deref(), Some("Warning"));
    assert_eq!(
        event.reporting_controller.as_deref(),
        Some("crd-apiserver.io/offload")
    );
    assert!(event.note.unwrap().ends_with(&format!(
        "not selected by --offload-selector: gizmos.{GROUP}"
    )));
    assert!(record(&client, CRD).await.is_none(), "nothing recorded");
    assert!(
        fake.writes()
            .iter()
            .all(|w| !w.path.contains("validatingadmissionpolic")),
        "no fence"
    );
}

#[tokio::test]
async fn offload_undo_without_record_fails_naming_it() {
    let (fake, _client) = host(0).await;
    let out = offload_cli(&fake, &["--undo", CRD]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        format!(
            "crd-apiserver offload: customresourcedefinition \"{CRD}\" has no offload record: it was never taken over by crd-apiserver\n"
        )
    );
}
