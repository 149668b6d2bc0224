//! Upstream's set_test.go, path_test.go and managers_test.go tables, as data.

use super::testutil::{p, pe, set};
use super::*;

const NAME_FIRST: &str = r#"k:{"name":"first"}"#;

#[test]
fn has_upstream_insert_has_table_membership() {
    let s1 = set(&[
        "foo 0 bar baz",
        "foo 0 bar",
        "foo 0",
        "foo 1 bar baz",
        "foo 1 bar",
        r#"qux k:{"name":"first"}"#,
        r#"qux k:{"name":"first"} bar"#,
        r#"qux k:{"name":"second"} bar"#,
        r#"canonicalOrder k:{"a":"a","b":"a","c":"a","d":"a","e":"a","f":"a"}"#,
    ]);
    let cases = [
        (r#"qux k:{"name":"second"}"#, false),
        (r#"qux k:{"name":"second"} bar"#, true),
        (r#"qux k:{"name":"first"}"#, true),
        (r#"xuq k:{"name":"first"}"#, false),
        ("foo 0", true),
        ("foo 0 bar", true),
        ("foo 0 bar baz", true),
        ("foo 1", false),
        ("foo 1 bar", true),
        ("foo 1 bar baz", true),
        (
            r#"canonicalOrder k:{"f":"a","e":"a","d":"a","c":"a","b":"a","a":"a"}"#,
            true,
        ),
    ];
    for (path, want) in cases {
        assert_eq!(s1.has(p(path).elements()), want, "{path}");
    }
    assert!(!Set::new().has(&[]), "empty set has the empty path");
    assert!(!set(&[""]).has(&[]), "set of the empty path has it");
    assert!(set(&[""]).is_empty(), "the empty path is not tracked");
}

#[test]
fn display_single_path_set_is_the_path() {
    let path = p(r#"foo k:{"name":"first"}"#);
    assert_eq!(Set::from_paths([&path]).to_string(), path.to_string());
}

#[test]
fn for_each_path_reinserted_equals_original_and_counts() {
    let s1 = set(&[
        "foo 0 bar baz",
        "foo 0 bar zot",
        "foo 0 bar",
        "foo 0",
        "foo 1 bar baz",
        "foo 1 bar",
        r#"qux k:{"name":"first"}"#,
        r#"qux k:{"name":"first"} bar"#,
        r#"qux k:{"name":"second"} bar"#,
    ]);
    let mut s2 = Set::new();
    let mut added = 0;
    s1.for_each_path(|path| {
        assert_eq!(s2.size(), added);
        assert_eq!(s2.is_empty(), added == 0);
        s2.insert(path.elements());
        added += 1;
    });
    assert_eq!(s1, s2);
    assert_eq!(s1.size(), 9);
}

#[test]
fn eq_upstream_equals_table() {
    let cases: &[(&[&str], &[&str], bool)] = &[
        (&["foo"], &["bar"], false),
        (&["foo"], &["foo"], true),
        (&[], &["0 foo"], false),
        (&["1 foo"], &["0 foo"], false),
        (&["1 foo"], &["1 foo bar"], false),
        (&["0", "1"], &["1", "0"], true),
        (&["foo 0", "foo 1"], &["foo 1", "foo 0"], true),
        (
            &["foo 0", "foo", "bar baz", r#"qux k:{"name":"first"}"#],
            &["foo 1", "bar baz", "bar", r#"qux k:{"name":"second"}"#],
            false,
        ),
    ];
    for (i, (a, b, want)) in cases.iter().enumerate() {
        assert_eq!(set(a) == set(b), *want, "case {i}");
    }
}

#[test]
fn union_upstream_case_merges_recursively() {
    let s1 = set(&[
        "foo 0",
        "foo",
        "bar baz",
        r#"qux k:{"name":"first"}"#,
        "parent child grandchild",
    ]);
    let s2 = set(&[
        "foo 1",
        "bar baz",
        "bar",
        r#"qux k:{"name":"second"}"#,
        "parent child",
    ]);
    let want = set(&[
        "foo 0",
        "foo 1",
        "foo",
        "bar baz",
        "bar",
        r#"qux k:{"name":"first"}"#,
        r#"qux k:{"name":"second"}"#,
        "parent child",
        "parent child grandchild",
    ]);
    assert_eq!(s1.union(&s2), want);
    assert_eq!(s2.union(&s1), want);
}

#[test]
fn intersection_difference_upstream_case() {
    let nf = |s: &str| s.replace("NF", NAME_FIRST);
    let mk = |paths: &[&str]| {
        let owned: Vec<String> = paths.iter().map(|s| nf(s)).collect();
        let refs: Vec<&str> = owned.iter().map(String::as_str).collect();
        set(&refs)
    };
    let s1 = mk(&[
        "a0",
        "a1",
        "foo 0",
        "foo 1",
        "b0 NF",
        "b1 NF",
        "bar c0",
        "cp NF child",
    ]);
    let s2 = mk(&[
        "a1", "a2", "foo 1", "foo 2", "b1 NF", "b2 NF", "bar c2", "cp NF",
    ]);
    let intersection = mk(&["a1", "foo 1", "b1 NF"]);
    assert_eq!(s1.intersection(&s2), intersection, "intersection");
    assert_eq!(
        s1.difference(&s2),
        mk(&["a0", "foo 0", "b0 NF", "bar c0", "cp NF child"]),
        "s1 - s2"
    );
    assert_eq!(
        s2.difference(&s1),
        mk(&["a2", "foo 2", "b2 NF", "bar c2", "cp NF"]),
        "s2 - s1"
    );
    let not_intersection = s2.difference(&s1).union(&s1.difference(&s2));
    assert_eq!(
        s1.union(&s2).difference(&not_intersection),
        intersection,
        "intersection the hard way"
    );
}

#[test]
fn leaves_upstream_table() {
    let a = r#"k:{"name":"a"}"#;
    let pp = r#"k:{"name":"p"}"#;
    let r = |s: &str| s.replace("KA", a).replace("KP", pp);
    let cases: Vec<(&str, Vec<&str>, Vec<&str>)> = vec![
        ("empty set", vec![], vec![]),
        (
            "all leaves",
            vec!["path1", "path2", "path3"],
            vec!["path1", "path2", "path3"],
        ),
        (
            "only one leaf",
            vec!["root", "root l1", "root l1 l2", "root l1 l2 l3"],
            vec!["root l1 l2 l3"],
        ),
        (
            "multiple values, check for overwrite",
            vec![
                "root KA",
                "root KA name",
                "root KA value b",
                "root KA value c",
            ],
            vec!["root KA name", "root KA value b", "root KA value c"],
        ),
        (
            "multiple values and nested",
            vec![
                "root KA",
                "root KA name",
                "root KA value b",
                "root KA value b d",
                "root KA value c",
            ],
            vec!["root KA name", "root KA value b d", "root KA value c"],
        ),
        (
            "all-in-one",
            vec![
                "root",
                "root KA",
                "root KA name",
                "root KA value b",
                "root KA value b c",
                "root KA value d",
                "root KA value e",
                "root x",
                "root x y",
                "root x z",
                "root KP",
                "root KP name",
                "root KP value q",
            ],
            vec![
                "root KA name",
                "root KA value b c",
                "root KA value d",
                "root KA value e",
                "root x y",
                "root x z",
                "root KP name",
                "root KP value q",
            ],
        ),
    ];
    for (name, input, want) in cases {
        let input: Vec<String> = input.iter().map(|s| r(s)).collect();
        let want: Vec<String> = want.iter().map(|s| r(s)).collect();
        let input: Vec<&str> = input.iter().map(String::as_str).collect();
        let want: Vec<&str> = want.iter().map(String::as_str).collect();
        assert_eq!(set(&input).leaves(), set(&want), "{name}");
    }
}

/// TestSetDifference: (name, a, b, difference, recursive difference).
type Paths = &'static [&'static str];

const DIFFERENCE_CASES: &[(&str, Paths, Paths, Paths, Paths)] = &[
    ("removes simple path", &["a"], &["a"], &[], &[]),
    ("removes direct path", &["a b c"], &["a b c"], &[], &[]),
    (
        "only removes matching child",
        &["a b c", "b b c"],
        &["a b c"],
        &["b b c"],
        &["b b c"],
    ),
    (
        "does not remove parent of specific path",
        &["a"],
        &["a aa"],
        &["a"],
        &["a"],
    ),
    (
        "RecursiveDifference removes nested path",
        &["a b c"],
        &["a"],
        &["a b c"],
        &[],
    ),
    (
        "RecursiveDifference only removes nested path for matching children",
        &["a aa aab", "a ab aba"],
        &["a aa"],
        &["a aa aab", "a ab aba"],
        &["a ab aba"],
    ),
    (
        "RecursiveDifference removes all matching children",
        &["a aa aab", "a ab aba"],
        &["a"],
        &["a aa aab", "a ab aba"],
        &[],
    ),
];

#[test]
fn difference_upstream_table() {
    for (name, a, b, diff, rdiff) in DIFFERENCE_CASES {
        let (a, b) = (set(a), set(b));
        assert_eq!(a.difference(&b), set(diff), "{name}: difference");
        assert_eq!(a.recursive_difference(&b), set(rdiff), "{name}: recursive");
    }
}

#[test]
fn children_iterate_every_descended_element() {
    let mut s = Set::new();
    for i in 0..5 {
        s.descend(&PathElement::Index(i));
    }
    let seen: Vec<String> = s.children().map(|(pe, _)| pe.to_string()).collect();
    assert_eq!(seen, ["[0]", "[1]", "[2]", "[3]", "[4]"]);
}

#[test]
fn with_prefix_and_prefixed_invert() {
    let s = set(&["spec replicas", "spec template f:x", "status"]);
    let spec = s.with_prefix(&pe("spec"));
    assert_eq!(spec, set(&["replicas", "template x"]));
    assert_eq!(
        spec.clone().prefixed(&[pe("spec")]),
        set(&["spec replicas", "spec template x"])
    );
    assert_eq!(Set::new().prefixed(&[pe("spec")]), Set::new());
    assert_eq!(s.with_prefix(&pe("missing")), Set::new());
}
