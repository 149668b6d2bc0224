//! What macros build their expansions with (cel-go's `ExprHelper`): fresh ids
//! placed at the macro call, copies, and the checks of iteration variables.

use super::convert::Converter;
use super::macros::{ACCUMULATOR, LEGACY_ACCUMULATOR, MacroError};
use crate::cel::ast::{Comprehension, Expr, ExprKind, Id, Literal, MapEntry, StructField};

/// The expansion of one macro call: every new node gets a fresh id, placed at the call.
pub struct Helper<'c, 's> {
    conv: &'c mut Converter<'s>,
    pub at: Id,
}

impl<'c, 's> Helper<'c, 's> {
    pub fn new(conv: &'c mut Converter<'s>, at: Id) -> Self {
        Helper { conv, at }
    }

    pub fn node(&mut self, kind: ExprKind) -> Expr {
        let id = self.conv.fresh_id(self.at);
        Expr { id, kind }
    }

    pub fn bool(&mut self, b: bool) -> Expr {
        self.node(ExprKind::Literal(Literal::Bool(b)))
    }

    pub fn int(&mut self, i: i64) -> Expr {
        self.node(ExprKind::Literal(Literal::Int(i)))
    }

    pub fn ident(&mut self, name: &str) -> Expr {
        self.node(ExprKind::Ident(name.to_string()))
    }

    pub fn accu(&mut self) -> Expr {
        self.ident(ACCUMULATOR)
    }

    pub fn list(&mut self, elements: Vec<Expr>) -> Expr {
        self.node(ExprKind::List {
            elements,
            optional: vec![],
        })
    }

    pub fn empty_map(&mut self) -> Expr {
        self.node(ExprKind::Map { entries: vec![] })
    }

    pub fn call(&mut self, function: &str, args: Vec<Expr>) -> Expr {
        self.node(ExprKind::Call {
            function: function.to_string(),
            target: None,
            args,
        })
    }

    pub fn member(&mut self, function: &str, target: Expr, args: Vec<Expr>) -> Expr {
        self.node(ExprKind::Call {
            function: function.to_string(),
            target: Some(Box::new(target)),
            args,
        })
    }

    #[allow(clippy::too_many_arguments)]
    pub fn fold(
        &mut self,
        range: Expr,
        iter_var: String,
        iter_var2: Option<String>,
        accu_init: Expr,
        loop_cond: Expr,
        loop_step: Expr,
        result: Expr,
    ) -> Expr {
        self.bind_fold(
            range,
            iter_var,
            iter_var2,
            ACCUMULATOR,
            accu_init,
            loop_cond,
            loop_step,
            result,
        )
    }

    /// A comprehension with an accumulator of its own name (`cel.bind`-shaped
    /// expansions bind a variable as the accumulator).
    #[allow(clippy::too_many_arguments)]
    pub fn bind_fold(
        &mut self,
        range: Expr,
        iter_var: String,
        iter_var2: Option<String>,
        accu_var: &str,
        accu_init: Expr,
        loop_cond: Expr,
        loop_step: Expr,
        result: Expr,
    ) -> Expr {
        self.node(ExprKind::Comprehension(Box::new(Comprehension {
            range,
            iter_var,
            iter_var2,
            accu_var: accu_var.to_string(),
            accu_init,
            loop_cond,
            loop_step,
            result,
        })))
    }

    /// A copy of `e` with fresh ids, each placed where its original is (cel-go `Copy`).
    pub fn copy(&mut self, e: &Expr) -> Expr {
        let id = self.conv.fresh_id(e.id);
        let kind = match &e.kind {
            ExprKind::Literal(_) | ExprKind::Ident(_) => e.kind.clone(),
            ExprKind::Select {
                operand,
                field,
                test,
            } => ExprKind::Select {
                operand: Box::new(self.copy(operand)),
                field: field.clone(),
                test: *test,
            },
            ExprKind::Call {
                function,
                target,
                args,
            } => ExprKind::Call {
                function: function.clone(),
                args: args.iter().map(|a| self.copy(a)).collect(),
                target: target.as_ref().map(|t| Box::new(self.copy(t))),
            },
            ExprKind::List { elements, optional } => ExprKind::List {
                elements: elements.iter().map(|x| self.copy(x)).collect(),
                optional: optional.clone(),
            },
            ExprKind::Map { entries } => ExprKind::Map {
                entries: entries
                    .iter()
                    .map(|x| MapEntry {
                        id: self.conv.fresh_id(self.at),
                        key: self.copy(&x.key),
                        value: self.copy(&x.value),
                        optional: x.optional,
                    })
                    .collect(),
            },
            ExprKind::Struct { name, fields } => ExprKind::Struct {
                name: name.clone(),
                fields: fields
                    .iter()
                    .map(|x| StructField {
                        id: self.conv.fresh_id(self.at),
                        field: x.field.clone(),
                        value: self.copy(&x.value),
                        optional: x.optional,
                    })
                    .collect(),
            },
            ExprKind::Comprehension(c) => ExprKind::Comprehension(Box::new(Comprehension {
                range: self.copy(&c.range),
                iter_var: c.iter_var.clone(),
                iter_var2: c.iter_var2.clone(),
                accu_var: c.accu_var.clone(),
                accu_init: self.copy(&c.accu_init),
                loop_cond: self.copy(&c.loop_cond),
                loop_step: self.copy(&c.loop_step),
                result: self.copy(&c.result),
            })),
        };
        Expr { id, kind }
    }

    pub fn error(&self, id: Id, message: &str) -> MacroError {
        MacroError {
            id,
            message: message.to_string(),
        }
    }

    /// The name of an iteration variable argument, refused (with `not_simple`)
    /// unless a plain identifier, and refused if it is an accumulator name.
    pub fn iter_var(&self, arg: Option<&Expr>, not_simple: &str) -> Result<String, MacroError> {
        let name = self.simple_name(arg, not_simple)?;
        self.not_accumulator(arg, name)
    }

    /// The name of an identifier argument; `not_simple` otherwise.
    pub fn simple_name(&self, arg: Option<&Expr>, not_simple: &str) -> Result<String, MacroError> {
        match arg {
            Some(Expr {
                kind: ExprKind::Ident(name),
                ..
            }) => Ok(name.clone()),
            Some(other) => Err(self.error(other.id, not_simple)),
            None => Err(self.error(self.at, not_simple)),
        }
    }

    /// `name` (of `arg`), unless it is an accumulator's.
    pub fn not_accumulator(&self, arg: Option<&Expr>, name: String) -> Result<String, MacroError> {
        if name == ACCUMULATOR || name == LEGACY_ACCUMULATOR {
            let id = arg.map_or(self.at, |a| a.id);
            return Err(self.error(id, "iteration variable overwrites accumulator variable"));
        }
        Ok(name)
    }
}
