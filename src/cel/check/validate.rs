//! The AST validators kube enables, run on a checked expression as cel-go runs them
//! after a successful check: homogeneous aggregate literals (except inside the strings
//! extension's `format`), and literal arguments of `duration`, `timestamp` and
//! `matches` that would fail at run time.

use crate::cel::ast::{Expr, ExprKind, Id, Literal};
use crate::cel::checked::{Checked, Reference};
use crate::cel::env::Env;
use crate::cel::functions::Impl;
use crate::cel::lib::regex::compile_go;
use crate::cel::types::Type;
use crate::cel::value::Value;

use super::format::format_type;
use super::unify::is_exact;

/// Every issue the validators find, by node.
pub(super) fn validate(checked: &Checked, env: &Env) -> Vec<(Id, String)> {
    let mut issues = Vec::new();
    walk(&checked.ast.expr, false, &mut |e, in_format| {
        if !in_format {
            homogeneous(checked, e, &mut issues);
        }
        literal_argument(checked, env, e, &mut issues);
        super::strformat::validate(checked, e, &mut issues);
    });
    issues
}

/// Visits every node, telling whether it is inside a `format` call.
fn walk<'a>(e: &'a Expr, in_format: bool, f: &mut impl FnMut(&'a Expr, bool)) {
    f(e, in_format);
    let inner =
        in_format || matches!(&e.kind, ExprKind::Call { function, .. } if function == "format");
    match &e.kind {
        ExprKind::Literal(_) | ExprKind::Ident(_) => {}
        ExprKind::Select { operand, .. } => walk(operand, inner, f),
        ExprKind::Call { target, args, .. } => {
            target.iter().for_each(|t| walk(t, inner, f));
            args.iter().for_each(|a| walk(a, inner, f));
        }
        ExprKind::List { elements, .. } => elements.iter().for_each(|x| walk(x, inner, f)),
        ExprKind::Map { entries } => entries.iter().for_each(|x| {
            walk(&x.key, inner, f);
            walk(&x.value, inner, f);
        }),
        ExprKind::Struct { fields, .. } => fields.iter().for_each(|x| walk(&x.value, inner, f)),
        ExprKind::Comprehension(c) => {
            for x in [
                &c.range,
                &c.accu_init,
                &c.loop_cond,
                &c.loop_step,
                &c.result,
            ] {
                walk(x, inner, f);
            }
        }
    }
}

fn mismatch(expected: &Type, found: &Type) -> String {
    format!(
        "expected type '{}' but found '{}'",
        format_type(expected),
        format_type(found)
    )
}

/// The type of an entry, unwrapped when it is an `?optional` one.
fn entry_type(checked: &Checked, id: Id, optional: bool) -> Type {
    match checked.type_of(id) {
        Type::Optional(inner) if optional => (**inner).clone(),
        other => other.clone(),
    }
}

/// cel-go's homogeneous aggregate literal validator: a list stops at its first
/// mismatching element; a map reports every mismatching key and value.
fn homogeneous(checked: &Checked, e: &Expr, issues: &mut Vec<(Id, String)>) {
    match &e.kind {
        ExprKind::List { elements, optional } => {
            let mut first: Option<Type> = None;
            for (i, element) in elements.iter().enumerate() {
                let t = entry_type(checked, element.id, optional.contains(&i));
                match &first {
                    None => first = Some(t),
                    Some(expected) if !is_exact(expected, &t) => {
                        issues.push((element.id, mismatch(expected, &t)));
                        break;
                    }
                    Some(_) => {}
                }
            }
        }
        ExprKind::Map { entries } => {
            let mut first: Option<(Type, Type)> = None;
            for entry in entries {
                let kt = checked.type_of(entry.key.id).clone();
                let vt = entry_type(checked, entry.value.id, entry.optional);
                let Some((k, v)) = &first else {
                    first = Some((kt, vt));
                    continue;
                };
                if !is_exact(k, &kt) {
                    issues.push((entry.key.id, mismatch(k, &kt)));
                }
                if !is_exact(v, &vt) {
                    issues.push((entry.value.id, mismatch(v, &vt)));
                }
            }
        }
        _ => {}
    }
}

/// `duration('1x')`, `timestamp('x')`, `'a'.matches('[')` with a literal argument
/// that cannot be converted or compiled: `invalid <function> argument`.
fn literal_argument(checked: &Checked, env: &Env, e: &Expr, issues: &mut Vec<(Id, String)>) {
    let ExprKind::Call { function, args, .. } = &e.kind else {
        return;
    };
    let Some(Expr {
        id: arg_id,
        kind: ExprKind::Literal(literal),
    }) = args.first()
    else {
        return;
    };
    let invalid = match function.as_str() {
        "duration" | "timestamp" => conversion_fails(checked, env, e.id, literal),
        "matches" => matches!(literal, Literal::String(p) if compile_go(p).is_err()),
        _ => false,
    };
    if invalid {
        issues.push((*arg_id, format!("invalid {function} argument")));
    }
}

/// Runs the conversion's implementation on the literal (cel-go evaluates the call).
fn conversion_fails(checked: &Checked, env: &Env, call: Id, literal: &Literal) -> bool {
    let Some(Reference::Overloads(ids)) = checked.refs.get(&call) else {
        return false;
    };
    let arg = match literal {
        Literal::String(s) => Value::string(s.as_str()),
        Literal::Int(i) => Value::Int(*i),
        _ => return false,
    };
    ids.iter()
        .filter_map(|id| env.functions.implementation(id))
        .find_map(|imp| match imp {
            Impl::Unary(f) => Some(f(&arg).is_err()),
            _ => None,
        })
        .unwrap_or(false)
}
