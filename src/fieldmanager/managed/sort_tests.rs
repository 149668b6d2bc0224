//! Upstream's managedfields_test.go TestSortEncodedManagedFields table, as data.

use serde_json::{Value, json};

use super::*;

fn entries(v: &Value) -> Vec<ManagedFieldsEntry> {
    v.as_array()
        .expect("a list")
        .iter()
        .map(|item| ManagedFieldsEntry::from_value(item).expect("an entry"))
        .collect()
}

fn sort_entry(manager: &str, operation: &str, time: Option<&str>, subresource: &str) -> Value {
    let mut e = json!({"manager": manager, "operation": operation});
    if let Some(t) = time {
        e["time"] = json!(t);
    }
    if !subresource.is_empty() {
        e["subresource"] = json!(subresource);
    }
    e
}

type SortRow = (
    &'static str,
    &'static str,
    Option<&'static str>,
    &'static str,
);

const T1: Option<&str> = Some("2001-01-01T01:00:00Z");
const T2: Option<&str> = Some("2002-01-01T01:00:00Z");
const T3: Option<&str> = Some("2003-01-01T01:00:00Z");

/// TestSortEncodedManagedFields: (name, input, sorted) as (manager, operation, time,
/// subresource).
#[allow(clippy::type_complexity)]
const SORT_CASES: &[(&str, &[SortRow], &[SortRow])] = &[
    ("empty", &[], &[]),
    (
        "remains untouched",
        &[("a", "Apply", None, ""), ("a", "Update", T1, "")],
        &[("a", "Apply", None, ""), ("a", "Update", T1, "")],
    ),
    (
        "manager without time first",
        &[("a", "Apply", None, ""), ("a", "Apply", T1, "")],
        &[("a", "Apply", None, ""), ("a", "Apply", T1, "")],
    ),
    (
        "manager without time first name last",
        &[
            ("a", "Apply", T1, ""),
            ("b", "Apply", None, ""),
            ("a", "Apply", None, ""),
        ],
        &[
            ("a", "Apply", None, ""),
            ("b", "Apply", None, ""),
            ("a", "Apply", T1, ""),
        ],
    ),
    (
        "apply first",
        &[("a", "Update", T1, ""), ("a", "Apply", None, "")],
        &[("a", "Apply", None, ""), ("a", "Update", T1, "")],
    ),
    (
        "newest last",
        &[
            ("c", "Update", T1, ""),
            ("a", "Apply", None, ""),
            ("c", "Update", T2, ""),
            ("b", "Apply", None, ""),
        ],
        &[
            ("a", "Apply", None, ""),
            ("b", "Apply", None, ""),
            ("c", "Update", T1, ""),
            ("c", "Update", T2, ""),
        ],
    ),
    (
        "manager last",
        &[
            ("c", "Update", T1, ""),
            ("a", "Apply", None, ""),
            ("d", "Update", T1, ""),
            ("b", "Apply", None, ""),
        ],
        &[
            ("a", "Apply", None, ""),
            ("b", "Apply", None, ""),
            ("c", "Update", T1, ""),
            ("d", "Update", T1, ""),
        ],
    ),
    (
        "manager sorted",
        &[
            ("c", "Update", T1, ""),
            ("a", "Apply", None, ""),
            ("g", "Apply", None, ""),
            ("f", "Update", T2, ""),
            ("i", "Apply", None, ""),
            ("d", "Update", T2, ""),
            ("h", "Apply", None, ""),
            ("e", "Update", T3, ""),
            ("b", "Apply", None, ""),
        ],
        &[
            ("a", "Apply", None, ""),
            ("b", "Apply", None, ""),
            ("g", "Apply", None, ""),
            ("h", "Apply", None, ""),
            ("i", "Apply", None, ""),
            ("c", "Update", T1, ""),
            ("d", "Update", T2, ""),
            ("f", "Update", T2, ""),
            ("e", "Update", T3, ""),
        ],
    ),
    (
        "sort drops nanoseconds",
        &[
            ("c", "Update", Some("1999-12-31T00:00:00.000000001Z"), ""),
            ("a", "Update", Some("1999-12-31T00:00:00.000000002Z"), ""),
            ("b", "Update", Some("1999-12-31T00:00:00.000000003Z"), ""),
        ],
        &[
            ("a", "Update", Some("1999-12-31T00:00:00.000000002Z"), ""),
            ("b", "Update", Some("1999-12-31T00:00:00.000000003Z"), ""),
            ("c", "Update", Some("1999-12-31T00:00:00.000000001Z"), ""),
        ],
    ),
    (
        "entries with subresource field",
        &[
            ("a", "Apply", None, "status"),
            ("a", "Apply", None, "scale"),
            ("a", "Apply", None, ""),
        ],
        &[
            ("a", "Apply", None, ""),
            ("a", "Apply", None, "scale"),
            ("a", "Apply", None, "status"),
        ],
    ),
];

#[test]
fn sort_entries_upstream_table() {
    let build = |rows: &[SortRow]| -> Vec<ManagedFieldsEntry> {
        let list: Vec<Value> = rows
            .iter()
            .map(|(m, o, t, s)| sort_entry(m, o, *t, s))
            .collect();
        entries(&Value::Array(list))
    };
    for (name, input, want) in SORT_CASES {
        let mut got = build(input);
        sort_entries(&mut got);
        assert_eq!(got, build(want), "{name}");
    }
}
