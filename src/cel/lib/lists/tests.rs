//! kube's list library, the sets and the lists extensions against kube: cases from
//! k8s.io/apiserver `lists_test.go` and cel-go's ext tests, with results and error
//! texts taken from kube-apiserver 1.36's cel-go.

use jiff::SignedDuration;

use crate::cel::functions::Library;
use crate::cel::lib::argv::testing::{call, outcome, s};
use crate::cel::value::Value;

fn libs() -> Library {
    let mut lib = super::library();
    lib.extend(crate::cel::lib::sets::library());
    lib.extend(crate::cel::lib::extlists::library());
    lib
}

fn run<'a>(id: &str, args: &[Value<'a>]) -> String {
    outcome(call(&libs(), id, args))
}

fn ints<'a>(values: &[i64]) -> Value<'a> {
    Value::list(values.iter().map(|i| Value::Int(*i)).collect())
}

fn doubles<'a>(values: &[f64]) -> Value<'a> {
    Value::list(values.iter().map(|d| Value::Double(*d)).collect())
}

fn strs<'a>(values: &[&str]) -> Value<'a> {
    Value::list(values.iter().map(|v| s(v)).collect())
}

fn secs<'a>(values: &[i64]) -> Value<'a> {
    Value::list(
        values
            .iter()
            .map(|v| Value::Duration(SignedDuration::from_secs(*v)))
            .collect(),
    )
}

#[test]
fn is_sorted_ignores_unorderable_pairs() {
    let cases = [
        (ints(&[1, 2, 3]), "list_int_is_sorted_bool", "true"),
        (
            strs(&["a", "b", "b", "c"]),
            "list_string_is_sorted_bool",
            "true",
        ),
        (doubles(&[2.0, 1.0]), "list_double_is_sorted_bool", "false"),
        (
            doubles(&[1.0, f64::NAN, 0.5]),
            "list_double_is_sorted_bool",
            "true",
        ),
        (ints(&[]), "list_int_is_sorted_bool", "true"),
    ];
    for (list, id, want) in cases {
        assert_eq!(run(id, std::slice::from_ref(&list)), want, "{list:?}");
    }
}

#[test]
fn sum_adds_with_overflow_errors() {
    assert_eq!(run("list_int_sum_int", &[ints(&[1, 3])]), "4");
    assert_eq!(run("list_int_sum_int", &[ints(&[])]), "0");
    assert_eq!(
        run("list_double_sum_double", &[doubles(&[1.0, 3.0])]),
        "Double(4.0)"
    );
    assert_eq!(
        run("list_int_sum_int", &[ints(&[i64::MAX, 1])]),
        "error: integer overflow"
    );
    let minute_and_second = call(&libs(), "list_duration_sum_duration", &[secs(&[60, 1])]).unwrap();
    assert!(matches!(minute_and_second, Value::Duration(d) if d == SignedDuration::from_secs(61)));
    let long = secs(&[2_562_047 * 3600, 3600]);
    assert_eq!(
        run("list_duration_sum_duration", &[long]),
        "error: integer overflow"
    );
    let mixed = Value::list(vec![Value::Int(1), Value::Double(1.0)]);
    assert_eq!(run("list_int_sum_int", &[mixed]), "error: no such overload");
}

#[test]
fn min_and_max_pick_extremes_or_fail_on_empty() {
    assert_eq!(run("list_int_max_int", &[ints(&[1, 3])]), "3");
    assert_eq!(run("list_int_min_int", &[ints(&[1, 3])]), "1");
    assert_eq!(
        run("list_string_min_string", &[strs(&["b", "a", "c"])]),
        "a"
    );
    assert_eq!(
        run("list_int_min_int", &[ints(&[])]),
        "error: min called on empty list"
    );
    assert_eq!(
        run("list_int_max_int", &[ints(&[])]),
        "error: max called on empty list"
    );
}

#[test]
fn index_of_uses_element_equality() {
    assert_eq!(
        run("list_a_index_of_int", &[ints(&[1, 2, 2, 3]), Value::Int(2)]),
        "1"
    );
    assert_eq!(
        run(
            "list_a_last_index_of_int",
            &[strs(&["a", "b", "b", "c"]), s("b")]
        ),
        "2"
    );
    assert_eq!(
        run(
            "list_a_index_of_int",
            &[doubles(&[1.0]), Value::Double(1.1)]
        ),
        "-1"
    );
    assert_eq!(run("list_a_index_of_int", &[ints(&[]), s("x")]), "-1");
    assert_eq!(
        run("list_a_index_of_int", &[ints(&[1, 2]), Value::Double(2.0)]),
        "1"
    );
}

#[test]
fn sets_functions_test_membership() {
    let cases = [
        (
            "list_sets_contains_list",
            ints(&[1, 2, 3]),
            ints(&[1, 2]),
            "true",
        ),
        (
            "list_sets_contains_list",
            ints(&[1]),
            ints(&[1, 4]),
            "false",
        ),
        (
            "list_sets_contains_list",
            ints(&[1]),
            doubles(&[1.0]),
            "true",
        ),
        ("list_sets_contains_list", ints(&[]), ints(&[]), "true"),
        (
            "list_sets_equivalent_list",
            ints(&[1, 2]),
            ints(&[2, 1, 1]),
            "true",
        ),
        (
            "list_sets_equivalent_list",
            ints(&[1, 2]),
            ints(&[1]),
            "false",
        ),
        (
            "list_sets_intersects_list",
            ints(&[1, 2]),
            ints(&[3, 2]),
            "true",
        ),
        ("list_sets_intersects_list", ints(&[1]), ints(&[3]), "false"),
    ];
    for (id, a, b, want) in cases {
        assert_eq!(run(id, &[a.clone(), b.clone()]), want, "{id}({a:?}, {b:?})");
    }
}

#[test]
fn slice_checks_bounds_with_cel_go_texts() {
    let list = ints(&[1, 2, 3]);
    assert_eq!(
        run("list_slice", &[list.clone(), Value::Int(1), Value::Int(2)]),
        "[2]"
    );
    let cases = [
        (
            -1,
            2,
            "error: cannot slice(-1, 2), negative indexes not supported",
        ),
        (
            2,
            1,
            "error: cannot slice(2, 1), start index must be less than or equal to end index",
        ),
        (0, 4, "error: cannot slice(0, 4), list is length 3"),
    ];
    for (start, end, want) in cases {
        assert_eq!(
            run(
                "list_slice",
                &[list.clone(), Value::Int(start), Value::Int(end)]
            ),
            want
        );
    }
}

#[test]
fn flatten_unnests_to_the_given_depth() {
    let nested = Value::list(vec![
        ints(&[1]),
        Value::list(vec![Value::Int(2), ints(&[3])]),
    ]);
    assert_eq!(
        run("list_flatten", std::slice::from_ref(&nested)),
        "[1, 2, [3]]"
    );
    assert_eq!(
        run("list_flatten_int", &[nested.clone(), Value::Int(2)]),
        "[1, 2, 3]"
    );
    assert_eq!(
        run("list_flatten_int", &[nested.clone(), Value::Int(0)]),
        "[[1], [2, [3]]]"
    );
    assert_eq!(
        run("list_flatten_int", &[nested, Value::Int(-1)]),
        "error: level must be non-negative"
    );
}

#[test]
fn sort_orders_keys_of_one_type() {
    assert_eq!(run("list_int_sort", &[ints(&[3, 1, 2])]), "[1, 2, 3]");
    assert_eq!(run("list_string_sort", &[strs(&["b", "a"])]), "[a, b]");
    assert_eq!(run("list_int_sort", &[ints(&[])]), "[]");
    let mixed = Value::list(vec![Value::Int(1), Value::Double(2.0)]);
    assert_eq!(
        run("list_int_sort", &[mixed]),
        "error: list elements must have the same type"
    );
    let lists = Value::list(vec![ints(&[1]), ints(&[2])]);
    assert_eq!(
        run("list_int_sort", &[lists]),
        "error: list elements must be comparable"
    );
}

#[test]
fn sort_by_associated_keys_keeps_ties_in_order() {
    let names = strs(&["x", "y", "z", "w"]);
    let keys = ints(&[2, 1, 2, 0]);
    assert_eq!(
        run("list_int_sortByAssociatedKeys", &[names.clone(), keys]),
        "[w, y, x, z]"
    );
    assert_eq!(
        run("list_int_sortByAssociatedKeys", &[names, ints(&[1])]),
        "error: @sortByAssociatedKeys() expected a list of the same size as the associated keys list, but got 4 and 1 elements respectively"
    );
}

#[test]
fn range_reverse_and_distinct() {
    assert_eq!(run("lists_range", &[Value::Int(3)]), "[0, 1, 2]");
    assert_eq!(
        run("lists_range", &[Value::Int(-1)]),
        "error: lists.range: size must be non-negative, got -1"
    );
    assert_eq!(
        run("lists_range", &[Value::Int(1_000_001)]),
        "error: lists.range: size 1000001 exceeds maximum allowed (1000000)"
    );
    assert_eq!(run("list_reverse", &[ints(&[1, 2, 3])]), "[3, 2, 1]");
    let with_double = Value::list(vec![
        Value::Int(1),
        Value::Int(2),
        Value::Int(1),
        Value::Double(1.0),
        Value::Int(3),
    ]);
    assert_eq!(run("list_distinct", &[with_double]), "[1, 2, 3]");
}
