//! The semver library against kube: cases from k8s.io/apiserver `semver_test.go`, error
//! texts and orderings taken from kube-apiserver 1.36's cel-go.

use super::library;
use crate::cel::lib::argv::testing::{call, outcome, s};
use crate::cel::value::{Opaque, Value};

fn run<'a>(id: &str, args: &[Value<'a>]) -> String {
    outcome(call(&library(), id, args))
}

fn v<'a>(text: &str) -> Value<'a> {
    call(&library(), "string_to_semver", &[s(text)]).unwrap()
}

fn vn<'a>(text: &str) -> Value<'a> {
    call(
        &library(),
        "string_bool_to_semver",
        &[s(text), Value::Bool(true)],
    )
    .unwrap()
}

#[test]
fn semver_parse_errors_match_blang() {
    let cases = [
        ("", "Version string empty"),
        ("v1.0", "No Major.Minor.Patch elements found"),
        ("1.0", "No Major.Minor.Patch elements found"),
        (
            "01.0.0",
            r#"Major number must not contain leading zeroes "01""#,
        ),
        ("1.a.0", r#"Invalid character(s) found in minor number "a""#),
        (
            "1.0.01",
            r#"Patch number must not contain leading zeroes "01""#,
        ),
        (
            "1.2.3.4",
            r#"Invalid character(s) found in patch number "3.4""#,
        ),
        (
            "1.0.0é",
            r#"Invalid character(s) found in patch number "0é""#,
        ),
        ("1..0", r#"strconv.ParseUint: parsing "": invalid syntax"#),
        ("1.0.0-", "Prerelease is empty"),
        (
            "1.0.0-01",
            r#"Numeric PreRelease version must not contain leading zeroes "01""#,
        ),
        (
            "1.0.0-a_b",
            r#"Invalid character(s) found in prerelease "a_b""#,
        ),
        ("1.0.0+", "Build meta data is empty"),
        ("1.0.0+a..b", "Build meta data is empty"),
        (
            "1.0.0+a_b",
            r#"Invalid character(s) found in build meta data "a_b""#,
        ),
        (
            "99999999999999999999.0.0",
            r#"strconv.ParseUint: parsing "99999999999999999999": value out of range"#,
        ),
    ];
    for (input, want) in cases {
        assert_eq!(
            run("string_to_semver", &[s(input)]),
            format!("error: {want}"),
            "{input}"
        );
    }
}

#[test]
fn is_semver_is_strict_without_normalize() {
    let cases = [
        ("1.2.3-beta.1+build.1", "true"),
        ("", "false"),
        ("v1.0.0", "false"),
        (" 1.0.0", "false"),
        ("1. 0.0", "false"),
        ("1.0.0 ", "false"),
        ("01.01.01", "false"),
        ("1", "false"),
        ("1.1", "false"),
    ];
    for (input, want) in cases {
        assert_eq!(run("is_semver_string", &[s(input)]), want, "{input}");
        let strict = [s(input), Value::Bool(false)];
        assert_eq!(run("is_semver_string_bool", &strict), want, "{input}");
    }
}

#[test]
fn is_semver_normalize_accepts_short_and_prefixed_forms() {
    let cases = [
        ("", "false"),
        (" 1.0.0", "false"),
        ("1. 0.0", "false"),
        ("1.0.0 ", "false"),
        ("v1.0.0", "true"),
        ("01.01.01", "true"),
        ("1", "true"),
        ("1.1", "true"),
        ("1.2-x", "false"),
    ];
    for (input, want) in cases {
        let args = [s(input), Value::Bool(true)];
        assert_eq!(run("is_semver_string_bool", &args), want, "{input}");
    }
    let short = [s("1.2-x"), Value::Bool(true)];
    assert_eq!(
        run("string_bool_to_semver", &short),
        "error: short version cannot contain PreRelease/Build meta data"
    );
}

#[test]
fn components_read_major_minor_patch() {
    assert_eq!(run("semver_major", &[v("1.2.3")]), "1");
    assert_eq!(run("semver_minor", &[v("1.2.3")]), "2");
    assert_eq!(run("semver_patch", &[v("1.2.3")]), "3");
    assert_eq!(run("semver_minor", &[vn("v01.02.03-rc.1")]), "2");
    assert_eq!(run("semver_patch", &[vn("v1")]), "0");
    assert_eq!(run("semver_major", &[vn("00")]), "0");
    // Go's int64 conversion of a uint64 wraps.
    assert_eq!(run("semver_major", &[v("18446744073709551615.0.0")]), "-1");
}

#[test]
fn comparisons_follow_semver_precedence() {
    let cases = [
        ("1.2.3", "1.2.3", "0"),
        ("1.0.0", "1.2.3", "-1"),
        ("1.2.3", "1.0.0", "1"),
        ("1.0.0-alpha", "1.0.0-alpha.1", "-1"),
        ("1.0.0-alpha.1", "1.0.0-alpha.beta", "-1"),
        ("1.0.0-rc.1", "1.0.0", "-1"),
        ("1.0.0-2", "1.0.0-10", "-1"),
        ("1.0.0+build", "1.0.0", "0"),
    ];
    for (a, b, want) in cases {
        assert_eq!(run("semver_compare_to", &[v(a), v(b)]), want, "{a} vs {b}");
        let gt = (want == "1").to_string();
        let lt = (want == "-1").to_string();
        assert_eq!(
            run("semver_is_greater_than", &[v(a), v(b)]),
            gt,
            "{a} > {b}"
        );
        assert_eq!(run("semver_is_less_than", &[v(a), v(b)]), lt, "{a} < {b}");
    }
}

fn opaque(value: &Value<'_>) -> std::rc::Rc<dyn Opaque> {
    match value {
        Value::Opaque(o) => o.clone(),
        other => panic!("not opaque: {other:?}"),
    }
}

#[test]
fn equality_ignores_build_and_refuses_other_types() {
    let a = opaque(&vn("v01.01"));
    assert_eq!(a.try_equals(Some(&*opaque(&v("1.1.0")))), Ok(true));
    assert_eq!(a.try_equals(Some(&*opaque(&v("1.1.0+b")))), Ok(true));
    assert_eq!(a.try_equals(Some(&*opaque(&v("1.0.0")))), Ok(false));
    assert!(a.try_equals(None).is_err());
}

#[test]
fn wrong_argument_types_are_no_such_overload() {
    assert_eq!(
        run("semver_major", &[s("1.0.0")]),
        "error: no such overload"
    );
    assert_eq!(
        run("string_bool_to_semver", &[s("1"), s("x")]),
        "error: no such overload"
    );
}
