//! Builds test expressions node by node: each node gets the next id and the byte
//! offset cel-go would record for it (identifiers and literals at their start,
//! selections at the `.`, calls and operators at their `(` or operator token).

use std::collections::HashMap;
use std::sync::Arc;

use crate::cel::ast::{Ast, Comprehension, Expr, ExprKind, Id, Literal, MapEntry, Source};
use crate::cel::check::{Var, check};
use crate::cel::checked::Checked;
use crate::cel::decl::DeclType;
use crate::cel::types::Type;
use crate::schema::Schema;

pub struct B {
    next: Id,
    offsets: HashMap<Id, u32>,
}

impl B {
    pub fn new() -> B {
        B {
            next: 1,
            offsets: HashMap::new(),
        }
    }

    fn node(&mut self, at: u32, kind: ExprKind) -> Expr {
        let id = self.next;
        self.next += 1;
        self.offsets.insert(id, at);
        Expr { id, kind }
    }

    pub fn ident(&mut self, at: u32, name: &str) -> Expr {
        self.node(at, ExprKind::Ident(name.to_string()))
    }

    pub fn int(&mut self, at: u32, v: i64) -> Expr {
        self.node(at, ExprKind::Literal(Literal::Int(v)))
    }

    pub fn lit(&mut self, at: u32, l: Literal) -> Expr {
        self.node(at, ExprKind::Literal(l))
    }

    pub fn str(&mut self, at: u32, s: &str) -> Expr {
        self.node(at, ExprKind::Literal(Literal::String(s.to_string())))
    }

    pub fn sel(&mut self, at: u32, operand: Expr, field: &str) -> Expr {
        let kind = ExprKind::Select {
            operand: Box::new(operand),
            field: field.to_string(),
            test: false,
        };
        self.node(at, kind)
    }

    pub fn has(&mut self, at: u32, operand: Expr, field: &str) -> Expr {
        let kind = ExprKind::Select {
            operand: Box::new(operand),
            field: field.to_string(),
            test: true,
        };
        self.node(at, kind)
    }

    /// `self.a.b...` with the dots at the given offsets.
    pub fn path(&mut self, root: &str, fields: &[(u32, &str)]) -> Expr {
        let mut e = self.ident(0, root);
        for (at, f) in fields {
            e = self.sel(*at, e, f);
        }
        e
    }

    pub fn call(&mut self, at: u32, function: &str, args: Vec<Expr>) -> Expr {
        let kind = ExprKind::Call {
            function: function.to_string(),
            target: None,
            args,
        };
        self.node(at, kind)
    }

    pub fn member(&mut self, at: u32, target: Expr, function: &str, args: Vec<Expr>) -> Expr {
        let kind = ExprKind::Call {
            function: function.to_string(),
            target: Some(Box::new(target)),
            args,
        };
        self.node(at, kind)
    }

    pub fn list(&mut self, at: u32, elements: Vec<Expr>, optional: Vec<usize>) -> Expr {
        self.node(at, ExprKind::List { elements, optional })
    }

    pub fn map(&mut self, at: u32, entries: Vec<(Expr, Expr)>) -> Expr {
        let entries = entries
            .into_iter()
            .map(|(key, value)| {
                let id = self.next;
                self.next += 1;
                MapEntry {
                    id,
                    key,
                    value,
                    optional: false,
                }
            })
            .collect();
        self.node(at, ExprKind::Map { entries })
    }

    /// `range.all(var, pred)` as cel-go expands it.
    pub fn all(&mut self, at: u32, range: Expr, var: &str, pred: Expr) -> Expr {
        let init = self.lit(at, Literal::Bool(true));
        let accu = self.ident(at, "@result");
        let cond = self.call(at, "@not_strictly_false", vec![accu]);
        let accu = self.ident(at, "@result");
        let step = self.call(at, "_&&_", vec![accu, pred]);
        let result = self.ident(at, "@result");
        self.fold(at, range, (var, None), init, cond, step, result)
    }

    /// `range.map(var, f)` as cel-go expands it.
    pub fn map_macro(&mut self, at: u32, range: Expr, var: &str, f: Expr) -> Expr {
        let init = self.list(at, vec![], vec![]);
        let cond = self.lit(at, Literal::Bool(true));
        let accu = self.ident(at, "@result");
        let item = self.list(at, vec![f], vec![]);
        let step = self.call(at, "_+_", vec![accu, item]);
        let result = self.ident(at, "@result");
        self.fold(at, range, (var, None), init, cond, step, result)
    }

    /// `range.all(v1, v2, pred)`, the two-variable form.
    pub fn all2(&mut self, at: u32, range: Expr, vars: (&str, &str), pred: Expr) -> Expr {
        let init = self.lit(at, Literal::Bool(true));
        let accu = self.ident(at, "@result");
        let cond = self.call(at, "@not_strictly_false", vec![accu]);
        let accu = self.ident(at, "@result");
        let step = self.call(at, "_&&_", vec![accu, pred]);
        let result = self.ident(at, "@result");
        self.fold(at, range, (vars.0, Some(vars.1)), init, cond, step, result)
    }

    #[allow(clippy::too_many_arguments)]
    fn fold(
        &mut self,
        at: u32,
        range: Expr,
        vars: (&str, Option<&str>),
        accu_init: Expr,
        loop_cond: Expr,
        loop_step: Expr,
        result: Expr,
    ) -> Expr {
        let c = Comprehension {
            range,
            iter_var: vars.0.to_string(),
            iter_var2: vars.1.map(str::to_string),
            accu_var: "@result".to_string(),
            accu_init,
            loop_cond,
            loop_step,
            result,
        };
        self.node(at, ExprKind::Comprehension(Box::new(c)))
    }

    pub fn ast(&self, text: &str, expr: Expr) -> Ast {
        Ast {
            expr,
            source: Source {
                text: text.to_string(),
                offsets: self.offsets.clone(),
            },
        }
    }
}

/// `self` (and `oldSelf`) of the schema given as JSON.
pub fn vars(schema: serde_json::Value) -> Vec<Var> {
    let decl = schema_decl(schema);
    ["self", "oldSelf"]
        .into_iter()
        .map(|name| Var {
            name: name.to_string(),
            ty: decl.cel_type(),
            decl: Some(Arc::clone(&decl)),
        })
        .collect()
}

pub fn schema_decl(schema: serde_json::Value) -> Arc<DeclType> {
    let schema = Schema::parse(&schema);
    DeclType::from_schema(&schema, false, "selfType0").expect("schema has a CEL type")
}

/// Checks with the stored environment.
pub fn run(text: &str, b: &B, expr: Expr, vars: &[Var]) -> Result<Checked, String> {
    check(b.ast(text, expr), &crate::cel::env::stored(), vars)
}

/// The result type as text, or the error.
pub fn outcome(text: &str, b: &B, expr: Expr, vars: &[Var]) -> String {
    match run(text, b, expr, vars) {
        Ok(c) => c.type_of(c.ast.expr.id).to_string(),
        Err(e) => e,
    }
}

pub fn no_vars() -> Vec<Var> {
    Vec::new()
}

pub fn var(name: &str, ty: Type) -> Var {
    Var {
        name: name.to_string(),
        ty,
        decl: None,
    }
}
