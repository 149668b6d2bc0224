//! Upstream's capmanagers_test.go, the identifier rules of buildmanagerinfo.go and the
//! handlers' manager name, and the time rule of managedfieldsupdater.go, as data.

use jiff::Timestamp;
use serde_json::{Value, json};

use super::*;
use crate::fieldmanager::fieldpath::{PathElement, Set, VersionedSet};

/// `time.Time{}.Add(order hours)`: year 1, 00:00 plus `order` hours.
fn hour(order: i64) -> String {
    format!("0001-01-01T{order:02}:00:00Z")
}

fn fields(names: &[&str]) -> Value {
    let mut s = Set::new();
    for n in names {
        s.insert(&[PathElement::field(*n)]);
    }
    s.to_fields_v1()
}

fn entry(name: &str, version: &str, order: i64, names: &[&str]) -> Value {
    json!({"manager": name, "operation": "Update", "apiVersion": version,
        "fieldsType": "FieldsV1", "fieldsV1": fields(names), "time": hour(order)})
}

type Row = (&'static str, &'static str, i64, &'static [&'static str]);

/// TestCapUpdateManagers (cap 3): (name, input, expected) as (manager, version, hour,
/// fields).
const CAP_CASES: &[(&str, &[Row], &[Row])] = &[
    (
        "one version, no ancient changes",
        &[
            ("update-manager1", "v1", 1, &["a"]),
            ("update-manager2", "v1", 2, &["b"]),
            ("update-manager3", "v1", 3, &["c"]),
            ("update-manager4", "v1", 4, &["d"]),
        ],
        &[
            ("ancient-changes", "v1", 2, &["a", "b"]),
            ("update-manager3", "v1", 3, &["c"]),
            ("update-manager4", "v1", 4, &["d"]),
        ],
    ),
    (
        "one version, one ancient changes",
        &[
            ("ancient-changes", "v1", 2, &["a", "b"]),
            ("update-manager3", "v1", 3, &["c"]),
            ("update-manager4", "v1", 4, &["d"]),
            ("update-manager5", "v1", 5, &["e"]),
        ],
        &[
            ("ancient-changes", "v1", 3, &["a", "b", "c"]),
            ("update-manager4", "v1", 4, &["d"]),
            ("update-manager5", "v1", 5, &["e"]),
        ],
    ),
    (
        "two versions, no ancient changes",
        &[
            ("update-manager1", "v1", 1, &["a"]),
            ("update-manager2", "v2", 2, &["b"]),
            ("update-manager3", "v1", 3, &["c"]),
            ("update-manager4", "v1", 4, &["d"]),
            ("update-manager5", "v1", 5, &["e"]),
        ],
        &[
            ("update-manager2", "v2", 2, &["b"]),
            ("ancient-changes", "v1", 4, &["a", "c", "d"]),
            ("update-manager5", "v1", 5, &["e"]),
        ],
    ),
    (
        "three versions, one ancient changes",
        &[
            ("update-manager2", "v2", 2, &["b"]),
            ("ancient-changes", "v1", 4, &["a", "c", "d"]),
            ("update-manager5", "v1", 5, &["e"]),
            ("update-manager6", "v3", 6, &["f"]),
            ("update-manager7", "v2", 7, &["g"]),
        ],
        &[
            ("ancient-changes", "v1", 5, &["a", "c", "d", "e"]),
            ("update-manager6", "v3", 6, &["f"]),
            ("ancient-changes", "v2", 7, &["b", "g"]),
        ],
    ),
    (
        "three versions, two ancient changes",
        &[
            ("ancient-changes", "v1", 5, &["a", "c", "d", "e"]),
            ("update-manager6", "v3", 6, &["f"]),
            ("ancient-changes", "v2", 7, &["b", "g"]),
            ("update-manager8", "v3", 8, &["h"]),
        ],
        &[
            ("ancient-changes", "v1", 5, &["a", "c", "d", "e"]),
            ("ancient-changes", "v2", 7, &["b", "g"]),
            ("ancient-changes", "v3", 8, &["f", "h"]),
        ],
    ),
    (
        "four versions, two ancient changes",
        &[
            ("ancient-changes", "v1", 5, &["a", "c", "d", "e"]),
            ("update-manager6", "v3", 6, &["f"]),
            ("ancient-changes", "v2", 7, &["b", "g"]),
            ("update-manager8", "v4", 8, &["h"]),
        ],
        &[
            ("ancient-changes", "v1", 5, &["a", "c", "d", "e"]),
            ("update-manager6", "v3", 6, &["f"]),
            ("ancient-changes", "v2", 7, &["b", "g"]),
            ("update-manager8", "v4", 8, &["h"]),
        ],
    ),
];

fn list(rows: &[Row]) -> Vec<ManagedFieldsEntry> {
    rows.iter()
        .map(|(m, v, o, f)| ManagedFieldsEntry::from_value(&entry(m, v, *o, f)).expect("entry"))
        .collect()
}

/// A no-op update as the test's `f.Update(live, "no-op-update")` runs it: nothing taken,
/// then the cap.
fn no_op_update(entries: &[ManagedFieldsEntry], max: usize) -> Vec<ManagedFieldsEntry> {
    let mut managed = decode_managed_fields(entries).expect("decodes");
    let id = manager_info("no-op-update", Operation::Update, "v1", "");
    finish_update(&mut managed, &id, Timestamp::UNIX_EPOCH);
    cap_update_managers(&mut managed, max);
    encode_managed_fields(&managed)
}

#[test]
fn cap_update_managers_upstream_table() {
    for (name, input, want) in CAP_CASES {
        let got = no_op_update(&list(input), 3);
        assert_eq!(got, list(want), "{name}");
        assert_eq!(no_op_update(&got, 3), got, "{name}: idempotent");
    }
}

/// TestCapManagersManagerMergesEntries: four managers each add one label (cap 3); the two
/// oldest merge into `ancient-changes`.
#[test]
fn cap_update_managers_merges_oldest_updates() {
    let mut managed = Managed::default();
    let labels = ["one", "two", "three", "four"];
    for (i, label) in labels.iter().enumerate() {
        let path = [
            PathElement::field("metadata"),
            PathElement::field("labels"),
            PathElement::field(*label),
        ];
        let mut taken = Set::new();
        taken.insert(&path);
        managed
            .fields
            .insert(CURRENT_OPERATION, VersionedSet::new(taken, "v1", false));
        let name = format!("fieldmanager_test_update_{}", i + 1);
        let id = manager_info(&name, Operation::Update, "v1", "");
        let now = Timestamp::from_second(1_000 + i as i64).expect("time");
        finish_update(&mut managed, &id, now);
        cap_update_managers(&mut managed, 3);
    }
    let encoded = encode_managed_fields(&managed);
    let names: Vec<&str> = encoded.iter().map(|e| e.manager.as_str()).collect();
    assert_eq!(
        names,
        [
            "ancient-changes",
            "fieldmanager_test_update_3",
            "fieldmanager_test_update_4"
        ]
    );
    let owned = |i: usize| Set::from_fields_v1(encoded[i].fields_v1.as_ref().expect("fields"));
    let ancient = owned(0).expect("set");
    for label in ["one", "two"] {
        let path = [
            PathElement::field("metadata"),
            PathElement::field("labels"),
            PathElement::field(label),
        ];
        assert!(ancient.has(&path), "ancient-changes owns {label}");
    }
}

#[test]
fn cap_update_managers_ignores_appliers() {
    let mut managed = Managed::default();
    for i in 0..12 {
        let id = manager_info(&format!("a{i:02}"), Operation::Apply, "v1", "");
        managed
            .fields
            .insert(id, VersionedSet::new(Set::new(), "v1", true));
    }
    let before = managed.clone();
    cap_update_managers(&mut managed, DEFAULT_MAX_UPDATE_MANAGERS);
    assert_eq!(managed, before);
}

/// The time rule: (name, manager had an entry, the update took fields, time changes).
#[test]
fn finish_update_time_changes_only_with_fields() {
    let old = Timestamp::from_second(100).expect("time");
    let now = Timestamp::from_second(200).expect("time");
    let id = manager_info("kubectl", Operation::Update, "v1", "");
    let field = |n: &str| {
        let mut s = Set::new();
        s.insert(&[PathElement::field(n)]);
        s
    };
    let cases = [
        ("no change keeps time", true, false, Some(old)),
        ("change sets time", true, true, Some(now)),
        ("first change creates entry", false, true, Some(now)),
        ("first no-op creates nothing", false, false, None),
    ];
    for (name, had, took, want) in cases {
        let mut managed = Managed::default();
        if had {
            managed
                .fields
                .insert(id.clone(), VersionedSet::new(field("a"), "v1", false));
            managed.times.insert(id.clone(), Some(old));
        }
        if took {
            let current = VersionedSet::new(field("b"), "v1", false);
            managed.fields.insert(CURRENT_OPERATION, current);
        }
        finish_update(&mut managed, &id, now);
        assert_eq!(managed.times.get(&id).copied().flatten(), want, "{name}");
        assert!(managed.fields.get(CURRENT_OPERATION).is_none(), "{name}");
        if had && took {
            let owned = &managed.fields.get(&id).expect("entry").set;
            assert_eq!(*owned, field("a").union(&field("b")), "{name}: merged");
        }
    }
}

#[test]
fn strip_fields_drops_server_owned_metadata() {
    let id = "m";
    let mut set = Set::new();
    for path in [
        vec!["apiVersion"],
        vec!["kind"],
        vec!["metadata"],
        vec!["metadata", "name"],
        vec!["metadata", "resourceVersion"],
        vec!["metadata", "labels", "app"],
        vec!["spec", "replicas"],
    ] {
        let path: Vec<PathElement> = path.into_iter().map(PathElement::field).collect();
        set.insert(&path);
    }
    let mut managed = Managed::default();
    managed
        .fields
        .insert(id, VersionedSet::new(set, "v1", false));
    strip_fields(&mut managed, id);
    let left = &managed.fields.get(id).expect("kept").set;
    let paths: Vec<String> = left.paths().iter().map(ToString::to_string).collect();
    assert_eq!(paths, [".metadata.labels.app", ".spec.replicas"]);

    let mut only_meta = Managed::default();
    let mut s = Set::new();
    s.insert(&[PathElement::field("metadata"), PathElement::field("uid")]);
    only_meta
        .fields
        .insert(id, VersionedSet::new(s, "v1", true));
    strip_fields(&mut only_meta, id);
    assert!(only_meta.fields.is_empty(), "an emptied manager is dropped");
}

/// buildManagerInfo: (name, operation, group/version, subresource, identifier).
#[test]
fn manager_info_identifiers() {
    let cases = [
        (
            "kubectl",
            Operation::Update,
            "v1",
            "",
            r#"{"manager":"kubectl","operation":"Update","apiVersion":"v1"}"#,
        ),
        (
            "kubectl",
            Operation::Apply,
            "example.com/v1",
            "",
            r#"{"manager":"kubectl","operation":"Apply"}"#,
        ),
        (
            "",
            Operation::Update,
            "example.com/v1",
            "status",
            r#"{"manager":"unknown","operation":"Update","apiVersion":"example.com/v1","subresource":"status"}"#,
        ),
        (
            "a<b>&\"c\"",
            Operation::Apply,
            "v1",
            "scale",
            r#"{"manager":"a\u003cb\u003e\u0026\"c\"","operation":"Apply","subresource":"scale"}"#,
        ),
    ];
    for (name, op, gv, sub, want) in cases {
        let id = manager_info(name, op, gv, sub);
        assert_eq!(id, want);
        let back = parse_manager_identifier(&id);
        assert_eq!(back.manager, if name.is_empty() { "unknown" } else { name });
        assert_eq!(back.subresource, sub);
    }
}

/// managerOrUserAgent / prefixFromUserAgent: (fieldManager, User-Agent, manager).
#[test]
fn manager_or_user_agent_kube_rules() {
    let long = "x".repeat(200);
    let split_rune = format!("{}é/x", "x".repeat(127));
    let cases: Vec<(&str, &str, String)> = vec![
        (
            "",
            "kubectl/v1.36.0 (linux/amd64) kubernetes/abc",
            "kubectl".into(),
        ),
        ("mine", "kubectl/v1.36.0", "mine".into()),
        ("", "", "".into()),
        ("", "no-slash agent", "no-slash agent".into()),
        ("", "a\u{7}b\tc/d", "abc".into()),
        ("", &long, "x".repeat(128)),
        ("", &split_rune, "x".repeat(127)),
        (
            "",
            "kube-controller-manager/v1.36.0 (linux/amd64)",
            "kube-controller-manager".into(),
        ),
    ];
    for (manager, agent, want) in cases {
        assert_eq!(manager_or_user_agent(manager, agent), want, "{agent:?}");
    }
}

#[test]
fn validate_field_manager_kube_rules() {
    assert_eq!(validate_field_manager("kubectl"), vec![]);
    assert_eq!(
        validate_field_manager(&"x".repeat(129)),
        vec![FieldManagerError::TooLong { max: 128 }]
    );
    assert_eq!(
        validate_field_manager("ab\u{7}"),
        vec![FieldManagerError::Invalid {
            detail: "invalid character U+0007 (at position 2)".into()
        }]
    );
    assert_eq!(validate_field_manager("héllo wörld"), vec![]);
}
