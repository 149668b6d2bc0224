//! `transformList`, `transformMap` and `transformMapEntry` end to end, with the
//! results and errors kube-apiserver 1.36 gives for the same expressions.

use crate::cel::check::check;
use crate::cel::env;
use crate::cel::eval::{CostTracker, Plan};
use crate::cel::lib::argv::testing::outcome;
use crate::cel::parse::parse;

fn eval(expr: &str) -> String {
    let env = env::stored();
    let checked = match parse(expr).and_then(|ast| check(ast, &env, &[])) {
        Ok(c) => c,
        Err(e) => return format!("compile: {}", e.lines().next().unwrap_or_default()),
    };
    let plan = Plan::new(&checked, &env, &[]).unwrap();
    outcome(plan.evaluate(&[], &mut CostTracker::default()))
}

#[test]
fn transform_macros_evaluate_like_kube() {
    let cases = [
        ("{'a': 1}.transformMap(k, v, v + 1) == {'a': 2}", "true"),
        (
            "{'a': 1, 'b': 2}.transformMap(k, v, v > 1, v * 10) == {'b': 20}",
            "true",
        ),
        (
            "{'a': 1, 'b': 2}.transformMapEntry(k, v, {v: k}) == {1: 'a', 2: 'b'}",
            "true",
        ),
        (
            "{'a': 1, 'b': 2}.transformMapEntry(k, v, {'z': v}) == {}",
            "error: insert failed: key z already exists",
        ),
        (
            "{'a': 1, 'b': 2}.transformMapEntry(k, v, v > 1, {k + k: v}) == {'bb': 2}",
            "true",
        ),
        ("[1, 2].transformList(i, v, v * 2) == [2, 4]", "true"),
        ("[1, 2].transformList(i, v, i > 0, v * 2) == [4]", "true"),
        ("[1, 2].transformMap(i, v, v * 2) == {0: 2, 1: 4}", "true"),
        (
            "[1, 2].transformMapEntry(i, v, {v: i}) == {1: 0, 2: 1}",
            "true",
        ),
        (
            "[1, 1].transformMapEntry(i, v, {v: i}) == {}",
            "error: insert failed: key 1 already exists",
        ),
        ("[1, 2].transformMapEntry(i, v, {}) == {}", "true"),
        (
            "{'a': 1}.transformMapEntry(k, v, {k: v, 'c': 2}) == {'a': 1, 'c': 2}",
            "true",
        ),
        (
            "{'a': 1, 'b': 2}.transformMapEntry(k, v, {k: v, 'c': 2}) == {}",
            "error: insert failed: key c already exists",
        ),
        (
            "[1, 2].transformMapEntry(i, v, v) == {}",
            "compile: ERROR: <input>:1:25: found no matching overload for 'cel.@mapInsert' applied to '(map(dyn, dyn), int)'",
        ),
        ("[1, 2].transformMap(i, v, v).size() == 2", "true"),
        ("[1.0, 2.0].transformMapEntry(i, v, {v: i}) == {}", "false"),
        ("{'a': 1}.transformMap(k, v, k) == {'a': 'a'}", "true"),
        (
            "{'a': 1}.transformMapEntry(k, v, {true: v}) == {true: 1}",
            "true",
        ),
        (
            "{'a': 1}.transformMap(k, v, k, v) == {}",
            "compile: ERROR: <input>:1:22: found no matching overload for '_?_:_' applied to '(string, map(string, int), map(string, int))'",
        ),
    ];
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|(expr, want)| {
            let got = eval(expr);
            (got != *want).then(|| format!("{expr}: got {got}, want {want}"))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
