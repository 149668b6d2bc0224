//! Checking of calls: namespaced function names, overload resolution with type
//! parameters (every overload the argument types admit is kept, the result is `dyn`
//! when they disagree), the logical operators, and optional field selection.

use std::collections::HashMap;
use std::sync::Arc;

use super::Checker;
use super::format::format_call;
use super::unify::{is_dyn, is_exact};
use crate::cel::ast::{Expr, ExprKind, Id, Literal};
use crate::cel::checked::Reference;
use crate::cel::decl::DeclKind;
use crate::cel::functions::Decl;
use crate::cel::types::Type;

impl Checker<'_> {
    pub(super) fn check_call(&mut self, e: &mut Expr) {
        let id = e.id;
        let ExprKind::Call {
            function,
            target,
            args,
        } = &mut e.kind
        else {
            return;
        };
        if function == "_?._" {
            self.check_opt_select(id, target.is_some(), args);
            return;
        }
        for arg in args.iter_mut() {
            self.check(arg);
        }
        let arg_ids: Vec<Id> = args.iter().map(|a| a.id).collect();
        let Some(receiver) = target else {
            self.resolve_or_undeclared(id, function, None, &arg_ids);
            return;
        };
        // `a.b.f(x)` is the function `a.b.f` when one is declared (`optional.of`).
        if let Some(prefix) = qualified_name(receiver) {
            let qualified = format!("{prefix}.{function}");
            if self.env.functions.is_declared(&qualified) {
                *function = qualified;
                *target = None;
                self.resolve_overload(id, function, None, &arg_ids);
                return;
            }
        }
        self.check(receiver);
        self.resolve_or_undeclared(id, function, Some(receiver.id), &arg_ids);
    }

    fn resolve_or_undeclared(&mut self, id: Id, function: &str, target: Option<Id>, args: &[Id]) {
        if self.env.functions.is_declared(function) {
            self.resolve_overload(id, function, target, args);
        } else {
            self.set_type(id, Type::Error);
            let message = format!("undeclared reference to '{function}' (in container '')");
            self.error(id, message);
        }
    }

    /// cel-go's `resolveOverload`.
    fn resolve_overload(&mut self, id: Id, function: &str, target: Option<Id>, args: &[Id]) {
        let env = self.env;
        let member = target.is_some();
        let arg_types: Vec<Type> = target
            .iter()
            .chain(args)
            .map(|a| self.type_of(*a))
            .collect();
        let mut result: Option<Type> = None;
        let mut ids: Vec<&'static str> = Vec::new();
        for overload in env.functions.overloads(function) {
            if overload.member != member {
                continue;
            }
            if matches!(function, "_&&_" | "_||_") {
                self.check_logical(id, overload.id, args, &arg_types);
                return;
            }
            let (params, overload_result) = self.instantiate(overload);
            let Some(mapping) = self.mapping.assign_list(&arg_types, &params) else {
                continue;
            };
            self.mapping = mapping;
            if !ids.contains(&overload.id) {
                ids.push(overload.id);
            }
            let found = self.substitute(&overload_result);
            result = Some(match result {
                None => found,
                Some(prev) if !is_dyn(&prev) && !is_exact(&found, &prev) => Type::Dyn,
                Some(prev) => prev,
            });
        }
        let Some(result) = result else {
            let shown: Vec<Type> = arg_types
                .iter()
                .map(|t| self.mapping.substitute(t, true))
                .collect();
            let message = format!(
                "found no matching overload for '{function}' applied to '{}'",
                format_call(&shown, member)
            );
            self.error(id, message);
            self.set_type(id, Type::Error);
            return;
        };
        self.set_type(id, result);
        if function == "_[_]" {
            self.track_index_decl(id, args, &ids);
        }
        self.refs.insert(id, Reference::Overloads(ids));
    }

    /// `_&&_` / `_||_`: every argument must be assignable to bool.
    fn check_logical(&mut self, id: Id, overload: &'static str, args: &[Id], types: &[Type]) {
        let mut failed = false;
        for (arg, t) in args.iter().zip(types) {
            if !self.assignable(t, &Type::Bool) {
                self.type_mismatch(*arg, &Type::Bool, t);
                failed = true;
            }
        }
        if failed {
            self.set_type(id, Type::Error);
            return;
        }
        self.set_type(id, Type::Bool);
        self.refs.insert(id, Reference::Overloads(vec![overload]));
    }

    /// The overload's parameter and result types with fresh type variables for its
    /// type parameters.
    fn instantiate(&mut self, overload: &Decl) -> (Vec<Type>, Type) {
        let mut fresh: HashMap<&'static str, Type> = HashMap::new();
        for t in overload.params.iter().chain([&overload.result]) {
            for name in type_params(t) {
                if !fresh.contains_key(name) {
                    let var = self.fresh_var();
                    fresh.insert(name, var);
                }
            }
        }
        if fresh.is_empty() {
            return (overload.params.clone(), overload.result.clone());
        }
        let params = overload.params.iter().map(|t| replace(t, &fresh)).collect();
        (params, replace(&overload.result, &fresh))
    }

    /// `list[i]` / `map[k]` denote schema values when the list or map does.
    fn track_index_decl(&mut self, id: Id, args: &[Id], ids: &[&'static str]) {
        let Some(container) = args.first().and_then(|a| self.decls.get(a)) else {
            return;
        };
        let decl = match &container.kind {
            DeclKind::List { elem, .. } if ids.contains(&"index_list") => Arc::clone(elem),
            DeclKind::Map { value } if ids.contains(&"index_map") => Arc::clone(value),
            _ => return,
        };
        self.decls.insert(id, decl);
    }

    /// `operand.?field`, parsed as `_?._(operand, 'field')`.
    fn check_opt_select(&mut self, id: Id, member: bool, args: &mut [Expr]) {
        let [operand, field] = args else {
            let member_text = if member { " member call with" } else { "" };
            let message = format!(
                "unsupported optional field selection: incorrect signature.{member_text} \
                 argument count: {}",
                args.len()
            );
            self.error(id, message);
            return;
        };
        let ExprKind::Literal(Literal::String(name)) = &mut field.kind else {
            let message = format!("unsupported optional field selection: {:?}", field.kind);
            self.error(field.id, message);
            return;
        };
        let result = self.check_select_field(id, operand, name, true);
        let result = self.substitute(&result);
        self.set_type(id, result);
        self.refs
            .insert(id, Reference::Overloads(vec!["select_optional_field"]));
    }
}

/// cel-go's `containers.ToQualifiedName`: an identifier or a chain of selections of one.
fn qualified_name(e: &Expr) -> Option<String> {
    match &e.kind {
        ExprKind::Ident(name) => Some(name.clone()),
        ExprKind::Select {
            operand,
            field,
            test: false,
        } => qualified_name(operand).map(|prefix| format!("{prefix}.{field}")),
        _ => None,
    }
}

fn type_params(t: &Type) -> Vec<&'static str> {
    match t {
        Type::Param(name) => vec![name],
        Type::List(e) | Type::Optional(e) | Type::Type(e) => type_params(e),
        Type::Map(k, v) => {
            let mut names = type_params(k);
            names.extend(type_params(v));
            names
        }
        _ => Vec::new(),
    }
}

fn replace(t: &Type, fresh: &HashMap<&'static str, Type>) -> Type {
    match t {
        Type::Param(name) => fresh.get(name).cloned().unwrap_or_else(|| t.clone()),
        Type::List(e) => Type::list(replace(e, fresh)),
        Type::Optional(e) => Type::optional(replace(e, fresh)),
        Type::Type(e) => Type::type_of(replace(e, fresh)),
        Type::Map(k, v) => Type::map(replace(k, fresh), replace(v, fresh)),
        other => other.clone(),
    }
}
