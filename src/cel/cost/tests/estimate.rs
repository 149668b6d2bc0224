//! Estimates of whole rules, parsed and checked as kube compiles them, against kube's
//! numbers.

use std::sync::Arc;

use super::{kube_cases, library_cases};
use crate::cel::check::{Var, check};
use crate::cel::cost::{
    CostEstimate, SizeEstimate, SizeEstimator, estimate, estimate_with, estimate_with_root,
};
use crate::cel::decl::DeclType;
use crate::cel::env::stored;
use crate::cel::parse::parse;
use crate::cel::types::Type;
use crate::schema::Schema;

/// Compiles `rule` with `self` and `oldSelf` of the schema's type, as kube does.
fn checked_rule(
    schema: &serde_json::Value,
    rule: &str,
) -> (crate::cel::checked::Checked, Arc<DeclType>) {
    let schema = Schema::parse(schema);
    let decl = DeclType::from_schema(&schema, false, "selfType0").expect("declaration");
    let ty = decl.cel_type();
    let vars = [
        Var {
            name: "self".to_string(),
            ty: ty.clone(),
            decl: Some(Arc::clone(&decl)),
        },
        Var {
            name: "oldSelf".to_string(),
            ty,
            decl: Some(Arc::clone(&decl)),
        },
    ];
    let ast = parse(rule).unwrap_or_else(|e| panic!("{rule}: {e}"));
    let checked = check(ast, &stored(), &vars).unwrap_or_else(|e| panic!("{rule}: {e}"));
    (checked, decl)
}

fn max_cost(schema: &serde_json::Value, rule: &str) -> u64 {
    let (checked, decl) = checked_rule(schema, rule);
    let with_root = estimate_with_root(&checked, Some(&decl));
    assert_eq!(
        estimate(&checked, &stored()),
        with_root,
        "{rule}: scope found among decls"
    );
    with_root.max
}

#[test]
fn estimate_of_kube_cost_estimation_cases_matches_kube() {
    let mut failures = Vec::new();
    for case in kube_cases::CASES {
        let unbounded = max_cost(&case.shape.schema(None), case.rule);
        if (case.calc != 0 && unbounded != case.calc) || unbounded < case.calc_at_least {
            failures.push(format!(
                "{} (unbounded): got {unbounded}, want {}",
                case.name, case.calc
            ));
        }
        let bounded = max_cost(&case.shape.schema(Some(case.set_max)), case.rule);
        if case.set != 0 && bounded != case.set {
            failures.push(format!(
                "{} (max {}): got {bounded}, want {}",
                case.name, case.set_max, case.set
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn estimate_of_presence_test_costs_only_its_operand() {
    let schema = super::kube_schemas::Gen::Map("number").schema(None);
    assert_eq!(max_cost(&schema, "has(self.x)"), 1);
}

/// k8s `cost_test.go`'s estimator: 12 for strings and bytes, nothing else.
struct TwelveForText;

impl SizeEstimator for TwelveForText {
    fn estimate_size(&self, _path: &[String], ty: &Type) -> Option<SizeEstimate> {
        matches!(ty, Type::String | Type::Bytes).then_some(SizeEstimate { min: 0, max: 12 })
    }
}

#[test]
fn estimate_of_library_calls_matches_kube_library_tests() {
    let mut failures = Vec::new();
    let mut uncompiled = Vec::new();
    for (expr, min, max) in library_cases::CASES {
        let checked = match parse(expr).and_then(|ast| check(ast, &stored(), &[])) {
            Ok(checked) => checked,
            Err(e) => {
                uncompiled.push(format!("{expr}: {e}"));
                continue;
            }
        };
        let got = estimate_with(&checked, &TwelveForText);
        let want = CostEstimate {
            min: *min,
            max: *max,
        };
        if got != want {
            failures.push(format!("{expr}: got {got:?}, want {want:?}"));
        }
    }
    assert!(
        uncompiled.is_empty(),
        "not compiled:\n{}",
        uncompiled.join("\n")
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// cel-go's test estimator: sizes by dotted path from the hints, 12 for bytes.
struct Hints(&'static [(&'static str, u64)]);

impl SizeEstimator for Hints {
    fn estimate_size(&self, path: &[String], ty: &Type) -> Option<SizeEstimate> {
        let joined = path.join(".");
        if let Some((_, max)) = self.0.iter().find(|(p, _)| *p == joined) {
            return Some(SizeEstimate { min: 0, max: *max });
        }
        matches!(ty, Type::Bytes).then_some(SizeEstimate { min: 0, max: 12 })
    }
}

/// A test type written as cel-go prints it (`int`, `list(string)`, `map(string, int)`).
fn type_named(name: &str) -> Type {
    if let Some(inner) = name.strip_prefix("list(").and_then(|s| s.strip_suffix(')')) {
        return Type::list(type_named(inner));
    }
    if let Some(inner) = name.strip_prefix("map(").and_then(|s| s.strip_suffix(')')) {
        let (key, value) = inner.split_once(", ").expect("map(K, V)");
        return Type::map(type_named(key), type_named(value));
    }
    match name {
        "int" => Type::Int,
        "bool" => Type::Bool,
        "double" => Type::Double,
        "string" => Type::String,
        "bytes" => Type::Bytes,
        "timestamp" => Type::Timestamp,
        "duration" => Type::Duration,
        other => panic!("test type {other}"),
    }
}

#[test]
fn estimate_of_cel_go_cost_cases_matches_cel_go() {
    let mut failures = Vec::new();
    for (expr, vars, hints, min, max) in super::celgo_cases::CASES {
        let vars: Vec<Var> = vars
            .iter()
            .map(|(name, ty)| Var {
                name: name.to_string(),
                ty: type_named(ty),
                decl: None,
            })
            .collect();
        let ast = parse(expr).unwrap_or_else(|e| panic!("{expr}: {e}"));
        let checked = check(ast, &stored(), &vars).unwrap_or_else(|e| panic!("{expr}: {e}"));
        let got = estimate_with(&checked, &Hints(hints));
        let want = CostEstimate {
            min: *min,
            max: *max,
        };
        if got != want {
            failures.push(format!("{expr}: got {got:?}, want {want:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
