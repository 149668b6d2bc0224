//! What cel-go refuses when kube builds the program of a checked expression (kube's
//! `program instantiation failed: ...`): identifiers of well-known protobuf types its
//! planner cannot resolve, and constant regular expressions of `find`, `findAll` and
//! `matches` that do not compile (kube's regex library and cel-go precompile them).

use super::scope::UNDEFINED_AT_RUN_TIME;
use crate::cel::ast::{Expr, ExprKind, Literal};
use crate::cel::checked::{Checked, Reference};
use crate::cel::lib::regex::compile_go;

/// The first failure in planning order (operands before the call that uses them), as
/// cel-go's error text.
pub fn instantiate(checked: &Checked) -> Result<(), String> {
    visit(checked, &checked.ast.expr)
}

fn visit(checked: &Checked, e: &Expr) -> Result<(), String> {
    match &e.kind {
        ExprKind::Literal(_) => Ok(()),
        ExprKind::Ident(name) => undefined_type(checked, e, name),
        ExprKind::Select { operand, .. } => visit(checked, operand),
        ExprKind::Call {
            function,
            target,
            args,
        } => {
            let operands: Vec<&Expr> = target.iter().map(|t| &**t).chain(args).collect();
            for operand in &operands {
                visit(checked, operand)?;
            }
            constant_regex(function, &operands)
        }
        ExprKind::List { elements, .. } => elements.iter().try_for_each(|x| visit(checked, x)),
        ExprKind::Map { entries } => entries.iter().try_for_each(|x| {
            visit(checked, &x.key)?;
            visit(checked, &x.value)
        }),
        ExprKind::Struct { fields, .. } => fields.iter().try_for_each(|x| visit(checked, &x.value)),
        ExprKind::Comprehension(c) => [
            &c.range,
            &c.accu_init,
            &c.loop_cond,
            &c.loop_step,
            &c.result,
        ]
        .into_iter()
        .try_for_each(|x| visit(checked, x)),
    }
}

fn undefined_type(checked: &Checked, e: &Expr, name: &str) -> Result<(), String> {
    let name = name.strip_prefix('.').unwrap_or(name);
    match checked.refs.get(&e.id) {
        Some(Reference::TypeName(_)) if UNDEFINED_AT_RUN_TIME.contains(&name) => {
            Err(format!("reference to undefined type: {name}"))
        }
        _ => Ok(()),
    }
}

/// The pattern is the second operand (counting a receiver), when it is a literal.
fn constant_regex(function: &str, operands: &[&Expr]) -> Result<(), String> {
    if !matches!(function, "find" | "findAll" | "matches") {
        return Ok(());
    }
    match operands.get(1).map(|e| &e.kind) {
        Some(ExprKind::Literal(Literal::String(pattern))) => compile_go(pattern).map(|_| ()),
        _ => Ok(()),
    }
}
