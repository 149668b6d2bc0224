//! `format` answers of kube 1.36 (cel-go strings v2, x/text `en_US`).

use super::*;
use crate::cel::lib::argv::testing::outcome;

fn fmt<'a>(format: &str, args: Vec<Value<'a>>) -> String {
    outcome(string_format(&Value::string(format), &Value::list(args)))
}

#[test]
fn format_table_match_kube() {
    let s = |t: &str| Value::string(t);
    let d = Value::Double;
    let cases: Vec<(&str, Vec<Value<'static>>, &str)> = vec![
        ("%f", vec![d(1234567.125)], "1,234,567.125000"),
        ("%.2f", vec![d(-0.005)], "-0.01"),
        ("%f", vec![d(-1234.5)], "-1,234.500000"),
        ("%.0f", vec![d(2.5)], "2"),
        ("%.0f", vec![d(3.5)], "4"),
        ("%f", vec![d(1e21)], "1,000,000,000,000,000,000,000.000000"),
        ("%.1f", vec![d(-0.0)], "0.0"),
        ("%f", vec![s("NaN")], "NaN"),
        ("%f", vec![d(f64::INFINITY)], "∞"),
        ("%f", vec![s("-Infinity")], "-∞"),
        (
            "%f",
            vec![s("x")],
            "error: error during formatting: fixed-point clause can only be used on doubles, was given string",
        ),
        ("%e", vec![d(1234567.0)], "1.234567×10⁰⁶"),
        ("%.3e", vec![d(0.000123)], "1.230000×10⁻⁰⁴"),
        ("%.20e", vec![d(1.0)], "       1.000000×10⁰⁰"),
        ("%e", vec![d(-1.5)], "-1.500000×10⁰⁰"),
        ("%e", vec![s("NaN")], "   NaN"),
        ("%e", vec![s("-Infinity")], "    -∞"),
        ("%e", vec![d(1e100)], "1.000000×10¹⁰⁰"),
        ("%s", vec![d(1.5)], "1.5"),
        ("%s", vec![d(1e21)], "1e+21"),
        (
            "%s",
            vec![Value::list(vec![
                Value::Int(1),
                s("a"),
                d(2.5),
                Value::Bytes(b"x".to_vec().into()),
                Value::Null,
                Value::Bool(true),
            ])],
            "[1, \"a\", 2.500000, b\"x\", null, true]",
        ),
        (
            "%s",
            vec![Value::list(vec![d(f64::INFINITY), d(f64::NAN)])],
            "[\"+Inf\", \"NaN\"]",
        ),
        (
            "%s",
            vec![Value::list(vec![Value::Uint(1), Value::Uint(2)])],
            "[1, 2]",
        ),
        ("%s", vec![s("a\"b")], "a\"b"),
        (
            "%s",
            vec![Value::list(vec![Value::list(vec![Value::Bytes(
                vec![1u8].into(),
            )])])],
            "[[b\"\\x01\"]]",
        ),
        (
            "%s",
            vec![Value::Bytes(vec![0xffu8].into())],
            "error: error during formatting: could not convert argument \"invalid UTF-8 in bytes, cannot convert to string\" to string",
        ),
        (
            "%s",
            vec![Value::Optional(None)],
            "error: error during formatting: string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given optional_type",
        ),
        (
            "%x %X %o %b",
            vec![
                Value::Int(255),
                Value::Int(255),
                Value::Int(8),
                Value::Int(5),
            ],
            "ff FF 10 101",
        ),
        ("%x", vec![s("hi")], "6869"),
        ("%x", vec![Value::Int(-255)], "-ff"),
        ("%b", vec![Value::Bool(true)], "1"),
        (
            "%d",
            vec![d(1.5)],
            "error: error during formatting: decimal clause can only be used on integers, was given double",
        ),
        ("%d %d", vec![Value::Int(1)], "error: index 1 out of range"),
        (
            "%q",
            vec![Value::Int(1)],
            "error: could not parse formatting clause: unrecognized formatting clause \"q\"",
        ),
        ("%", vec![Value::Int(1)], "error: unexpected end of string"),
        (
            "%.f",
            vec![d(1.0)],
            "error: could not parse formatting clause: error while parsing precision: error while converting precision to integer: strconv.Atoi: parsing \"\": invalid syntax",
        ),
        (
            "%5f",
            vec![d(1.0)],
            "error: could not parse formatting clause: unrecognized formatting clause \"5\"",
        ),
        ("%s", vec![s("%d")], "%d"),
        ("a%%b%s", vec![s("c")], "a%bc"),
        ("%s", vec![Value::list(vec![])], "[]"),
        ("%.2e", vec![d(12345.678)], "1.234568×10⁰⁴"),
    ];
    for (format, args, want) in cases {
        assert_eq!(
            fmt(format, args.clone()),
            want,
            "{format:?}.format({args:?})"
        );
    }
}
