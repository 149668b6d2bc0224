#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use k8s_openapi::ByteString;
use tokio::sync::watch;

use super::*;
use crate::register::desired::Route;

fn desired(bundle: &[u8]) -> Desired {
    Desired {
        route: Route {
            service_namespace: "ns".into(),
            service_name: "crd-apiserver".into(),
            service_port: 443,
            group_priority_minimum: 1000,
            version_priority: 100,
        },
        ca_bundle: watch::channel(Arc::new(bundle.to_vec())).1,
    }
}

fn served(gvs: &[(&str, &str)]) -> BTreeSet<(String, String)> {
    gvs.iter()
        .map(|(g, v)| (g.to_string(), v.to_string()))
        .collect()
}

/// Ours as applied, with a uid.
fn ours(d: &Desired, group: &str, version: &str) -> APIService {
    let mut a = d.apiservice(group, version);
    a.metadata.uid = Some(format!("uid-{version}.{group}"));
    a
}

fn create(group: &str, version: &str) -> Action {
    Action::Create {
        group: group.into(),
        version: version.into(),
    }
}

/// The apply over ours as listed by [`ours`] (its uid; `rv`: its resourceVersion).
fn apply(group: &str, version: &str, rv: Option<&str>) -> Action {
    Action::Apply {
        group: group.into(),
        version: version.into(),
        uid: Some(format!("uid-{version}.{group}")),
        resource_version: rv.map(str::to_string),
    }
}

/// Name, served (group, version) pairs, the APIService names this process has served,
/// the host's APIServices, the actions wanted.
type Case = (
    &'static str,
    Vec<(&'static str, &'static str)>,
    Vec<&'static str>,
    Vec<APIService>,
    Vec<Action>,
);

#[test]
fn plan_existing_and_served_actions() {
    let d = desired(b"CA");
    let edited = {
        let mut a = ours(&d, "g", "v1");
        a.metadata.resource_version = Some("12".into());
        a.spec.as_mut().unwrap().group_priority_minimum = 5;
        a
    };
    let old_bundle = {
        let mut a = ours(&d, "g", "v1");
        a.spec.as_mut().unwrap().ca_bundle = Some(ByteString(b"OLD".to_vec()));
        a
    };
    let label_removed = {
        let mut a = ours(&d, "g", "v1");
        a.metadata.labels = None;
        a
    };
    let other_owner = {
        let mut a = ours(&d, "g", "v1");
        a.metadata.labels = Some([(OWNER_LABEL.to_string(), "other.svc".to_string())].into());
        a
    };
    let with_status = {
        let mut a = ours(&d, "g", "v1");
        a.metadata.resource_version = Some("7".into());
        a.status = Some(Default::default());
        a
    };
    let cases: Vec<Case> = vec![
        (
            "absent: created (POST)",
            vec![("g", "v1")],
            vec![],
            vec![],
            vec![create("g", "v1")],
        ),
        (
            "ours, equal: nothing",
            vec![("g", "v1")],
            vec!["v1.g"],
            vec![ours(&d, "g", "v1")],
            vec![],
        ),
        (
            "ours with server fields: nothing",
            vec![("g", "v1")],
            vec!["v1.g"],
            vec![with_status],
            vec![],
        ),
        (
            "ours, edited spec: applied over its uid and resourceVersion",
            vec![("g", "v1")],
            vec!["v1.g"],
            vec![edited],
            vec![apply("g", "v1", Some("12"))],
        ),
        (
            "ours, old caBundle: applied",
            vec![("g", "v1")],
            vec!["v1.g"],
            vec![old_bundle],
            vec![apply("g", "v1", None)],
        ),
        (
            "no owner label: not ours",
            vec![("g", "v1")],
            vec!["v1.g"],
            vec![label_removed],
            vec![Action::NotOwned {
                name: "v1.g".into(),
                owner: None,
            }],
        ),
        (
            "another Service's: not ours",
            vec![("g", "v1")],
            vec!["v1.g"],
            vec![other_owner.clone()],
            vec![Action::NotOwned {
                name: "v1.g".into(),
                owner: Some("other.svc".into()),
            }],
        ),
        (
            "ours, served once, no longer served: deleted with its uid",
            vec![("g", "v1")],
            vec!["v1.g", "v2.g"],
            vec![ours(&d, "g", "v1"), ours(&d, "g", "v2")],
            vec![Action::Delete {
                name: "v2.g".into(),
                uid: "uid-v2.g".into(),
            }],
        ),
        (
            "ours, never served by this process (offload's switched one after a restart): kept",
            vec![("g", "v1")],
            vec!["v1.g"],
            vec![ours(&d, "g", "v1"), ours(&d, "taken", "v1")],
            vec![],
        ),
        (
            "nothing served yet, ours present: kept",
            vec![],
            vec![],
            vec![ours(&d, "taken", "v1")],
            vec![],
        ),
        (
            "another Service's, not served: left",
            vec![],
            vec!["v1.g"],
            vec![other_owner],
            vec![],
        ),
        (
            "two groups, one absent",
            vec![("a", "v1"), ("b", "v1")],
            vec!["v1.a"],
            vec![ours(&d, "a", "v1")],
            vec![create("b", "v1")],
        ),
    ];
    for (name, gvs, ever, existing, want) in cases {
        let ever = ever.iter().map(|n| n.to_string()).collect();
        assert_eq!(plan(&served(&gvs), &ever, &existing, &d), want, "{name}");
    }
}

#[test]
fn plan_empty_bundle_absent_ca_bundle_equal() {
    let d = desired(b"");
    let mut found = ours(&d, "g", "v1");
    found.spec.as_mut().unwrap().ca_bundle = Some(ByteString(Vec::new()));
    assert_eq!(
        plan(&served(&[("g", "v1")]), &BTreeSet::new(), &[found], &d),
        vec![]
    );
}

#[test]
fn warned_once_per_change() {
    let mut warned = Warned::default();
    let uid = |s: &str| Some(s.to_string());
    assert!(warned.first("v1.g", uid("a"), None));
    assert!(!warned.first("v1.g", uid("a"), None), "same: quiet");
    assert!(warned.first("v1.g", uid("a"), uid("x")), "owner changed");
    assert!(warned.first("v1.g", uid("b"), uid("x")), "recreated");
    warned.retain(&BTreeSet::new());
    assert!(
        warned.first("v1.g", uid("b"), uid("x")),
        "forgotten once resolved"
    );
}
