//! `find` and `findAll`, expectations from kube 1.36 (cel-go, Go 1.27 `regexp`).

use super::*;
use crate::cel::lib::argv::testing::{call, outcome, s};

#[test]
fn find_table_match_kube() {
    let lib = library();
    let cases = [
        ("abc 123 def 123", "123", "123"),
        ("abc", "x", ""),
        ("ab", "(?i)A", "a"),
        ("x", r"\pL", "x"),
        ("١٢3", r"\d", "3"),
        (
            "abc",
            "[",
            "error: Illegal regex: error parsing regexp: missing closing ]: `[`",
        ),
        (
            "abc",
            "a{2,1}",
            "error: Illegal regex: error parsing regexp: invalid repeat count: `{2,1}`",
        ),
        (
            "x",
            r"\C",
            "error: Illegal regex: error parsing regexp: invalid escape sequence: `\\C`",
        ),
    ];
    for (text, pattern, want) in cases {
        let got = outcome(call(&lib, "string_find_string", &[s(text), s(pattern)]));
        assert_eq!(got, want, "{text:?}.find({pattern:?})");
    }
}

#[test]
fn find_all_table_match_kube() {
    let lib = library();
    let cases: &[(&str, &str, Option<i64>, &str)] = &[
        ("abc 123 def 123", "123", None, "[123, 123]"),
        ("abc 123 def 123", "123", Some(1), "[123]"),
        ("baaab", "a*", None, "[, aaa, ]"),
        ("abc", "x*", None, "[, , , ]"),
        ("héllo", "", None, "[, , , , , ]"),
        ("abc", "a", Some(0), "[]"),
        ("abc", "a", Some(-5), "[a]"),
        ("aaa", "a|", None, "[a, a, a]"),
        ("a b", r"\b", None, "[, , , ]"),
        (
            "abc",
            "[",
            Some(2),
            "error: Illegal regex: error parsing regexp: missing closing ]: `[`",
        ),
    ];
    for (text, pattern, limit, want) in cases {
        let got = match limit {
            None => call(&lib, "string_find_all_string", &[s(text), s(pattern)]),
            Some(n) => call(
                &lib,
                "string_find_all_string_int",
                &[s(text), s(pattern), Value::Int(*n)],
            ),
        };
        assert_eq!(
            outcome(got),
            *want,
            "{text:?}.findAll({pattern:?}, {limit:?})"
        );
    }
}

#[test]
fn compile_go_caches_and_reports_go_text() {
    let first = compile_go("a+b").unwrap();
    let second = compile_go("a+b").unwrap();
    assert!(Rc::ptr_eq(&first, &second));
    assert_eq!(
        compile_go("(").unwrap_err(),
        "error parsing regexp: missing closing ): `(`"
    );
}
