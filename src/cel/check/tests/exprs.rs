//! Expressions without a schema: literals, operators, overloads, macros, optionals,
//! and cel-go's error texts and positions.

use super::builder::{B, no_vars, outcome, run, var};
use crate::cel::ast::{Expr, Literal};
use crate::cel::checked::Reference;
use crate::cel::types::Type;

type Build = fn(&mut B) -> Expr;

fn binary(b: &mut B, at: u32, op: &str, lhs: Expr, rhs: Expr) -> Expr {
    b.call(at, op, vec![lhs, rhs])
}

#[test]
fn check_valid_expressions_result_type() {
    let cases: Vec<(&str, Build, &str)> = vec![
        (
            "1 + 2",
            |b| {
                let (l, r) = (b.int(0, 1), b.int(4, 2));
                binary(b, 2, "_+_", l, r)
            },
            "int",
        ),
        (
            "1 < 2.0",
            |b| {
                let (l, r) = (b.int(0, 1), b.lit(4, Literal::Double(2.0)));
                binary(b, 2, "_<_", l, r)
            },
            "bool",
        ),
        (
            "2u >= 1",
            |b| {
                let (l, r) = (b.lit(0, Literal::Uint(2)), b.int(6, 1));
                binary(b, 3, "_>=_", l, r)
            },
            "bool",
        ),
        (
            "size('abc')",
            |b| {
                let s = b.str(5, "abc");
                b.call(4, "size", vec![s])
            },
            "int",
        ),
        (
            "'abc'.size()",
            |b| {
                let s = b.str(0, "abc");
                b.member(10, s, "size", vec![])
            },
            "int",
        ),
        (
            "dyn(1) + 2",
            |b| {
                let one = b.int(4, 1);
                let d = b.call(3, "dyn", vec![one]);
                let two = b.int(9, 2);
                binary(b, 7, "_+_", d, two)
            },
            "int",
        ),
        (
            "dyn(1) + dyn(2)",
            |b| {
                let one = b.int(4, 1);
                let d1 = b.call(3, "dyn", vec![one]);
                let two = b.int(13, 2);
                let d2 = b.call(12, "dyn", vec![two]);
                binary(b, 7, "_+_", d1, d2)
            },
            "dyn",
        ),
        (
            "type(1) == int",
            |b| {
                let one = b.int(5, 1);
                let t = b.call(4, "type", vec![one]);
                let int = b.ident(11, "int");
                binary(b, 8, "_==_", t, int)
            },
            "bool",
        ),
        (
            "[1, 2].map(x, x * 2)",
            |b| {
                let (one, two) = (b.int(1, 1), b.int(4, 2));
                let range = b.list(0, vec![one, two], vec![]);
                let (x, two) = (b.ident(14, "x"), b.int(18, 2));
                let f = binary(b, 16, "_*_", x, two);
                b.map_macro(10, range, "x", f)
            },
            "list(int)",
        ),
        (
            "{'a': 1}['a']",
            |b| {
                let (k, v) = (b.str(1, "a"), b.int(6, 1));
                let m = b.map(0, vec![(k, v)]);
                let k = b.str(9, "a");
                binary(b, 8, "_[_]", m, k)
            },
            "int",
        ),
        (
            "{}.a",
            |b| {
                let m = b.map(0, vec![]);
                b.sel(2, m, "a")
            },
            "dyn",
        ),
        (
            "optional.of(1).orValue(2)",
            |b| {
                let opt = b.ident(0, "optional");
                let one = b.int(12, 1);
                let of = b.member(11, opt, "of", vec![one]);
                let two = b.int(23, 2);
                b.member(22, of, "orValue", vec![two])
            },
            "int",
        ),
        (
            "optional.none()",
            |b| {
                let opt = b.ident(0, "optional");
                b.member(13, opt, "none", vec![])
            },
            "optional_type(dyn)",
        ),
        (
            "[?optional.of(1)]",
            |b| {
                let opt = b.ident(2, "optional");
                let one = b.int(14, 1);
                let of = b.member(13, opt, "of", vec![one]);
                b.list(0, vec![of], vec![0])
            },
            "list(int)",
        ),
        (
            "{'a': 1}.?a",
            |b| {
                let (k, v) = (b.str(1, "a"), b.int(6, 1));
                let m = b.map(0, vec![(k, v)]);
                let f = b.str(10, "a");
                b.call(8, "_?._", vec![m, f])
            },
            "optional_type(int)",
        ),
        (
            "[1][?0]",
            |b| {
                let one = b.int(1, 1);
                let l = b.list(0, vec![one], vec![]);
                let z = b.int(5, 0);
                binary(b, 3, "_[?_]", l, z)
            },
            "optional_type(int)",
        ),
        (
            "google.protobuf.Duration",
            |b| {
                let g = b.ident(0, "google");
                let p = b.sel(6, g, "protobuf");
                b.sel(15, p, "Duration")
            },
            "type(google.protobuf.Duration)",
        ),
        (
            "duration('1h') < duration('2h')",
            |b| {
                let (s1, s2) = (b.str(9, "1h"), b.str(26, "2h"));
                let (d1, d2) = (
                    b.call(8, "duration", vec![s1]),
                    b.call(25, "duration", vec![s2]),
                );
                binary(b, 15, "_<_", d1, d2)
            },
            "bool",
        ),
        (
            "null == null",
            |b| {
                let (l, r) = (b.lit(0, Literal::Null), b.lit(8, Literal::Null));
                binary(b, 5, "_==_", l, r)
            },
            "bool",
        ),
        (
            "[1, 2, 3].all(i, v, v > i)",
            |b| {
                let items = vec![b.int(1, 1), b.int(4, 2), b.int(7, 3)];
                let range = b.list(0, items, vec![]);
                let (v, i) = (b.ident(20, "v"), b.ident(24, "i"));
                let pred = binary(b, 22, "_>_", v, i);
                b.all2(13, range, ("i", "v"), pred)
            },
            "bool",
        ),
        (
            "1 == 1 ? 'a' : 'b'",
            |b| {
                let (l, r) = (b.int(0, 1), b.int(5, 1));
                let c = binary(b, 2, "_==_", l, r);
                let (t, f) = (b.str(9, "a"), b.str(15, "b"));
                b.call(7, "_?_:_", vec![c, t, f])
            },
            "string",
        ),
        (
            "timestamp('2020-01-01T00:00:00Z').getFullYear('UTC')",
            |b| {
                let s = b.str(10, "2020-01-01T00:00:00Z");
                let ts = b.call(9, "timestamp", vec![s]);
                let tz = b.str(47, "UTC");
                b.member(46, ts, "getFullYear", vec![tz])
            },
            "int",
        ),
    ];
    for (text, build, want) in cases {
        let mut b = B::new();
        let e = build(&mut b);
        assert_eq!(outcome(text, &b, e, &no_vars()), want, "{text}");
    }
}

#[test]
fn check_dyn_arguments_keep_every_candidate_overload() {
    let mut b = B::new();
    let one = b.int(4, 1);
    let d1 = b.call(3, "dyn", vec![one]);
    let two = b.int(13, 2);
    let d2 = b.call(12, "dyn", vec![two]);
    let e = b.call(7, "_<_", vec![d1, d2]);
    let id = e.id;
    let checked = run("dyn(1) < dyn(2)", &b, e, &no_vars()).expect("checks");
    let Some(Reference::Overloads(ids)) = checked.refs.get(&id) else {
        panic!("no overloads");
    };
    assert_eq!(ids.len(), 14);
    assert_eq!(ids[..3], ["less_bool", "less_int64", "less_int64_double"]);
}

#[test]
fn check_declared_variable_reference_and_type() {
    let mut b = B::new();
    let x = b.ident(0, "x");
    let id = x.id;
    let vars = vec![var("x", Type::list(Type::String))];
    let checked = run("x", &b, x, &vars).expect("checks");
    assert!(matches!(checked.refs.get(&id), Some(Reference::Variable(n)) if n == "x"));
    assert_eq!(checked.type_of(id).to_string(), "list(string)");
}
