//! Run-time costs, from cel-go's `interpreter/runtimecost_test.go` where kube's options
//! (`OptOptimize`, `PresenceTestHasCost(false)`) do not change them, and derived from
//! the same rules where they do (constant literals cost nothing).

use super::*;
use crate::cel::value::{Str, Value};

fn s(v: &str) -> Value<'_> {
    Value::String(Str::Borrowed(v))
}

#[test]
fn cost_of_expressions_matches_cel_go() {
    let l = || Value::list(vec![Value::Int(1), Value::Int(2)]);
    let cases: Vec<(Expr, Vec<Value<'static>>, u64)> = vec![
        (st("Hello"), vec![], 0),
        (id("a"), vec![l()], 1),
        (call("_[_]", vec![id("a"), int(0)]), vec![l()], 2),
        (
            call(
                "_[_]",
                vec![
                    id("a"),
                    call1("_-_", "subtract_int64", vec![int(3), int(3)]),
                ],
            ),
            vec![l()],
            3,
        ),
        (call1("_<_", "less_int64", vec![int(1), int(2)]), vec![], 1),
        (
            call(
                "_==_",
                vec![
                    st("12345678901234567890"),
                    st("123456789012345678901234567890"),
                ],
            ),
            vec![],
            2,
        ),
        (call("_&&_", vec![boolean(true), boolean(false)]), vec![], 0),
        (
            call(
                "_?_:_",
                vec![
                    boolean(false),
                    boolean(false),
                    call1("_>_", "greater_int64", vec![int(1), int(3)]),
                ],
            ),
            vec![],
            1,
        ),
        // Constant lists are folded by kube's OptOptimize: [1, 2, 3] costs 0, not 10.
        (list(vec![int(1), int(2), int(3)]), vec![], 0),
        (list(vec![id("a")]), vec![Value::Int(1)], 11),
        // `2 in [1, 2, 3]` becomes a set-membership test: no call cost.
        (
            call1(
                "@in",
                "in_list",
                vec![int(2), list(vec![int(1), int(2), int(3)])],
            ),
            vec![],
            0,
        ),
        (
            all(id("a"), "x", boolean(true)),
            vec![Value::list(vec![])],
            2,
        ),
        (all(id("a"), "x", boolean(true)), vec![l()], 1 + 2 * 3 + 1),
        (
            member("contains", "contains_string", id("a"), vec![id("b")]),
            vec![
                super::super::ops::string(&"x".repeat(500)),
                super::super::ops::string(&"y".repeat(500)),
            ],
            2502,
        ),
        (
            member("startsWith", "starts_with_string", id("a"), vec![id("b")]),
            vec![
                super::super::ops::string("idc"),
                super::super::ops::string(&"y".repeat(500)),
            ],
            52,
        ),
        (
            call(
                "_?_:_",
                vec![
                    call1("_>_", "greater_int64", vec![id("a"), int(2)]),
                    id("b"),
                    id("b"),
                ],
            ),
            vec![Value::Int(1), Value::Int(0)],
            2,
        ),
    ];
    for (i, (e, vars, want)) in cases.into_iter().enumerate() {
        let (r, cost) = run(e, &["a", "b"], &vars);
        assert!(r.is_ok(), "case {i}: {r:?}");
        assert_eq!(cost, want, "case {i}");
    }
}

#[test]
fn cost_of_filter_over_literal_without_folded_accumulator() {
    // cel-go (no OptOptimize) says 62; kube folds the range and `[]` (−20).
    let even = call(
        "_==_",
        vec![call1("_%_", "modulo_int64", vec![id("x"), int(2)]), int(0)],
    );
    let (r, cost) = run(
        filter(list((1..=5).map(int).collect()), "x", even),
        &[],
        &[],
    );
    assert!(r.is_ok());
    assert_eq!(cost, 42);
}

#[test]
fn cost_limit_exceeded_stops_evaluation() {
    let e = member(
        "contains",
        "contains_string",
        st("abcdefg"),
        vec![call1("_+_", "add_string", vec![id("a"), id("b")])],
    );
    let env = env::stored();
    let plan = Plan::new(&checked(e), &env, &["a", "b"]).unwrap();
    let vars = [s("val1"), s("val2222222")];
    let mut at = CostTracker {
        actual: 0,
        limit: Some(6),
    };
    assert!(plan.evaluate(&vars, &mut at).is_ok());
    assert_eq!(at.actual, 6);
    let mut above = CostTracker {
        actual: 0,
        limit: Some(5),
    };
    assert!(matches!(
        plan.evaluate(&vars, &mut above),
        Err(EvalError::CostLimitExceeded)
    ));
}

#[test]
fn cost_of_has_is_free_with_kube_presence_option() {
    let obj = Value::Map(crate::cel::value::Map::Owned(std::rc::Rc::new(vec![(
        s("x"),
        Value::Int(1),
    )])));
    let (r, cost) = run(has(id("a"), "x"), &["a"], std::slice::from_ref(&obj));
    assert_eq!(show(&r), "true");
    // cel-go: `has(input.single_int32)` costs 1 with PresenceTestHasCost(false).
    assert_eq!(cost, 1);
    let (_, cost) = run(
        has(sel(id("a"), "x"), "y"),
        &["a"],
        &[Value::Map(crate::cel::value::Map::Owned(std::rc::Rc::new(
            vec![(s("x"), obj)],
        )))],
    );
    assert_eq!(cost, 2);
}
