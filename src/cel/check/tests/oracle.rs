//! Rules over schema-typed `self` compared with what kube-apiserver 1.36 answers for
//! them. `oracle.jsonl` was recorded from apiextensions' `cel.Compile` (stored
//! expressions environment; `selfType<digits>` written `selfType`) and `cel.Validator`:
//! its first line holds the schemas and objects by name, every other line a case: a
//! schema, a rule, optionally an object, and kube's verdict: the compile error detail
//! (empty when it compiles), the estimated cost, the validation messages (`<ok>` when
//! the rule holds) and the run-time cost.
//!
//! `CEL_ORACLE_IN=cases.jsonl CEL_ORACLE_OUT=ours.jsonl cargo test --lib
//! cel::check::tests::oracle::dump -- --ignored` writes our answers for cases with
//! inline schemas and objects, in the same shape.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::cel::decl::DeclType;
use crate::cel::env;
use crate::cel::eval::CostTracker;
use crate::cel::eval::json::from_json;
use crate::cel::program::{Output, Program};
use crate::error::FieldError;
use crate::schema::Schema;
use crate::schema::rules::Rules;

/// Our verdict on one case, in the oracle's shape.
fn ours(case: &Value) -> Value {
    let rule = case["rule"].as_str().unwrap_or_default();
    let root = case["root"].as_bool().unwrap_or(false);
    let mut schema_json = case["schema"].clone();
    schema_json["x-kubernetes-validations"] = json!([{"rule": rule}]);
    let schema = Schema::parse(&schema_json);
    let Some(decl) = DeclType::from_schema(&schema, root, "object") else {
        return json!({"rule": rule, "setup": "no declaration type"});
    };
    let decl: Arc<DeclType> = decl;
    let env = env::stored();
    let program = Program::compile(&env, rule, &decl, false, Output::Rule);
    let (compile, cost) = match &program {
        Ok(p) => (String::new(), p.cost.max),
        Err(e) => (e.clone(), 0),
    };
    let mut out = json!({"rule": rule, "compile": compile, "cost": cost});
    if let (Ok(program), Some(obj)) = (&program, case.get("obj")) {
        // kube runs a transition rule only on update.
        let old = case.get("old");
        if !program.uses_old_self || old.is_some() {
            let mut tracker = CostTracker::default();
            let value = from_json(obj, &decl);
            let old_value = old.map_or_else(|| value.clone(), |o| from_json(o, &decl));
            let _ = program.evaluate(value, old_value, &mut tracker);
            out["actual"] = json!(tracker.actual);
        }
    }
    if compile.is_empty()
        && let Some(obj) = case.get("obj")
    {
        let rules = Rules::compile(&schema);
        let findings = rules.validate(&schema, obj, case.get("old"));
        let mut eval: Vec<String> = findings
            .errors
            .iter()
            .map(|e| strip_path(&FieldError::message(e)))
            .collect();
        if eval.is_empty() {
            eval.push("<ok>".to_string());
        }
        out["eval"] = json!(eval);
    }
    out
}

/// A message without its leading field path (`root: `, `spec.x: `).
fn strip_path(message: &str) -> String {
    match message.split_once(": ") {
        Some((_, rest)) => rest.to_string(),
        None => message.to_string(),
    }
}

/// Kube's verdict fields of a recorded case, messages without their field path.
fn kube(case: &Value) -> Value {
    let mut out = json!({
        "rule": case["rule"],
        "compile": case["compile"],
        "cost": case["cost"],
    });
    if let Some(actual) = case.get("actual") {
        out["actual"] = actual.clone();
    }
    if let Some(eval) = case["eval"].as_array() {
        let eval: Vec<String> = eval
            .iter()
            .map(|m| strip_path(m.as_str().unwrap_or_default()))
            .collect();
        out["eval"] = json!(eval);
    }
    out
}

const CASES: &str = include_str!("oracle.jsonl");

/// A recorded case with its schema and object put back in place.
fn resolve(defs: &Value, mut case: Value) -> Value {
    case["schema"] = defs["schemas"][case["schema"].as_str().unwrap()].clone();
    if let Some(obj) = case.get("obj").and_then(Value::as_str) {
        case["obj"] = defs["objs"][obj].clone();
    }
    case
}

#[test]
fn oracle_rules_over_schema_self_match_kube() {
    let mut lines = CASES.lines().filter(|l| !l.trim().is_empty());
    let defs: Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    let mut failures = Vec::new();
    let mut compared = 0;
    for line in lines {
        let case = resolve(&defs, serde_json::from_str(line).unwrap());
        let want = kube(&case);
        let got = ours(&case);
        compared += 1;
        if got != want {
            failures.push(format!("want {want}\n got {got}"));
        }
    }
    assert!(compared >= 200, "only {compared} cases");
    assert!(
        failures.is_empty(),
        "{} of {compared} differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Writes our answers for the cases in `CEL_ORACLE_IN` to `CEL_ORACLE_OUT`.
#[test]
#[ignore]
fn dump() {
    let input = std::env::var("CEL_ORACLE_IN").unwrap();
    let output = std::env::var("CEL_ORACLE_OUT").unwrap();
    let text = std::fs::read_to_string(input).unwrap();
    let lines: Vec<String> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| ours(&serde_json::from_str(l).unwrap()).to_string())
        .collect();
    std::fs::write(output, lines.join("\n") + "\n").unwrap();
}
