//! Test support: expressions built by hand (as the parser would expand them), checked
//! references filled from the stored environment, and evaluation with a cost tracker.

mod cost;
mod json;
mod semantics;

use std::cell::RefCell;
use std::collections::HashMap;

use crate::cel::ast::{Ast, Comprehension, Expr, ExprKind, Literal, Source};
use crate::cel::checked::{Checked, Reference};
use crate::cel::env;
use crate::cel::value::{EvalError, Value};

use super::{CostTracker, Plan};

thread_local! {
    static REFS: RefCell<(u32, HashMap<u32, Reference>)> = RefCell::new((1, HashMap::new()));
}

fn node(kind: ExprKind) -> Expr {
    let id = REFS.with(|r| {
        let mut r = r.borrow_mut();
        r.0 += 1;
        r.0
    });
    Expr { id, kind }
}

fn refer(e: &Expr, r: Reference) {
    REFS.with(|refs| refs.borrow_mut().1.insert(e.id, r));
}

pub(super) fn int(i: i64) -> Expr {
    node(ExprKind::Literal(Literal::Int(i)))
}
pub(super) fn dbl(d: f64) -> Expr {
    node(ExprKind::Literal(Literal::Double(d)))
}
pub(super) fn boolean(b: bool) -> Expr {
    node(ExprKind::Literal(Literal::Bool(b)))
}
pub(super) fn st(s: &str) -> Expr {
    node(ExprKind::Literal(Literal::String(s.into())))
}
pub(super) fn id(name: &str) -> Expr {
    node(ExprKind::Ident(name.into()))
}
pub(super) fn sel(operand: Expr, field: &str) -> Expr {
    node(ExprKind::Select {
        operand: Box::new(operand),
        field: field.into(),
        test: false,
    })
}
pub(super) fn has(operand: Expr, field: &str) -> Expr {
    node(ExprKind::Select {
        operand: Box::new(operand),
        field: field.into(),
        test: true,
    })
}
pub(super) fn list(elements: Vec<Expr>) -> Expr {
    node(ExprKind::List {
        elements,
        optional: Vec::new(),
    })
}

/// A global call whose overload is chosen at run time among the function's overloads.
pub(super) fn call(function: &str, args: Vec<Expr>) -> Expr {
    node(ExprKind::Call {
        function: function.into(),
        target: None,
        args,
    })
}

/// A call the checker resolved to one overload.
pub(super) fn call1(function: &str, overload: &'static str, args: Vec<Expr>) -> Expr {
    let e = call(function, args);
    refer(&e, Reference::Overloads(vec![overload]));
    e
}

pub(super) fn member(
    function: &str,
    overload: &'static str,
    target: Expr,
    args: Vec<Expr>,
) -> Expr {
    let e = node(ExprKind::Call {
        function: function.into(),
        target: Some(Box::new(target)),
        args,
    });
    refer(&e, Reference::Overloads(vec![overload]));
    e
}

/// `range.all(x, pred)` as cel-go expands it.
pub(super) fn all(range: Expr, x: &str, pred: Expr) -> Expr {
    let result = || id("@result");
    node(ExprKind::Comprehension(Box::new(Comprehension {
        range,
        iter_var: x.into(),
        iter_var2: None,
        accu_var: "@result".into(),
        accu_init: boolean(true),
        loop_cond: call1("@not_strictly_false", "not_strictly_false", vec![result()]),
        loop_step: call("_&&_", vec![result(), pred]),
        result: result(),
    })))
}

/// `range.filter(x, pred)` as cel-go expands it.
pub(super) fn filter(range: Expr, x: &str, pred: Expr) -> Expr {
    let result = || id("@result");
    let append = call1("_+_", "add_list", vec![result(), list(vec![id(x)])]);
    node(ExprKind::Comprehension(Box::new(Comprehension {
        range,
        iter_var: x.into(),
        iter_var2: None,
        accu_var: "@result".into(),
        accu_init: list(vec![]),
        loop_cond: boolean(true),
        loop_step: call("_?_:_", vec![pred, append, result()]),
        result: result(),
    })))
}

pub(super) fn checked(expr: Expr) -> Checked {
    let refs = REFS.with(|r| r.borrow().1.clone());
    Checked {
        ast: Ast {
            expr,
            source: Source::default(),
        },
        types: HashMap::new(),
        refs,
        decls: HashMap::new(),
    }
}

/// Plans `expr` over `vars` named `self`, `a`, `b`, ... and evaluates it.
pub(super) fn run<'a>(
    expr: Expr,
    names: &[&str],
    vars: &[Value<'a>],
) -> (Result<Value<'a>, EvalError>, u64) {
    let env = env::stored();
    let plan = match Plan::new(&checked(expr), &env, names) {
        Ok(p) => p,
        Err(e) => return (Err(EvalError::new(format!("plan: {e}"))), 0),
    };
    let mut tracker = CostTracker::default();
    let r = plan.evaluate(vars, &mut tracker);
    (r, tracker.actual)
}

pub(super) fn eval(expr: Expr) -> Result<Value<'static>, EvalError> {
    run(expr, &[], &[]).0
}

/// A short rendering of a result for table assertions.
pub(super) fn show(r: &Result<Value<'_>, EvalError>) -> String {
    match r {
        Ok(Value::Bool(b)) => b.to_string(),
        Ok(Value::Int(i)) => i.to_string(),
        Ok(Value::Uint(u)) => format!("{u}u"),
        Ok(Value::Double(d)) => format!("{d:?}"),
        Ok(Value::String(s)) => format!("{:?}", s.as_str()),
        Ok(Value::Null) => "null".into(),
        Ok(Value::List(l)) => format!("list({})", super::ops::list_len(l)),
        Ok(Value::Optional(o)) => format!("optional({})", o.is_some()),
        Ok(other) => super::ops::type_name(other).into(),
        Err(e) => format!("error: {e}"),
    }
}
