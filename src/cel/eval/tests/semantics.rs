//! Operators and functions: one passing and one failing case each, error absorption by
//! the logical operators, comprehensions and optionals.

use super::*;

#[test]
fn operators_table_match_cel_go() {
    let cases: Vec<(Expr, &str)> = vec![
        (call1("_+_", "add_int64", vec![int(1), int(2)]), "3"),
        (
            call1("_+_", "add_int64", vec![int(i64::MAX), int(1)]),
            "error: integer overflow",
        ),
        (
            call1("_-_", "subtract_int64", vec![int(i64::MIN), int(1)]),
            "error: integer overflow",
        ),
        (call1("_/_", "divide_int64", vec![int(7), int(2)]), "3"),
        (
            call1("_/_", "divide_int64", vec![int(1), int(0)]),
            "error: division by zero",
        ),
        (
            call1("_%_", "modulo_int64", vec![int(7), int(0)]),
            "error: modulus by zero",
        ),
        (call1("_%_", "modulo_int64", vec![int(-7), int(3)]), "-1"),
        (
            call1("-_", "negate_int64", vec![int(i64::MIN)]),
            "error: integer overflow",
        ),
        (
            call1("_/_", "divide_double", vec![dbl(1.0), dbl(0.0)]),
            "inf",
        ),
        (call1("_+_", "add_string", vec![st("a"), st("b")]), "\"ab\""),
        (
            call1("_<_", "less_int64_double", vec![int(1), dbl(1.5)]),
            "true",
        ),
        (
            // cel-go's ordering operators answer false for NaN before comparing.
            call1("_<_", "less_double", vec![dbl(f64::NAN), dbl(1.0)]),
            "false",
        ),
        (
            call1("_>=_", "greater_equals_string", vec![st("b"), st("a")]),
            "true",
        ),
        (call("_==_", vec![int(1), dbl(1.0)]), "true"),
        (call("_==_", vec![int(1), st("1")]), "false"),
        (
            call("_!=_", vec![list(vec![int(1)]), list(vec![int(2)])]),
            "true",
        ),
        (
            call("_[_]", vec![list(vec![int(1)]), int(3)]),
            "error: index out of bounds: 3",
        ),
        (call1("size", "size_string", vec![st("héllo")]), "5"),
        (
            member("contains", "contains_string", st("abc"), vec![st("bc")]),
            "true",
        ),
        (
            member("startsWith", "starts_with_string", st("abc"), vec![st("b")]),
            "false",
        ),
        (
            member(
                "matches",
                "matches_string",
                st("a1"),
                vec![st("^[a-z]\\d$")],
            ),
            "true",
        ),
        (
            member("matches", "matches_string", st("a١"), vec![st("^a\\d$")]),
            "false",
        ),
        (
            call1("int", "string_to_int64", vec![st("x")]),
            "error: plan: type conversion error from 'string' to 'int'",
        ),
        (
            call1("int", "double_to_int64", vec![dbl(1e19)]),
            "error: plan: integer overflow",
        ),
        (
            call1("uint", "int64_to_uint64", vec![int(-1)]),
            "error: plan: unsigned integer overflow",
        ),
        (
            call1("string", "double_to_string", vec![dbl(1e6)]),
            "\"1e+06\"",
        ),
        (
            call1("string", "double_to_string", vec![dbl(123456.5)]),
            "\"123456.5\"",
        ),
        (
            call1(
                "string",
                "duration_to_string",
                vec![call1("duration", "string_to_duration", vec![st("1m30.5s")])],
            ),
            "\"90.5s\"",
        ),
        (
            call1("duration", "string_to_duration", vec![st("1d")]),
            "error: plan: type conversion error from 'string' to 'google.protobuf.Duration'",
        ),
        (
            call1(
                "string",
                "timestamp_to_string",
                vec![call1(
                    "timestamp",
                    "string_to_timestamp",
                    vec![st("2024-01-02T03:04:05.100Z")],
                )],
            ),
            "\"2024-01-02T03:04:05.1Z\"",
        ),
        (
            call1("timestamp", "string_to_timestamp", vec![st("2024-01-02")]),
            "error: plan: invalid RFC 3339 timestamp \"2024-01-02\"",
        ),
        (
            call1("@in", "in_list", vec![int(2), list(vec![int(1), int(2)])]),
            "true",
        ),
        (
            call1("@in", "in_list", vec![dbl(2.0), list(vec![int(1), int(2)])]),
            "true",
        ),
        (call("_?_:_", vec![boolean(false), int(1), int(2)]), "2"),
        (
            call("_?_:_", vec![int(0), int(1), int(2)]),
            "error: no such overload",
        ),
        (
            call1("size", "size_string", vec![call("dyn", vec![int(1)])]),
            "error: no such overload: size",
        ),
    ];
    for (i, (e, want)) in cases.into_iter().enumerate() {
        assert_eq!(show(&eval(e)), want, "case {i}");
    }
}

fn boom() -> Expr {
    call1("_/_", "divide_int64", vec![int(1), int(0)])
}

fn is_zero() -> Expr {
    call("_==_", vec![boom(), int(0)])
}

#[test]
fn logical_operators_absorb_errors_as_cel_go() {
    let cases: Vec<(Expr, &str)> = vec![
        (call("_&&_", vec![boolean(false), is_zero()]), "false"),
        (call("_&&_", vec![is_zero(), boolean(false)]), "false"),
        (
            call("_&&_", vec![is_zero(), boolean(true)]),
            "error: division by zero",
        ),
        (call("_||_", vec![is_zero(), boolean(true)]), "true"),
        (
            call("_||_", vec![boolean(false), is_zero()]),
            "error: division by zero",
        ),
        (
            call("_||_", vec![int(1), boolean(false)]),
            "error: no such overload",
        ),
        (call1("!_", "logical_not", vec![boolean(true)]), "false"),
    ];
    for (i, (e, want)) in cases.into_iter().enumerate() {
        assert_eq!(show(&eval(e)), want, "case {i}");
    }
}

#[test]
fn comprehension_all_error_then_false_is_false() {
    // all(x, 1 / x > 0): the error for 0 stands when every other element holds
    // ([0, 1]) and is absorbed by a false one ([0, -1]).
    let pred = |x: &str| {
        call1(
            "_>_",
            "greater_int64",
            vec![call1("_/_", "divide_int64", vec![int(1), id(x)]), int(0)],
        )
    };
    let r = eval(all(list(vec![int(0), int(1)]), "x", pred("x")));
    assert_eq!(show(&r), "error: division by zero");
    let r = eval(all(list(vec![int(0), int(-1)]), "x", pred("x")));
    assert_eq!(show(&r), "false");
}

#[test]
fn comprehension_filter_keeps_matching() {
    let even = call(
        "_==_",
        vec![call1("_%_", "modulo_int64", vec![id("x"), int(2)]), int(0)],
    );
    let r = eval(filter(list((1..=5).map(int).collect()), "x", even));
    assert_eq!(show(&r), "list(2)");
}

#[test]
fn optional_index_missing_is_none() {
    let m = call("_[?_]", vec![list(vec![int(1)]), int(5)]);
    assert_eq!(show(&eval(m)), "optional(false)");
    let hit = call("_[?_]", vec![list(vec![int(1)]), int(0)]);
    assert_eq!(show(&eval(hit)), "optional(true)");
    let value = member(
        "value",
        "optional_value",
        call("_[?_]", vec![list(vec![]), int(0)]),
        vec![],
    );
    assert_eq!(show(&eval(value)), "error: optional.none() dereference");
}

#[test]
fn regex_constant_invalid_fails_plan() {
    let e = member("matches", "matches_string", st("a"), vec![st("(")]);
    assert!(show(&eval(e)).starts_with("error: plan: error parsing regexp"));
}
