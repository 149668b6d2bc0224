//! The `cel` crate's tree converted into ours: ids and start offsets kept, macros
//! expanded as cel-go's parser expands them (see [`super::macros`]).

use super::errors::Issue;
use super::macros::{self, MacroError};
use crate::cel::ast::{Expr, ExprKind, Id, Literal, MapEntry, Source, StructField};
use cel::common::ast::{
    EntryExpr, Expr as CelExpr, IdedEntryExpr, IdedExpr, LiteralValue, SourceInfo,
};

pub struct Converter<'s> {
    info: &'s SourceInfo,
    pub source: Source,
    next_id: Id,
    pub issues: Vec<Issue>,
}

impl<'s> Converter<'s> {
    pub fn new(text: &str, info: &'s SourceInfo, root: &IdedExpr) -> Self {
        Converter {
            info,
            source: Source {
                text: text.to_string(),
                offsets: Default::default(),
            },
            next_id: max_id(root) + 1,
            issues: Vec::new(),
        }
    }

    /// A new id for a node a macro adds, placed where the node `at` is (cel-go
    /// places them all at the macro call).
    pub fn fresh_id(&mut self, at: Id) -> Id {
        let id = self.next_id;
        self.next_id += 1;
        if let Some(offset) = self.source.offsets.get(&at).copied() {
            self.source.offsets.insert(id, offset);
        }
        id
    }

    /// Records an error at the node `id`, as cel-go's parser reports one.
    pub fn report(&mut self, id: Id, message: String) {
        let location = self.source.location(id);
        self.issues.push(Issue { location, message });
    }

    fn keep(&mut self, id: u64) -> Id {
        let id = to_id(id);
        if let Some((start, _)) = self.info.offset_for(u64::from(id)) {
            self.source.offsets.insert(id, start);
        }
        id
    }

    pub fn convert(&mut self, e: IdedExpr) -> Expr {
        let id = self.keep(e.id);
        let kind = match e.expr {
            CelExpr::Literal(value) => {
                let literal = literal(value);
                self.place_sign(id, &literal);
                ExprKind::Literal(literal)
            }
            CelExpr::Ident(name) => ExprKind::Ident(name),
            CelExpr::Select(s) => ExprKind::Select {
                operand: Box::new(self.convert(*s.operand)),
                field: s.field,
                test: s.test,
            },
            CelExpr::Call(call) => {
                let target = call.target.map(|t| self.convert(*t));
                let args: Vec<Expr> = call.args.into_iter().map(|a| self.convert(a)).collect();
                return self.call_or_macro(id, call.func_name, target, args);
            }
            CelExpr::List(list) => ExprKind::List {
                elements: list.elements.into_iter().map(|x| self.convert(x)).collect(),
                optional: list.optional_indices,
            },
            CelExpr::Map(map) => ExprKind::Map {
                entries: map
                    .entries
                    .into_iter()
                    .filter_map(|x| self.map_entry(x))
                    .collect(),
            },
            CelExpr::Struct(s) => ExprKind::Struct {
                name: s.type_name,
                fields: s
                    .entries
                    .into_iter()
                    .filter_map(|x| self.field(x))
                    .collect(),
            },
            CelExpr::Comprehension(c) => {
                let c = *c;
                ExprKind::Comprehension(Box::new(crate::cel::ast::Comprehension {
                    range: self.convert(c.iter_range),
                    iter_var: c.iter_var,
                    iter_var2: c.iter_var2,
                    accu_var: c.accu_var,
                    accu_init: self.convert(c.accu_init),
                    loop_cond: self.convert(c.loop_cond),
                    loop_step: self.convert(c.loop_step),
                    result: self.convert(c.result),
                }))
            }
            // Only left by a syntax error, which fails the parse anyway.
            CelExpr::Unspecified => ExprKind::Literal(Literal::Null),
        };
        Expr { id, kind }
    }

    fn map_entry(&mut self, e: IdedEntryExpr) -> Option<MapEntry> {
        let id = self.keep(e.id);
        match e.expr {
            EntryExpr::MapEntry(m) => Some(MapEntry {
                id,
                key: self.convert(m.key),
                value: self.convert(m.value),
                optional: m.optional,
            }),
            EntryExpr::StructField(_) => None,
        }
    }

    fn field(&mut self, e: IdedEntryExpr) -> Option<StructField> {
        let id = self.keep(e.id);
        match e.expr {
            EntryExpr::StructField(f) => Some(StructField {
                id,
                field: f.field,
                value: self.convert(f.value),
                optional: f.optional,
            }),
            EntryExpr::MapEntry(_) => None,
        }
    }

    fn call_or_macro(
        &mut self,
        id: Id,
        function: String,
        target: Option<Expr>,
        args: Vec<Expr>,
    ) -> Expr {
        if function == "_?._" {
            self.place_opt_field(id, &args);
        }
        let Some(kind) = macros::find(&function, target.is_some(), args.len()) else {
            let target = target.map(Box::new);
            return Expr {
                id,
                kind: ExprKind::Call {
                    function,
                    target,
                    args,
                },
            };
        };
        match macros::expand(kind, &mut macros::Helper::new(self, id), target, args) {
            Ok(e) => e,
            Err(MacroError { id: at, message }) => {
                self.report(at, message);
                Expr {
                    id,
                    kind: ExprKind::Literal(Literal::Null),
                }
            }
        }
    }

    /// cel-go places a signed number literal at its sign; the crate at its digits.
    fn place_sign(&mut self, id: Id, literal: &Literal) {
        let negative = match literal {
            Literal::Int(i) => *i < 0,
            Literal::Double(d) => d.is_sign_negative(),
            _ => false,
        };
        let Some(offset) = self.source.offsets.get(&id).map(|o| *o as usize) else {
            return;
        };
        let before = self.source.text.get(..offset).unwrap_or_default();
        let trimmed = before.trim_end();
        if negative && trimmed.ends_with('-') {
            self.source.offsets.insert(id, (trimmed.len() - 1) as u32);
        }
    }

    /// cel-go places the field name of `a.?b` at the name; the crate at the `.`.
    fn place_opt_field(&mut self, call: Id, args: &[Expr]) {
        let (Some(field), Some(offset)) = (args.get(1), self.source.offsets.get(&call)) else {
            return;
        };
        let offset = *offset as usize;
        let after = self.source.text.get(offset + 1..).unwrap_or_default();
        let rest = after
            .trim_start()
            .strip_prefix('?')
            .unwrap_or(after)
            .trim_start();
        let name_at = self.source.text.len() - rest.len();
        self.source.offsets.insert(field.id, name_at as u32);
    }
}

fn to_id(id: u64) -> Id {
    Id::try_from(id).unwrap_or(Id::MAX)
}

fn literal(value: LiteralValue) -> Literal {
    match value {
        LiteralValue::Boolean(b) => Literal::Bool(*b),
        LiteralValue::Bytes(b) => Literal::Bytes(b.to_vec()),
        LiteralValue::Double(d) => Literal::Double(*d),
        LiteralValue::Int(i) => Literal::Int(*i),
        LiteralValue::Null => Literal::Null,
        LiteralValue::String(s) => Literal::String(s.to_string()),
        LiteralValue::UInt(u) => Literal::Uint(*u),
    }
}

/// The largest id in the crate's tree, so the ids macros add follow it.
fn max_id(root: &IdedExpr) -> Id {
    let mut max = 0;
    let mut stack = vec![root];
    while let Some(e) = stack.pop() {
        max = max.max(to_id(e.id));
        match &e.expr {
            CelExpr::Call(call) => {
                stack.extend(call.target.as_deref());
                stack.extend(call.args.iter());
            }
            CelExpr::Select(s) => stack.push(&s.operand),
            CelExpr::List(list) => stack.extend(list.elements.iter()),
            CelExpr::Map(m) => entry_children(&m.entries, &mut stack, &mut max),
            CelExpr::Struct(s) => entry_children(&s.entries, &mut stack, &mut max),
            CelExpr::Comprehension(c) => stack.extend([
                &c.iter_range,
                &c.accu_init,
                &c.loop_cond,
                &c.loop_step,
                &c.result,
            ]),
            CelExpr::Unspecified | CelExpr::Ident(_) | CelExpr::Literal(_) => {}
        }
    }
    max
}

fn entry_children<'a>(entries: &'a [IdedEntryExpr], stack: &mut Vec<&'a IdedExpr>, max: &mut Id) {
    for e in entries {
        *max = (*max).max(to_id(e.id));
        match &e.expr {
            EntryExpr::MapEntry(m) => stack.extend([&m.key, &m.value]),
            EntryExpr::StructField(f) => stack.push(&f.value),
        }
    }
}
