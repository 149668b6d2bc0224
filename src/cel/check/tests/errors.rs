//! Rejected expressions without a schema: cel-go's error texts, positions and order,
//! including the AST validators' (homogeneous literals, literal arguments).

use super::builder::{B, no_vars, outcome};
use crate::cel::ast::{Expr, Literal};

type Build = fn(&mut B) -> Expr;

fn binary(b: &mut B, at: u32, op: &str, lhs: Expr, rhs: Expr) -> Expr {
    b.call(at, op, vec![lhs, rhs])
}

#[test]
fn check_invalid_expressions_cel_go_error() {
    let cases: Vec<(&str, Build, &str)> = vec![
        (
            "1 + 2u",
            |b| {
                let (l, r) = (b.int(0, 1), b.lit(4, Literal::Uint(2)));
                binary(b, 2, "_+_", l, r)
            },
            "ERROR: <input>:1:3: found no matching overload for '_+_' applied to '(int, uint)'\n | 1 + 2u\n | ..^",
        ),
        (
            "x",
            |b| b.ident(0, "x"),
            "ERROR: <input>:1:1: undeclared reference to 'x' (in container '')\n | x\n | ^",
        ),
        (
            "[1, 'a']",
            |b| {
                let (one, a) = (b.int(1, 1), b.str(4, "a"));
                b.list(0, vec![one, a], vec![])
            },
            "ERROR: <input>:1:5: expected type 'int' but found 'string'\n | [1, 'a']\n | ....^",
        ),
        (
            "[1, dyn(2)]",
            |b| {
                let one = b.int(1, 1);
                let two = b.int(8, 2);
                let d = b.call(7, "dyn", vec![two]);
                b.list(0, vec![one, d], vec![])
            },
            "ERROR: <input>:1:8: expected type 'int' but found 'dyn'\n | [1, dyn(2)]\n | .......^",
        ),
        (
            "{'a': 1, 'b': 'c'}",
            |b| {
                let (k1, v1, k2, v2) = (b.str(1, "a"), b.int(6, 1), b.str(9, "b"), b.str(14, "c"));
                b.map(0, vec![(k1, v1), (k2, v2)])
            },
            "ERROR: <input>:1:15: expected type 'int' but found 'string'\n | {'a': 1, 'b': 'c'}\n | ..............^",
        ),
        (
            "1 && true",
            |b| {
                let (l, r) = (b.int(0, 1), b.lit(5, Literal::Bool(true)));
                binary(b, 2, "_&&_", l, r)
            },
            "ERROR: <input>:1:1: expected type 'bool' but found 'int'\n | 1 && true\n | ^",
        ),
        (
            "1 == null",
            |b| {
                let (l, r) = (b.int(0, 1), b.lit(5, Literal::Null));
                binary(b, 2, "_==_", l, r)
            },
            "ERROR: <input>:1:3: found no matching overload for '_==_' applied to '(int, null)'\n | 1 == null\n | ..^",
        ),
        (
            "1.a",
            |b| {
                let one = b.int(0, 1);
                b.sel(1, one, "a")
            },
            "ERROR: <input>:1:2: type 'int' does not support field selection\n | 1.a\n | .^",
        ),
        (
            "'a'.size(1)",
            |b| {
                let a = b.str(0, "a");
                let one = b.int(9, 1);
                b.member(8, a, "size", vec![one])
            },
            "ERROR: <input>:1:9: found no matching overload for 'size' applied to 'string.(int)'\n | 'a'.size(1)\n | ........^",
        ),
        (
            "1.all(x, x)",
            |b| {
                let one = b.int(0, 1);
                let x = b.ident(9, "x");
                b.all(5, one, "x", x)
            },
            "ERROR: <input>:1:1: expression of type 'int' cannot be range of a comprehension (must be list, map, or dynamic)\n | 1.all(x, x)\n | ^",
        ),
        (
            "[1].all(x, x)",
            |b| {
                let one = b.int(1, 1);
                let l = b.list(0, vec![one], vec![]);
                let x = b.ident(11, "x");
                b.all(7, l, "x", x)
            },
            "ERROR: <input>:1:12: expected type 'bool' but found 'int'\n | [1].all(x, x)\n | ...........^",
        ),
        (
            "cel.bind(x, 1, x)",
            |b| {
                let cel = b.ident(0, "cel");
                let (x, one, x2) = (b.ident(9, "x"), b.int(12, 1), b.ident(15, "x"));
                b.member(8, cel, "bind", vec![x, one, x2])
            },
            "ERROR: <input>:1:1: undeclared reference to 'cel' (in container '')\n | cel.bind(x, 1, x)\n | ^\n\
            ERROR: <input>:1:9: undeclared reference to 'bind' (in container '')\n | cel.bind(x, 1, x)\n | ........^\n\
            ERROR: <input>:1:10: undeclared reference to 'x' (in container '')\n | cel.bind(x, 1, x)\n | .........^\n\
            ERROR: <input>:1:16: undeclared reference to 'x' (in container '')\n | cel.bind(x, 1, x)\n | ...............^",
        ),
        (
            "optional.of(1).orValue('a')",
            |b| {
                let opt = b.ident(0, "optional");
                let one = b.int(12, 1);
                let of = b.member(11, opt, "of", vec![one]);
                let a = b.str(23, "a");
                b.member(22, of, "orValue", vec![a])
            },
            "ERROR: <input>:1:23: found no matching overload for 'orValue' applied to 'optional_type(int).(string)'\n | optional.of(1).orValue('a')\n | ......................^",
        ),
        (
            "'a'.matches('[')",
            |b| {
                let a = b.str(0, "a");
                let p = b.str(12, "[");
                b.member(11, a, "matches", vec![p])
            },
            "ERROR: <input>:1:13: invalid matches argument\n | 'a'.matches('[')\n | ............^",
        ),
        (
            "duration('1x')",
            |b| {
                let s = b.str(9, "1x");
                b.call(8, "duration", vec![s])
            },
            "ERROR: <input>:1:10: invalid duration argument\n | duration('1x')\n | .........^",
        ),
        (
            "timestamp('x')",
            |b| {
                let s = b.str(10, "x");
                b.call(9, "timestamp", vec![s])
            },
            "ERROR: <input>:1:11: invalid timestamp argument\n | timestamp('x')\n | ..........^",
        ),
        (
            "matches('[', 'a')",
            |b| {
                let (s, p) = (b.str(8, "["), b.str(13, "a"));
                b.call(7, "matches", vec![s, p])
            },
            "ERROR: <input>:1:9: invalid matches argument\n | matches('[', 'a')\n | ........^",
        ),
    ];
    for (text, build, want) in cases {
        let mut b = B::new();
        let e = build(&mut b);
        assert_eq!(outcome(text, &b, e, &no_vars()), want, "{text}");
    }
}
