//! The quantity, semver, list, sets and lists-extension libraries end to end (parse,
//! check, plan, evaluate in the stored-expressions environment), against what
//! kube-apiserver 1.36's cel-go answers for the same expressions.

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
fn kube_part1_libraries_evaluate_like_kube() {
    let cases = [
        (r#"quantity("12Mi").asInteger()"#, "12582912"),
        (r#"quantity("0.5Ki").isInteger()"#, "false"),
        (r#"quantity("1").add(1) == quantity("2")"#, "true"),
        (r#"[quantity("0.5Ki")].all(x, x.add(1) == x)"#, "true"),
        (r#"quantity("200M") == quantity("0.2G")"#, "true"),
        (
            r#"quantity("50k").add(20).sub(quantity("100k")).sub(-50000).asInteger()"#,
            "20",
        ),
        (r#"quantity("50M").isLessThan(quantity("50Mi"))"#, "true"),
        (r#"sign(quantity("-1"))"#, "-1"),
        (
            r#"quantity("9999999999999999999999999999999999999G").asInteger()"#,
            "error: cannot convert value to integer",
        ),
        (
            r#"quantity("10Mm")"#,
            "error: unable to parse quantity's suffix",
        ),
        (r#"isQuantity("20Mo")"#, "false"),
        (r#"semver("1.2.3").major()"#, "1"),
        (r#"semver("v01.01", true) == semver("1.1.0")"#, "true"),
        (r#"semver("1.0.0").isLessThan(semver("1.2.3"))"#, "true"),
        (
            r#"semver("1.2.3.4")"#,
            r#"error: Invalid character(s) found in patch number "3.4""#,
        ),
        (r#"isSemver("1.1", true)"#, "true"),
        ("[1, 2, 3].isSorted()", "true"),
        ("[1, 3].sum()", "4"),
        ("[1, 3].max()", "3"),
        ("[].min()", "error: min called on empty list"),
        ("[1, 2, 2, 3].indexOf(2)", "1"),
        (r#"["a", "b", "b", "c"].lastIndexOf("b")"#, "2"),
        ("sets.contains([1, 2, 3], [1, 2])", "true"),
        ("sets.equivalent([1, 2], [2, 1, 1])", "true"),
        ("sets.intersects([1], [3])", "false"),
        ("[1, 2, 3].slice(1, 2)", "[2]"),
        (
            "[1, 2].slice(0, 3)",
            "error: cannot slice(0, 3), list is length 2",
        ),
        ("[[1], [2, 3]].flatten()", "[1, 2, 3]"),
        ("[3, 1, 2].sort()", "[1, 2, 3]"),
        ("[3, 1, 2].sortBy(x, -x)", "[3, 2, 1]"),
        ("lists.range(3)", "[0, 1, 2]"),
        ("[1, 2, 3].reverse()", "[3, 2, 1]"),
        ("[1, 2, 1, 3].distinct()", "[1, 2, 3]"),
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

/// kube's `Quantity.Equal` refuses a `*Quantity` (an `add`/`sub` result) on its right.
#[test]
fn quantity_equality_with_add_result_on_the_right_is_no_such_overload() {
    let got = eval(r#"quantity("2") == quantity("1").add(1)"#);
    assert_eq!(got, "error: no such overload");
}
