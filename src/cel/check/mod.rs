//! Type checking of parsed expressions against declared variables and functions, as
//! cel-go's checker does it (`checker/checker.go`), followed by the AST validators kube
//! enables (homogeneous aggregate literals; duration, timestamp and regex literals).
//!
//! Like cel-go, the checker rewrites the tree it checks: qualified names become single
//! identifiers (`google.protobuf.Duration`), namespaced calls global ones
//! (`optional.of(x)`), and a reserved word selecting an escaped property
//! (`self.namespace`, kube's `RecognizeKeywordAsFieldName`) its escaped name.

mod call;
mod comprehension;
mod expr;
mod format;
mod instantiate;
mod scope;
mod strformat;
mod unify;
mod validate;

#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::sync::Arc;

use super::ast::{Ast, Id, Source};
use super::checked::{Checked, Reference};
use super::decl::DeclType;
use super::env::Env;
use super::types::Type;
pub use instantiate::instantiate;
use scope::Scopes;
use unify::Mapping;

/// A declared variable: `self`, `oldSelf`, with the schema node it denotes, if any.
#[derive(Clone, Debug)]
pub struct Var {
    pub name: String,
    pub ty: Type,
    pub decl: Option<Arc<DeclType>>,
}

/// Checks `ast`; the error is cel-go's rendering of every issue, one per line group.
pub fn check(ast: Ast, env: &Env, vars: &[Var]) -> Result<Checked, String> {
    let Ast { mut expr, source } = ast;
    let mut checker = Checker::new(env, vars);
    checker.check(&mut expr);
    if !checker.errors.is_empty() {
        return Err(render(&source, checker.errors));
    }
    let checked = checker.finish(Ast { expr, source });
    let issues = validate::validate(&checked, env);
    if !issues.is_empty() {
        return Err(render(&checked.ast.source, issues));
    }
    Ok(checked)
}

/// The state of one check.
struct Checker<'e> {
    env: &'e Env,
    scopes: Scopes,
    mapping: Mapping,
    next_var: usize,
    types: HashMap<Id, Type>,
    refs: HashMap<Id, Reference>,
    decls: HashMap<Id, Arc<DeclType>>,
    errors: Vec<(Id, String)>,
}

impl<'e> Checker<'e> {
    fn new(env: &'e Env, vars: &[Var]) -> Checker<'e> {
        Checker {
            env,
            scopes: Scopes::new(vars),
            mapping: Mapping::default(),
            next_var: 0,
            types: HashMap::new(),
            refs: HashMap::new(),
            decls: HashMap::new(),
            errors: Vec::new(),
        }
    }

    /// Final types: bound parameters substituted, unbound ones `dyn` (cel-go `Check`).
    fn finish(self, ast: Ast) -> Checked {
        let mapping = self.mapping;
        let types = self
            .types
            .into_iter()
            .map(|(id, t)| (id, mapping.substitute(&t, true)))
            .collect();
        let refs = self
            .refs
            .into_iter()
            .map(|(id, r)| match r {
                Reference::TypeName(t) => (id, Reference::TypeName(mapping.substitute(&t, true))),
                other => (id, other),
            })
            .collect();
        Checked {
            ast,
            types,
            refs,
            decls: self.decls,
        }
    }

    fn error(&mut self, id: Id, message: String) {
        self.errors.push((id, message));
    }

    fn set_type(&mut self, id: Id, t: Type) {
        self.types.insert(id, t);
    }

    fn type_of(&self, id: Id) -> Type {
        self.types.get(&id).cloned().unwrap_or(Type::Error)
    }

    fn fresh_var(&mut self) -> Type {
        let name = unify::fresh_var_name(self.next_var);
        self.next_var += 1;
        Type::Param(name)
    }

    /// cel-go's `isAssignable`: binds type parameters on success.
    fn assignable(&mut self, t1: &Type, t2: &Type) -> bool {
        match self.mapping.assign(t1, t2) {
            Some(m) => {
                self.mapping = m;
                true
            }
            None => false,
        }
    }

    fn substitute(&self, t: &Type) -> Type {
        self.mapping.substitute(t, false)
    }

    /// cel-go's `assertType`.
    fn assert_type(&mut self, id: Id, expected: &Type) {
        let found = self.type_of(id);
        if !self.assignable(expected, &found) {
            self.type_mismatch(id, expected, &found);
        }
    }

    fn type_mismatch(&mut self, id: Id, expected: &Type, found: &Type) {
        let message = format!(
            "expected type '{}' but found '{}'",
            format::format_type(expected),
            format::format_type(found)
        );
        self.error(id, message);
    }
}

/// cel-go's `Errors.ToDisplayString`: issues sorted by position (stably), at most 100.
fn render(source: &Source, mut issues: Vec<(Id, String)>) -> String {
    const MAX_ERRORS: usize = 100;
    let position = |id: &Id| source.location(*id).map_or((0, -1), |(l, c)| (l, c as i64));
    issues.sort_by_key(|(id, _)| position(id));
    let total = issues.len();
    let mut lines: Vec<String> = issues
        .iter()
        .take(MAX_ERRORS)
        .map(|(id, message)| source.error_at(*id, message))
        .collect();
    if total > MAX_ERRORS {
        lines.push(format!("{} more errors were truncated", total - MAX_ERRORS));
    }
    lines.join("\n")
}
