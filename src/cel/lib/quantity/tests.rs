//! The quantity library against kube: cases from k8s.io/apiserver `quantity_test.go`
//! and apimachinery's parser, expected values taken from kube-apiserver 1.36's cel-go.

use super::library;
use crate::cel::functions::Library;
use crate::cel::lib::argv::testing::{call, outcome, s};
use crate::cel::value::{Opaque, Value};

fn lib() -> Library {
    library()
}

fn q<'a>(text: &str) -> Value<'a> {
    call(&lib(), "string_to_quantity", &[s(text)]).unwrap()
}

fn run<'a>(id: &str, args: &[Value<'a>]) -> String {
    outcome(call(&lib(), id, args))
}

fn float(v: Value<'_>) -> f64 {
    match call(&lib(), "quantity_get_float", &[v]).unwrap() {
        Value::Double(d) => d,
        other => panic!("not a double: {other:?}"),
    }
}

const FORMAT_WRONG: &str = "error: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

#[test]
fn quantity_parse_errors_match_kube() {
    let cases = [
        ("10Mo", FORMAT_WRONG),
        ("1.2.3", FORMAT_WRONG),
        ("1 ", FORMAT_WRONG),
        ("", FORMAT_WRONG),
        ("10Mm", "error: unable to parse quantity's suffix"),
        ("1e", "error: unable to parse quantity's suffix"),
        ("+e-10", "error: unable to parse numeric part of quantity"),
    ];
    for (input, want) in cases {
        assert_eq!(run("string_to_quantity", &[s(input)]), want, "{input}");
    }
}

#[test]
fn is_quantity_accepts_kube_quantities_only() {
    let cases = [
        ("20", "true"),
        ("20M", "true"),
        ("20Mi", "true"),
        ("+", "true"),
        (".", "true"),
        ("1E", "true"),
        ("20Mo", "false"),
        ("10Mm", "false"),
        ("", "false"),
    ];
    for (input, want) in cases {
        assert_eq!(run("is_quantity_string", &[s(input)]), want, "{input}");
    }
}

#[test]
fn as_integer_and_is_integer_follow_the_int64_representation() {
    let cases = [
        ("50k", "50000", "true"),
        ("12Mi", "12582912", "true"),
        ("1e3", "1000", "true"),
        ("1E", "1000000000000000000", "true"),
        ("+", "0", "true"),
        ("1e4294967296", "1", "true"),
        ("0.5Ki", "error: cannot convert value to integer", "false"),
        ("1.0", "error: cannot convert value to integer", "false"),
        ("100m", "error: cannot convert value to integer", "false"),
        ("1Ei", "error: cannot convert value to integer", "false"),
        (
            "9223372036854775807",
            "error: cannot convert value to integer",
            "false",
        ),
        (
            "9999999999999999999999999999999999999G",
            "error: cannot convert value to integer",
            "false",
        ),
    ];
    for (input, int, is_int) in cases {
        assert_eq!(run("quantity_get_int", &[q(input)]), int, "{input}");
        assert_eq!(run("quantity_is_integer", &[q(input)]), is_int, "{input}");
    }
}

#[test]
fn as_approximate_float_matches_go_rounding() {
    let cases = [
        ("50.703k", 50703.0),
        ("1.5Gi", 1.610612736e9),
        ("0.5Ki", 512.0),
        ("-0.5Ki", -512.0),
        ("1e-10", 1e-9),
        ("0.1n", 1e-9),
        ("123456789012345678901234", 1.2345678901234569e23),
        ("9999999999Ei", 9.223372036854776e18),
        ("1.0000000001", 1.000000001),
        ("12e-3", 0.012),
        ("0.3", 0.30000000000000004),
        ("3e-1", 0.30000000000000004),
        ("12345678901234567890e-30", 1e-9),
    ];
    for (input, want) in cases {
        assert_eq!(float(q(input)), want, "{input}");
    }
}

#[test]
fn comparisons_follow_exact_values() {
    let cases = [
        ("200M", "0.2G", "0", "false", "false"),
        ("50M", "50Mi", "-1", "false", "true"),
        ("50Mi", "50M", "1", "true", "false"),
        ("1", "0.5Ki", "-1", "false", "true"),
        ("1e40", "1", "1", "true", "false"),
        ("100M", "50M", "1", "true", "false"),
    ];
    for (a, b, cmp, gt, lt) in cases {
        assert_eq!(run("quantity_compare_to", &[q(a), q(b)]), cmp, "{a} vs {b}");
        assert_eq!(
            run("quantity_is_greater_than", &[q(a), q(b)]),
            gt,
            "{a} > {b}"
        );
        assert_eq!(run("quantity_is_less_than", &[q(a), q(b)]), lt, "{a} < {b}");
    }
}

#[test]
fn sign_reports_the_sign() {
    for (input, want) in [
        ("-1", "-1"),
        ("0", "0"),
        ("-0", "0"),
        ("3m", "1"),
        ("-9999999999Ei", "-1"),
    ] {
        assert_eq!(run("quantity_sign", &[q(input)]), want, "{input}");
    }
}

#[test]
fn add_and_sub_chain_like_kube() {
    let lib = lib();
    let chain = call(&lib, "quantity_add_int", &[q("50k"), Value::Int(20)]).unwrap();
    let chain = call(&lib, "quantity_sub", &[chain, q("100k")]).unwrap();
    assert_eq!(
        run("quantity_get_int", std::slice::from_ref(&chain)),
        "-49980"
    );
    let chain = call(&lib, "quantity_sub_int", &[chain, Value::Int(-50000)]).unwrap();
    assert_eq!(run("quantity_get_int", &[chain]), "20");
    let sum = call(&lib, "quantity_add", &[q("50k"), q("20")]).unwrap();
    assert_eq!(run("quantity_compare_to", &[sum, q("50.02k")]), "0");
    let overflow = call(
        &lib,
        "quantity_add_int",
        &[q("9223372036854775807"), Value::Int(1)],
    )
    .unwrap();
    assert_eq!(
        run("quantity_is_integer", std::slice::from_ref(&overflow)),
        "false"
    );
    let back = call(&lib, "quantity_sub_int", &[overflow, Value::Int(1)]).unwrap();
    assert_eq!(float(back), 9.223372036854776e18);
    let milli = call(&lib, "quantity_sub", &[q("1k"), q("1m")]).unwrap();
    assert_eq!(float(milli), 999.999);
}

fn opaque(v: &Value<'_>) -> std::rc::Rc<dyn Opaque> {
    match v {
        Value::Opaque(o) => o.clone(),
        other => panic!("not opaque: {other:?}"),
    }
}

#[test]
fn equality_refuses_add_results_on_the_right() {
    let lib = lib();
    let two = q("2");
    let sum = call(&lib, "quantity_add_int", &[q("1"), Value::Int(1)]).unwrap();
    assert_eq!(opaque(&sum).try_equals(Some(&*opaque(&two))), Ok(true));
    assert!(opaque(&two).try_equals(Some(&*opaque(&sum))).is_err());
    assert!(opaque(&two).try_equals(None).is_err());
    assert_eq!(
        opaque(&q("200M")).try_equals(Some(&*opaque(&q("0.2G")))),
        Ok(true)
    );
    assert_eq!(
        opaque(&q("200M")).try_equals(Some(&*opaque(&q("0.3G")))),
        Ok(false)
    );
}

#[test]
fn add_on_a_decimal_quantity_changes_it_in_place() {
    // kube: [quantity("0.5Ki")].all(x, x.add(1) == x) is true.
    let x = q("0.5Ki");
    let sum = call(&lib(), "quantity_add_int", &[x.clone(), Value::Int(1)]).unwrap();
    assert_eq!(opaque(&sum).try_equals(Some(&*opaque(&x))), Ok(true));
    assert_eq!(float(x), 513.0);
}

#[test]
fn comparing_with_a_decimal_makes_the_receiver_non_integer() {
    let one = q("1");
    assert_eq!(
        run("quantity_is_less_than", &[one.clone(), q("0.5Ki")]),
        "true"
    );
    assert_eq!(run("quantity_is_integer", &[one]), "false");
}

#[test]
fn non_quantity_arguments_are_no_such_overload() {
    assert_eq!(run("quantity_sign", &[s("1")]), "error: no such overload");
    assert_eq!(
        run("is_quantity_string", &[Value::Int(1)]),
        "error: no such overload"
    );
    assert_eq!(
        run("quantity_add_int", &[q("1"), s("1")]),
        "error: no such overload"
    );
}
