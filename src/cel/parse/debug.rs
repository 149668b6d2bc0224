//! A compact rendering of a parsed tree for tests: every node with its start
//! offset in characters (`x@4`), comprehensions as `fold(...)`.

use crate::cel::ast::{Ast, Expr, ExprKind, Id, Literal};

pub fn render(ast: &Ast) -> String {
    Printer { ast }.expr(&ast.expr)
}

struct Printer<'a> {
    ast: &'a Ast,
}

impl Printer<'_> {
    fn at(&self, id: Id) -> String {
        match self.ast.source.offsets.get(&id) {
            Some(offset) => {
                let text = &self.ast.source.text;
                let chars = text
                    .get(..*offset as usize)
                    .map_or(0, |s| s.chars().count());
                format!("@{chars}")
            }
            None => "@?".into(),
        }
    }

    fn list(&self, xs: &[Expr]) -> String {
        xs.iter()
            .map(|x| self.expr(x))
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn expr(&self, e: &Expr) -> String {
        let at = self.at(e.id);
        let body = match &e.kind {
            ExprKind::Literal(l) => literal(l),
            ExprKind::Ident(name) => name.clone(),
            ExprKind::Select {
                operand,
                field,
                test: true,
            } => {
                format!("has({}.{field})", self.expr(operand))
            }
            ExprKind::Select { operand, field, .. } => format!("{}.{field}", self.expr(operand)),
            ExprKind::Call {
                function,
                target: Some(t),
                args,
            } => {
                format!("{}.{function}({})", self.expr(t), self.list(args))
            }
            ExprKind::Call { function, args, .. } => format!("{function}({})", self.list(args)),
            ExprKind::List { elements, optional } => {
                let items: Vec<String> = elements
                    .iter()
                    .enumerate()
                    .map(|(i, x)| {
                        let q = if optional.contains(&i) { "?" } else { "" };
                        format!("{q}{}", self.expr(x))
                    })
                    .collect();
                format!("[{}]", items.join(", "))
            }
            ExprKind::Map { entries } => {
                let items: Vec<String> = entries
                    .iter()
                    .map(|m| {
                        let q = if m.optional { "?" } else { "" };
                        let (k, v) = (self.expr(&m.key), self.expr(&m.value));
                        format!("{q}{k}:{} {v}", self.at(m.id))
                    })
                    .collect();
                format!("{{{}}}", items.join(", "))
            }
            ExprKind::Struct { name, fields } => {
                let items: Vec<String> = fields
                    .iter()
                    .map(|f| {
                        let q = if f.optional { "?" } else { "" };
                        let v = self.expr(&f.value);
                        format!("{q}{}:{} {v}", f.field, self.at(f.id))
                    })
                    .collect();
                format!("{name}{{{}}}", items.join(", "))
            }
            ExprKind::Comprehension(c) => {
                let v2 = c
                    .iter_var2
                    .as_ref()
                    .map_or(String::new(), |v| format!(",{v}"));
                format!(
                    "fold({}{v2}, {}, {}, {}, {}, {}, {})",
                    c.iter_var,
                    self.expr(&c.range),
                    c.accu_var,
                    self.expr(&c.accu_init),
                    self.expr(&c.loop_cond),
                    self.expr(&c.loop_step),
                    self.expr(&c.result)
                )
            }
        };
        format!("{body}{at}")
    }
}

fn literal(l: &Literal) -> String {
    match l {
        Literal::Null => "null".into(),
        Literal::Bool(b) => b.to_string(),
        Literal::Int(i) => i.to_string(),
        Literal::Uint(u) => format!("{u}u"),
        Literal::Double(d) => format!("{d}d"),
        Literal::String(s) => format!("{s:?}"),
        Literal::Bytes(b) => format!("b{:?}", String::from_utf8_lossy(b)),
    }
}
