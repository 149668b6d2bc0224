//! Upstream's scalehandler_test.go tables as data: `ToSubresource` and `ToParent` over
//! entries written as JSON (`[manager, operation, apiVersion, fieldsV1, subresource]`).

use serde_json::{Value, json};

use super::{ResourcePathMappings, ScaleHandler, replicas_path};
use crate::fieldmanager::managed::{ManagedFieldsEntry, parse_time};

const REPLICAS: &str = r#"{"f:spec":{"f:replicas":{}}}"#;
const SELECTOR: &str = r#"{"f:spec":{"f:selector":{}}}"#;
const BOTH: &str = r#"{"f:spec":{"f:replicas":{},"f:selector":{}}}"#;

/// `[manager, operation, apiVersion, fieldsV1, subresource]` → an entry without time.
fn entry(e: [&str; 5]) -> ManagedFieldsEntry {
    let [manager, operation, api_version, fields, subresource] = e;
    let mut item = json!({"manager": manager, "operation": operation, "apiVersion": api_version,
        "fieldsType": "FieldsV1", "fieldsV1": serde_json::from_str::<Value>(fields).unwrap()});
    if !subresource.is_empty() {
        item["subresource"] = json!(subresource);
    }
    ManagedFieldsEntry::from_value(&item).unwrap()
}

fn entries(es: &[[&str; 5]]) -> Vec<ManagedFieldsEntry> {
    es.iter().copied().map(entry).collect()
}

fn default_mappings() -> ResourcePathMappings {
    [("apps/v1".to_string(), Some(replicas_path(".spec.replicas")))].into()
}

struct ToParentCase {
    desc: &'static str,
    parent: &'static [[&'static str; 5]],
    subresource: &'static [[&'static str; 5]],
    expected: &'static [[&'static str; 5]],
}

const TO_PARENT: &[ToParentCase] = &[
    ToParentCase {
        desc: "different-managers: apply -> update",
        parent: &[["test", "Apply", "apps/v1", BOTH, ""]],
        subresource: &[["scale", "Update", "autoscaling/v1", REPLICAS, "scale"]],
        expected: &[
            ["test", "Apply", "apps/v1", SELECTOR, ""],
            ["scale", "Update", "apps/v1", REPLICAS, "scale"],
        ],
    },
    ToParentCase {
        desc: "different-managers: apply -> apply",
        parent: &[["test", "Apply", "apps/v1", BOTH, ""]],
        subresource: &[["scale", "Apply", "autoscaling/v1", REPLICAS, "scale"]],
        expected: &[
            ["scale", "Apply", "apps/v1", REPLICAS, "scale"],
            ["test", "Apply", "apps/v1", SELECTOR, ""],
        ],
    },
    ToParentCase {
        desc: "different-managers: update -> update",
        parent: &[["test", "Update", "apps/v1", BOTH, ""]],
        subresource: &[["scale", "Update", "autoscaling/v1", REPLICAS, "scale"]],
        expected: &[
            ["scale", "Update", "apps/v1", REPLICAS, "scale"],
            ["test", "Update", "apps/v1", SELECTOR, ""],
        ],
    },
    ToParentCase {
        desc: "different-managers: update -> apply",
        parent: &[["test", "Update", "apps/v1", BOTH, ""]],
        subresource: &[["scale", "Apply", "autoscaling/v1", REPLICAS, "scale"]],
        expected: &[
            ["scale", "Apply", "apps/v1", REPLICAS, "scale"],
            ["test", "Update", "apps/v1", SELECTOR, ""],
        ],
    },
    ToParentCase {
        desc: "same manager: apply -> apply",
        parent: &[["test", "Apply", "apps/v1", BOTH, ""]],
        subresource: &[["test", "Apply", "autoscaling/v1", REPLICAS, "scale"]],
        expected: &[
            ["test", "Apply", "apps/v1", SELECTOR, ""],
            ["test", "Apply", "apps/v1", REPLICAS, "scale"],
        ],
    },
    ToParentCase {
        desc: "same manager: update -> update",
        parent: &[["test", "Update", "apps/v1", BOTH, ""]],
        subresource: &[["test", "Update", "autoscaling/v1", REPLICAS, "scale"]],
        expected: &[
            ["test", "Update", "apps/v1", SELECTOR, ""],
            ["test", "Update", "apps/v1", REPLICAS, "scale"],
        ],
    },
    ToParentCase {
        desc: "same manager: update -> apply",
        parent: &[["test", "Update", "apps/v1", BOTH, ""]],
        subresource: &[["test", "Apply", "autoscaling/v1", REPLICAS, "scale"]],
        expected: &[
            ["test", "Apply", "apps/v1", REPLICAS, "scale"],
            ["test", "Update", "apps/v1", SELECTOR, ""],
        ],
    },
    ToParentCase {
        desc: "same manager: apply -> update",
        parent: &[["test", "Apply", "apps/v1", BOTH, ""]],
        subresource: &[["test", "Update", "autoscaling/v1", REPLICAS, "scale"]],
        expected: &[
            ["test", "Apply", "apps/v1", SELECTOR, ""],
            ["test", "Update", "apps/v1", REPLICAS, "scale"],
        ],
    },
    ToParentCase {
        desc: "subresource doesn't own the path anymore",
        parent: &[["test", "Apply", "apps/v1", SELECTOR, ""]],
        subresource: &[[
            "scale",
            "Update",
            "autoscaling/v1",
            r#"{"f:status":{"f:replicas":{}}}"#,
            "scale",
        ]],
        expected: &[["test", "Apply", "apps/v1", SELECTOR, ""]],
    },
    ToParentCase {
        desc: "Subresource steals all the fields of the parent resource",
        parent: &[["test", "Apply", "apps/v1", REPLICAS, ""]],
        subresource: &[["scale", "Update", "autoscaling/v1", REPLICAS, "scale"]],
        expected: &[["scale", "Update", "apps/v1", REPLICAS, "scale"]],
    },
    ToParentCase {
        desc: "apply without stealing",
        parent: &[["test", "Apply", "apps/v1", BOTH, ""]],
        subresource: &[
            ["test", "Apply", "autoscaling/v1", REPLICAS, ""],
            ["test", "Apply", "autoscaling/v1", REPLICAS, "scale"],
        ],
        expected: &[
            ["test", "Apply", "apps/v1", BOTH, ""],
            ["test", "Apply", "apps/v1", REPLICAS, "scale"],
        ],
    },
    ToParentCase {
        desc: "drops the entry if the api version is unknown",
        parent: &[
            ["test", "Apply", "apps/v1", REPLICAS, ""],
            ["another-manager", "Apply", "apps/v10", SELECTOR, ""],
        ],
        subresource: &[["scale", "Update", "autoscaling/v1", REPLICAS, ""]],
        expected: &[["scale", "Update", "apps/v1", REPLICAS, ""]],
    },
];

#[test]
fn to_parent_upstream_cases_match() {
    let mappings = default_mappings();
    for case in TO_PARENT {
        let parent = entries(case.parent);
        let handler = ScaleHandler::new(&parent, "apps/v1", &mappings);
        let got = handler.to_parent(&entries(case.subresource)).unwrap();
        assert_eq!(got, entries(case.expected), "{}", case.desc);
    }
}

#[test]
fn to_parent_multi_version_moves_replicas_of_the_request_version() {
    let mappings: ResourcePathMappings = [
        (
            "apps/v1".to_string(),
            Some(replicas_path(".spec.the-replicas")),
        ),
        (
            "apps/v2".to_string(),
            Some(replicas_path(".spec.not-the-replicas")),
        ),
    ]
    .into();
    let parent = entries(&[
        [
            "test",
            "Apply",
            "apps/v1",
            r#"{"f:spec":{"f:the-replicas":{},"f:selector":{}}}"#,
            "",
        ],
        [
            "test-other",
            "Apply",
            "apps/v2",
            r#"{"f:spec":{"f:not-the-replicas":{},"f:selector":{}}}"#,
            "",
        ],
    ]);
    let handler = ScaleHandler::new(&parent, "apps/v1", &mappings);
    let got = handler
        .to_parent(&entries(&[[
            "scale",
            "Update",
            "autoscaling/v1",
            REPLICAS,
            "scale",
        ]]))
        .unwrap();
    let expected = entries(&[
        ["test", "Apply", "apps/v1", SELECTOR, ""],
        ["test-other", "Apply", "apps/v2", SELECTOR, ""],
        [
            "scale",
            "Update",
            "apps/v1",
            r#"{"f:spec":{"f:the-replicas":{}}}"#,
            "scale",
        ],
    ]);
    assert_eq!(got, expected);
}

#[test]
fn to_parent_version_without_scale_keeps_its_entries() {
    let mappings: ResourcePathMappings = [
        (
            "mygroup/v1".to_string(),
            Some(replicas_path(".spec.the-replicas")),
        ),
        ("mygroup/v2".to_string(), None),
    ]
    .into();
    let other = r#"{"f:spec":{"f:test-other":{}}}"#;
    let parent = entries(&[
        [
            "test",
            "Apply",
            "mygroup/v1",
            r#"{"f:spec":{"f:the-replicas":{},"f:selector":{}}}"#,
            "",
        ],
        ["test-other", "Apply", "mygroup/v2", other, ""],
    ]);
    let handler = ScaleHandler::new(&parent, "mygroup/v1", &mappings);
    let got = handler
        .to_parent(&entries(&[[
            "scale",
            "Update",
            "autoscaling/v1",
            REPLICAS,
            "scale",
        ]]))
        .unwrap();
    let expected = entries(&[
        ["test", "Apply", "mygroup/v1", SELECTOR, ""],
        ["test-other", "Apply", "mygroup/v2", other, ""],
        [
            "scale",
            "Update",
            "mygroup/v1",
            r#"{"f:spec":{"f:the-replicas":{}}}"#,
            "scale",
        ],
    ]);
    assert_eq!(got, expected);
}

#[test]
fn to_parent_new_manager_has_no_time_and_kept_ones_keep_theirs() {
    let time = parse_time("2013-02-03T00:00:00Z").unwrap();
    let mut parent = entries(&[["test", "Update", "apps/v1", BOTH, ""]]);
    parent[0].time = Some(time);
    let mappings = default_mappings();
    let handler = ScaleHandler::new(&parent, "apps/v1", &mappings);
    let mut scale = entries(&[["scale", "Update", "autoscaling/v1", REPLICAS, "scale"]]);
    scale[0].time = Some(time);
    let got = handler.to_parent(&scale).unwrap();
    let times: Vec<_> = got.iter().map(|e| (e.manager.as_str(), e.time)).collect();
    assert_eq!(times, [("scale", None), ("test", Some(time))]);
}

#[test]
fn to_subresource_filters_and_transforms_replicas_owners() {
    let time = parse_time("2013-02-03T00:00:00Z").unwrap();
    let mut parent = entries(&[
        [
            "manager-1",
            "Apply",
            "apps/v1",
            r#"{"f:spec":{"f:another-field":{}}}"#,
            "",
        ],
        ["manager-2", "Apply", "apps/v1", REPLICAS, ""],
    ]);
    parent[1].time = Some(time);
    let mappings = default_mappings();
    let got = ScaleHandler::new(&parent, "apps/v1", &mappings)
        .to_subresource()
        .unwrap();
    let mut expected = entries(&[["manager-2", "Apply", "autoscaling/v1", REPLICAS, ""]]);
    expected[0].time = Some(time);
    assert_eq!(got, expected);
}

#[test]
fn to_subresource_transforms_all_entries() {
    let parent = entries(&[
        ["manager-1", "Apply", "apps/v1", REPLICAS, ""],
        ["manager-2", "Apply", "apps/v1", REPLICAS, ""],
        ["manager-3", "Apply", "apps/v1", REPLICAS, "scale"],
    ]);
    let mappings = default_mappings();
    let got = ScaleHandler::new(&parent, "apps/v1", &mappings)
        .to_subresource()
        .unwrap();
    let expected = entries(&[
        ["manager-1", "Apply", "autoscaling/v1", REPLICAS, ""],
        ["manager-2", "Apply", "autoscaling/v1", REPLICAS, ""],
        ["manager-3", "Apply", "autoscaling/v1", REPLICAS, "scale"],
    ]);
    assert_eq!(got, expected);
}

#[test]
fn to_subresource_unknown_api_version_drops_fields() {
    let parent = entries(&[["manager-1", "Apply", "apps/v10", REPLICAS, ""]]);
    let mappings = default_mappings();
    let got = ScaleHandler::new(&parent, "apps/v1", &mappings)
        .to_subresource()
        .unwrap();
    assert!(got.is_empty());
}

#[test]
fn replicas_path_trims_leading_dot() {
    assert_eq!(
        replicas_path(".spec.replicas").to_string(),
        ".spec.replicas"
    );
    assert_eq!(
        replicas_path("spec.replicas"),
        replicas_path(".spec.replicas")
    );
}
