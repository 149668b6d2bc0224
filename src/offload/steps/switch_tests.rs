//! The APIService edits of the switch and the switch back, and availability.

use std::sync::Arc;

use serde_json::json;
use tokio::sync::watch;

use super::*;
use crate::register::desired::Route;

fn desired() -> Desired {
    let (_tx, rx) = watch::channel(Arc::new(b"CA".to_vec()));
    Desired {
        route: Route {
            service_namespace: "crd".into(),
            service_name: "api".into(),
            service_port: 443,
            group_priority_minimum: 1000,
            version_priority: 15,
        },
        ca_bundle: rx,
    }
}

fn apiservice(value: serde_json::Value) -> APIService {
    serde_json::from_value(value).unwrap()
}

/// kube's crdregistration APIService for a CRD's group/version, as the host has it.
fn automanaged() -> APIService {
    apiservice(json!({
        "apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
        "metadata": {"name": "v1.g.example.com", "resourceVersion": "42",
            "labels": {"kube-aggregator.kubernetes.io/automanaged": "true", "keep": "me"}},
        "spec": {"group": "g.example.com", "version": "v1", "groupPriorityMinimum": 1000, "versionPriority": 100},
        "status": {"conditions": [{"type": "Available", "status": "True", "reason": "Local",
            "message": "Local APIServices are always available", "lastTransitionTime": "2025-01-01T00:00:00Z"}]},
    }))
}

#[test]
fn switched_drops_automanaged_adds_owner_and_routes_to_us() {
    let wanted = desired().apiservice("g.example.com", "v1");
    let next = serde_json::to_value(switched(&automanaged(), &wanted).unwrap()).unwrap();
    assert_eq!(
        next["metadata"]["labels"],
        json!({"keep": "me", "crd-apiserver.io/service": "crd.api"})
    );
    assert_eq!(next["metadata"]["resourceVersion"], "42");
    assert_eq!(
        next["spec"],
        json!({"group": "g.example.com", "version": "v1", "groupPriorityMinimum": 1000, "versionPriority": 15,
            "service": {"namespace": "crd", "name": "api", "port": 443}, "caBundle": "Q0E=",
            "insecureSkipTLSVerify": false})
    );
}

#[test]
fn switched_twice_changes_nothing() {
    let wanted = desired().apiservice("g.example.com", "v1");
    let once = switched(&automanaged(), &wanted).unwrap();
    assert_eq!(switched(&once, &wanted), None);
}

#[test]
fn switched_as_kube_answers_it_without_a_false_insecure_skip_changes_nothing() {
    let wanted = desired().apiservice("g.example.com", "v1");
    let mut answered = switched(&automanaged(), &wanted).unwrap();
    answered.spec.as_mut().unwrap().insecure_skip_tls_verify = None;
    assert_eq!(switched(&answered, &wanted), None);
}

#[test]
fn switched_back_is_kubes_local_automanaged_apiservice() {
    let wanted = desired().apiservice("g.example.com", "v1");
    let ours = switched(&automanaged(), &wanted).unwrap();
    let back = switched_back(&ours).unwrap();
    let value = serde_json::to_value(&back).unwrap();
    assert_eq!(
        value["metadata"]["labels"],
        json!({"keep": "me", "kube-aggregator.kubernetes.io/automanaged": "true"})
    );
    assert_eq!(
        value["spec"],
        json!({"group": "g.example.com", "version": "v1", "groupPriorityMinimum": 1000, "versionPriority": 100})
    );
    assert_eq!(switched_back(&back), None);
    assert_eq!(switched_back(&automanaged()), None);
}

#[test]
fn available_needs_our_route_and_a_remote_available_condition() {
    let d = desired();
    let wanted = d.apiservice("g.example.com", "v1");
    let local = automanaged();
    assert!(
        !available(&local, &wanted),
        "local Available=True proves nothing"
    );
    let mut ours = switched(&local, &wanted).unwrap();
    assert!(!available(&ours, &wanted), "still the Local condition");
    let with = |status: &str, reason: &str| {
        serde_json::from_value(
            json!({"conditions": [{"type": "Available", "status": status,
            "reason": reason, "lastTransitionTime": "2025-01-01T00:00:01Z"}]}),
        )
        .unwrap()
    };
    ours.status = Some(with("False", "MissingEndpoints"));
    assert!(!available(&ours, &wanted));
    ours.status = Some(with("True", "Passed"));
    assert!(available(&ours, &wanted));
    let mut elsewhere = ours.clone();
    elsewhere
        .spec
        .as_mut()
        .unwrap()
        .service
        .as_mut()
        .unwrap()
        .name = Some("other".into());
    assert!(!available(&elsewhere, &wanted));
}

#[test]
fn version_of_strips_the_group() {
    assert_eq!(
        version_of("v1beta1.g.example.com", "g.example.com"),
        "v1beta1"
    );
}
