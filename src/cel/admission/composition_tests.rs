#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::{Value as Json, json};

use super::composition::{Compiler, Composition, Declarations, Output, PolicyExpression};
use super::context::{Bindings, Context, OUT_OF_BUDGET, OutOfBudget, Values};
use crate::cel::value::Value;

const PARAMS: Declarations = Declarations {
    has_params: true,
    has_authorizer: true,
    has_patch_types: false,
};
const NO_PARAMS: Declarations = Declarations {
    has_params: false,
    has_authorizer: true,
    has_patch_types: false,
};

fn request() -> Json {
    json!({"operation": "CREATE", "name": "c1", "userInfo": {"username": "alice"}})
}

/// Compiles `variables` then `expression`; the expression's compile error or program.
fn compile(variables: &[(&str, &str)], expression: &str, output: Output) -> PolicyExpression {
    let (expression, _) = compiled(variables, expression, output, PARAMS);
    expression
}

fn compiled(
    variables: &[(&str, &str)],
    expression: &str,
    output: Output,
    decls: Declarations,
) -> (PolicyExpression, Composition) {
    let mut compiler = Compiler::new();
    for (name, source) in variables {
        compiler.compile_variable(name, source, decls);
    }
    let expression = compiler.compile(expression, decls, output);
    let composition = std::sync::Arc::into_inner(compiler.finish()).unwrap();
    (expression, composition)
}

fn error(expression: &PolicyExpression) -> &str {
    expression.program.as_ref().err().map_or("", String::as_str)
}

/// Evaluates `expressions` in one context with `budget`; each result shown as text,
/// and the budget left.
fn run(
    variables: &[(&str, &str)],
    expressions: &[&str],
    object: &Json,
    budget: u64,
) -> (Vec<String>, Result<u64, OutOfBudget>) {
    let mut compiler = Compiler::new();
    for (name, source) in variables {
        compiler.compile_variable(name, source, PARAMS);
    }
    let compiled: Vec<_> = expressions
        .iter()
        .map(|e| compiler.compile(e, PARAMS, Output::Any))
        .collect();
    let composition = compiler.finish();
    let request = request();
    let params = json!({"max": 3});
    let values = Values::new(&Bindings {
        object: Some(object),
        old_object: None,
        params: Some(&params),
        namespace_object: None,
        request: &request,
        authorizer: None,
    })
    .unwrap();
    let mut context = Context::new(&composition, &values);
    let mut remaining = budget;
    let mut shown = Vec::new();
    for expression in &compiled {
        match context.evaluate(expression, &mut remaining) {
            Ok(evaluation) => shown.push(match evaluation.result {
                Ok(Value::Bool(b)) => b.to_string(),
                Ok(Value::Int(i)) => i.to_string(),
                Ok(Value::String(s)) => s.as_str().to_string(),
                Ok(other) => format!("{other:?}"),
                Err(e) => e,
            }),
            Err(e) => return (shown, Err(e)),
        }
    }
    (shown, Ok(remaining))
}

#[test]
fn variables_later_ones_see_earlier_ones_with_their_types() {
    let vars = [("a", "1"), ("b", "variables.a + 1"), ("s", "'x'")];
    let ok = compile(
        &vars,
        "variables.b == 2 && variables.s.startsWith('x')",
        Output::Bool,
    );
    assert_eq!(error(&ok), "");
    let typed = compile(&vars, "variables.a.startsWith('x')", Output::Bool);
    assert_eq!(
        error(&typed),
        "compilation failed: ERROR: <input>:1:23: found no matching overload for 'startsWith' applied to 'int.(string)'\n | variables.a.startsWith('x')\n | ......................^"
    );
    // A variable sees only the ones before it.
    let (_, composition) = compiled(
        &[("a", "variables.b"), ("b", "1")],
        "true",
        Output::Bool,
        PARAMS,
    );
    assert_eq!(
        error(&composition.variables[0].expression),
        "compilation failed: ERROR: <input>:1:10: undefined field 'b'\n | variables.b\n | .........^"
    );
}

#[test]
fn params_undeclared_without_param_kind_fails_to_compile() {
    let (with, _) = compiled(&[], "params.max > 1", Output::Bool, PARAMS);
    assert_eq!(error(&with), "");
    let (without, _) = compiled(&[], "params.max > 1", Output::Bool, NO_PARAMS);
    assert_eq!(
        error(&without),
        "compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n | params.max > 1\n | ^"
    );
    let no_authz = Declarations {
        has_authorizer: false,
        ..PARAMS
    };
    let (message, _) = compiled(
        &[],
        "authorizer.group('').resource('x').check('get').allowed() ? 'a' : 'b'",
        Output::String,
        no_authz,
    );
    assert!(
        error(&message).contains("undeclared reference to 'authorizer'"),
        "{}",
        error(&message)
    );
}

#[test]
fn output_types_are_checked_with_kubes_texts() {
    let cases = [
        ("1", Output::Bool, "must evaluate to bool but got int"),
        (
            "object.x",
            Output::Bool,
            "must evaluate to bool but got dyn",
        ),
        ("1", Output::String, "must evaluate to string but got int"),
        (
            "1",
            Output::StringOrNull,
            "must evaluate to one of [string null_type] but got int",
        ),
        ("null", Output::StringOrNull, ""),
        ("'a'", Output::StringOrNull, ""),
        ("object", Output::Any, ""),
        ("true", Output::Bool, ""),
    ];
    for (source, output, want) in cases {
        assert_eq!(error(&compile(&[], source, output)), want, "{source}");
    }
}

#[test]
fn variables_are_lazy_evaluated_once_and_charged_to_the_budget() {
    let object = json!({"items": [1, 2, 3, 4, 5]});
    // `big` costs the same each time it is read; read twice, it is evaluated once.
    let vars = [("big", "object.items.map(x, x * 2)"), ("bad", "1 / 0")];
    let (once, left_once) = run(&vars, &["size(variables.big) == 5"], &object, 1000);
    let (twice, left_twice) = run(
        &vars,
        &["size(variables.big) == 5 && size(variables.big) == 5"],
        &object,
        1000,
    );
    assert_eq!(once, ["true"]);
    assert_eq!(twice, ["true"]);
    let (none, left_none) = run(&vars, &["size(object.items) == 5"], &object, 1000);
    assert_eq!(none, ["true"]);
    let variable_cost = (1000 - left_once.unwrap()) - (1000 - left_none.unwrap());
    assert!(variable_cost > 10, "{variable_cost}");
    let second_read = left_once.unwrap() - left_twice.unwrap();
    assert!(
        second_read < variable_cost,
        "{second_read} vs {variable_cost}"
    );
    // An erring variable errs only where read, with kube's text.
    let (shown, _) = run(&vars, &["true", "variables.bad == 1"], &object, 1000);
    assert_eq!(
        shown,
        [
            "true",
            "expression 'variables.bad == 1' resulted in error: composited variable \"bad\" fails to evaluate: division by zero"
        ]
    );
}

#[test]
fn variables_failing_to_compile_err_when_read() {
    let vars = [("broken", "object.")];
    let (shown, _) = run(&vars, &["true", "variables.broken"], &json!({}), 1000);
    assert_eq!(shown[0], "true");
    assert!(
        shown[1].starts_with(
            "expression 'variables.broken' resulted in error: composited variable \"broken\" fails to compile: compilation failed: ERROR: <input>:1:8: Syntax error"
        ),
        "{}",
        shown[1]
    );
}

#[test]
fn budget_exhausted_by_expressions_or_variables_is_out_of_budget() {
    let object = json!({"items": (0..100).collect::<Vec<_>>()});
    let vars = [("all", "object.items.all(x, x >= 0)")];
    let (_, full) = run(&vars, &["variables.all"], &object, 100_000);
    let spent = 100_000 - full.unwrap();
    // Exactly enough passes; one less runs out, the variable's cost included.
    assert!(run(&vars, &["variables.all"], &object, spent).1.is_ok());
    assert_eq!(
        run(&vars, &["variables.all"], &object, spent - 1).1,
        Err(OutOfBudget)
    );
    assert_eq!(OutOfBudget.to_string(), OUT_OF_BUDGET);
}

#[test]
fn per_call_limit_stops_one_expression_with_kubes_text() {
    let expensive = "[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, [1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f, true))))))";
    let (shown, left) = run(&[], &[expensive], &json!({}), 10_000_000);
    assert_eq!(
        shown,
        [format!(
            "expression '{expensive}' resulted in error: operation cancelled: actual cost limit exceeded"
        )]
    );
    assert!(left.unwrap() < 10_000_000 - 1_000_000);
    // In a variable, the limit is the variable's error, not the reader's.
    let (shown, _) = run(
        &[("v", expensive)],
        &["variables.v || true"],
        &json!({}),
        10_000_000,
    );
    assert_eq!(shown, ["true"]);
}
