//! Upstream's path_test.go and managers_test.go tables, as data.

use serde_json::json;

use super::testutil::set;
use super::*;

/// path_test.go TestPathString: (name, path, text).
#[test]
#[allow(clippy::approx_constant)] // upstream's data
fn path_display_upstream_table() {
    let f = PathElement::field;
    let v = |x| PathElement::Value(x);
    let k = |pairs: &[(&str, serde_json::Value)]| {
        PathElement::key(
            pairs
                .iter()
                .map(|(n, x)| (n.to_string(), x.clone()))
                .collect(),
        )
    };
    let cases = vec![
        (
            "basic1",
            Path(vec![f("foo"), PathElement::Index(1)]),
            ".foo[1]",
        ),
        (
            "basic2",
            Path(vec![f("foo"), f("bar"), PathElement::Index(1), f("baz")]),
            ".foo.bar[1].baz",
        ),
        (
            "associative-list-ref",
            Path(vec![
                f("foo"),
                k(&[
                    ("a", json!("b")),
                    ("c", json!(1)),
                    ("d", json!(1.5)),
                    ("e", json!(true)),
                ]),
            ]),
            r#".foo[a="b",c=1,d=1.5,e=true]"#,
        ),
        (
            "sets",
            Path(vec![
                f("foo"),
                v(json!("b")),
                v(json!(5)),
                v(json!(false)),
                v(json!(3.14159)),
            ]),
            r#".foo[="b"][=5][=false][=3.14159]"#,
        ),
        ("simple field", Path(vec![f("spec")]), ".spec"),
        (
            "app container image",
            Path(vec![
                f("spec"),
                f("apps"),
                k(&[("name", json!("app-🚀"))]),
                f("container"),
                f("image"),
            ]),
            r#".spec.apps[name="app-🚀"].container.image"#,
        ),
        (
            "app port",
            Path(vec![
                f("spec"),
                f("apps"),
                k(&[("name", json!("app-💻"))]),
                f("container"),
                f("ports"),
                k(&[("name", json!("port-🔑"))]),
                f("containerPort"),
            ]),
            r#".spec.apps[name="app-💻"].container.ports[name="port-🔑"].containerPort"#,
        ),
        (
            "field with space",
            Path(vec![f("spec"), f("field with space")]),
            ".spec.field with space",
        ),
        (
            "value with space",
            Path(vec![
                f("spec"),
                f("apps"),
                v(json!("app with space")),
                f("container"),
                f("image"),
            ]),
            r#".spec.apps[="app with space"].container.image"#,
        ),
        (
            "value with quotes",
            Path(vec![
                f("spec"),
                f("apps"),
                v(json!("app with \"quotes\"")),
                f("container"),
                f("image"),
            ]),
            r#".spec.apps[="app with \"quotes\""].container.image"#,
        ),
        (
            "value with unicode",
            Path(vec![
                f("spec"),
                f("apps"),
                v(json!("app-with-unicøde")),
                f("container"),
                f("image"),
            ]),
            r#".spec.apps[="app-with-unicøde"].container.image"#,
        ),
    ];
    for (name, path, want) in cases {
        assert_eq!(path.to_string(), want, "{name}");
    }
}

fn mf(entries: &[(&str, &[&str], &str)]) -> ManagedFields {
    let mut out = ManagedFields::new();
    for (manager, paths, version) in entries {
        out.insert(*manager, VersionedSet::new(set(paths), *version, false));
    }
    out
}

const NSB: &[&str] = &["numeric", "string", "bool"];

type MfCase = (
    &'static str,
    &'static [(&'static str, &'static [&'static str], &'static str)],
);

/// managers_test.go: (name, lhs, rhs, lhs.Difference(rhs), lhs equals rhs).
#[allow(clippy::type_complexity)]
const MANAGER_CASES: &[(&str, MfCase, MfCase, MfCase, bool)] = &[
    ("Empty sets", ("", &[]), ("", &[]), ("", &[]), true),
    (
        "Same everything",
        ("", &[("one", NSB, "v1")]),
        ("", &[("one", NSB, "v1")]),
        ("", &[]),
        true,
    ),
    (
        "Empty RHS",
        ("", &[("default", NSB, "v1")]),
        ("", &[]),
        ("", &[("default", NSB, "v1")]),
        false,
    ),
    (
        "Empty LHS",
        ("", &[]),
        ("", &[("default", NSB, "v1")]),
        ("", &[("default", NSB, "v1")]),
        false,
    ),
    (
        "Different managers",
        ("", &[("one", NSB, "v1")]),
        ("", &[("two", NSB, "v1")]),
        ("", &[("one", NSB, "v1"), ("two", NSB, "v1")]),
        false,
    ),
    (
        "Same manager, different version",
        ("", &[("one", &["numeric", "string", "integer"], "v1")]),
        ("", &[("one", NSB, "v2")]),
        ("", &[("one", NSB, "v2")]),
        false,
    ),
    (
        "Set difference",
        ("", &[("one", &["numeric", "string"], "v1")]),
        ("", &[("one", &["string", "bool"], "v1")]),
        ("", &[("one", &["numeric", "bool"], "v1")]),
        false,
    ),
];

#[test]
fn managed_fields_upstream_difference_and_equals_tables() {
    for (name, (_, lhs), (_, rhs), (_, diff), equal) in MANAGER_CASES {
        let (lhs, rhs) = (mf(lhs), mf(rhs));
        assert_eq!(lhs.difference(&rhs), mf(diff), "{name}: difference");
        assert_eq!(lhs == rhs, *equal, "{name}: equals");
    }
}
