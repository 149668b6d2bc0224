#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::json;

use super::*;
use crate::offload::record::{Direction, Phase, Record};

#[test]
fn offload_record_name_same_as_offload() {
    assert_eq!(OFFLOAD_RECORD, crate::offload::record::ANNOTATION);
}

fn apiservice(name: &str) -> APIService {
    let (version, group) = name.split_once('.').unwrap();
    serde_json::from_value(json!({
        "metadata": {"name": name},
        "spec": {"group": group, "version": version, "groupPriorityMinimum": 1000, "versionPriority": 100}
    }))
    .unwrap()
}

/// A host CRD of `group`; `record`: its offload annotation's text.
fn crd(name: &str, group: &str, record: Option<String>) -> CustomResourceDefinition {
    let annotations = record.map(|r| json!({OFFLOAD_RECORD: r}));
    serde_json::from_value(json!({
        "metadata": {"name": name, "annotations": annotations},
        "spec": {"group": group, "scope": "Namespaced", "versions": [],
            "names": {"plural": "ps", "kind": "P"}}
    }))
    .unwrap()
}

fn record(phase: Phase) -> Option<String> {
    let record = Record {
        direction: Direction::TakeOver,
        phase,
        since: "2026-01-01T00:00:00Z".into(),
        objects: 0,
        message: String::new(),
        generation: None,
    };
    Some(serde_json::to_string(&record).unwrap())
}

#[test]
fn refused_live_offload_records_name_their_apiservices() {
    let ours = [
        apiservice("v1.moved.example"),
        apiservice("v1.plain.example"),
    ];
    #[rustfmt::skip]
    let cases: Vec<(&str, Option<String>, Vec<String>)> = vec![
        ("no record", None, vec![]),
        ("Pending: nothing done yet", record(Phase::Pending), vec![]),
        ("Returned", record(Phase::Returned), vec![]),
        ("Failed (rolled back)", record(Phase::Failed), vec![]),
        ("Offloaded", record(Phase::Offloaded), vec![
            "apiservice.apiregistration.k8s.io \"v1.moved.example\" (customresourcedefinition \"ps.moved.example\" in phase Offloaded)".into(),
        ]),
        ("Switched", record(Phase::Switched), vec![
            "apiservice.apiregistration.k8s.io \"v1.moved.example\" (customresourcedefinition \"ps.moved.example\" in phase Switched)".into(),
        ]),
        ("Fenced (a give-back)", record(Phase::Fenced), vec![
            "apiservice.apiregistration.k8s.io \"v1.moved.example\" (customresourcedefinition \"ps.moved.example\" in phase Fenced)".into(),
        ]),
        ("unreadable", Some("{".into()), vec![
            "apiservice.apiregistration.k8s.io \"v1.moved.example\" (customresourcedefinition \"ps.moved.example\" in phase unreadable record)".into(),
        ]),
    ];
    for (name, annotation, want) in cases {
        let crds = [
            crd("ps.moved.example", "moved.example", annotation),
            crd(
                "qs.other.example",
                "other.example",
                record(Phase::Offloaded),
            ),
        ];
        assert_eq!(refused(&ours, &crds), want, "{name}");
    }
}

#[test]
fn selector_service_owner_label() {
    assert_eq!(
        selector("ns/crd-apiserver").unwrap(),
        "crd-apiserver.io/service=ns.crd-apiserver"
    );
    assert!(matches!(
        selector("no-slash"),
        Err(UnregisterError::Service(_))
    ));
}
