//! The expression tree every later stage works on: macros already expanded into
//! comprehensions (as cel-go expands them), every node numbered, with its position in
//! the source kept aside for error messages.

use std::collections::HashMap;

/// A node id, unique within one expression.
pub type Id = u32;

/// One node of an expression.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub id: Id,
    pub kind: ExprKind,
}

/// What a node is. Operators are calls of the functions cel-go names them by
/// (`_+_`, `_[_]`, `_?._`, `!_`, `_&&_`, `_?_:_`, ...).
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Literal(Literal),
    Ident(String),
    /// `operand.field`; `test` for `has(operand.field)`.
    Select {
        operand: Box<Expr>,
        field: String,
        test: bool,
    },
    Call {
        function: String,
        target: Option<Box<Expr>>,
        args: Vec<Expr>,
    },
    /// `[a, ?b]`: the positions in `optional` hold optionals, kept only when set.
    List {
        elements: Vec<Expr>,
        optional: Vec<usize>,
    },
    Map {
        entries: Vec<MapEntry>,
    },
    /// `Name{field: value}`: never valid for CRD rules (no message types are declared),
    /// kept so the checker can refuse it as cel-go does.
    Struct {
        name: String,
        fields: Vec<StructField>,
    },
    Comprehension(Box<Comprehension>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct MapEntry {
    pub id: Id,
    pub key: Expr,
    pub value: Expr,
    pub optional: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct StructField {
    pub id: Id,
    pub field: String,
    pub value: Expr,
    pub optional: bool,
}

/// A fold as cel-go defines it: iterate `range` binding `iter_var` (and `iter_var2`
/// for two-variable comprehensions: index/key and value), starting from `accu_init`,
/// while `loop_cond` holds, replacing the accumulator by `loop_step`; then `result`.
#[derive(Clone, Debug, PartialEq)]
pub struct Comprehension {
    pub range: Expr,
    pub iter_var: String,
    pub iter_var2: Option<String>,
    pub accu_var: String,
    pub accu_init: Expr,
    pub loop_cond: Expr,
    pub loop_step: Expr,
    pub result: Expr,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Literal {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Double(f64),
    String(String),
    Bytes(Vec<u8>),
}

/// A parsed expression with the source positions of its nodes.
#[derive(Clone, Debug)]
pub struct Ast {
    pub expr: Expr,
    pub source: Source,
}

/// The source text and each node's starting byte offset, for cel-go's error format
/// `ERROR: <input>:LINE:COL: message` with the line and a caret under it.
#[derive(Clone, Debug, Default)]
pub struct Source {
    pub text: String,
    pub offsets: HashMap<Id, u32>,
}

impl Source {
    /// 1-based line and 0-based column (in characters) of a node, as cel-go reports
    /// them; `(1, 0)`... when the node has no recorded offset, like cel-go's `-1:-1`.
    pub fn location(&self, id: Id) -> Option<(usize, usize)> {
        let offset = *self.offsets.get(&id)? as usize;
        let mut line_start = 0;
        let mut line = 1;
        for (i, c) in self.text.char_indices() {
            if i >= offset {
                break;
            }
            if c == '\n' {
                line += 1;
                line_start = i + 1;
            }
        }
        let column = self
            .text
            .get(line_start..offset.min(self.text.len()))
            .map_or(0, |s| s.chars().count());
        Some((line, column))
    }

    /// cel-go's rendering of one error at a node:
    /// `ERROR: <input>:1:6: message\n | self.x\n | .....^`.
    pub fn error_at(&self, id: Id, message: &str) -> String {
        self.render_error(self.location(id), message)
    }

    /// cel-go's `common.Error.ToDisplayString` for an error at `location` (1-based line,
    /// 0-based column in characters), or at cel-go's `NoLocation` (`-1:0`, no snippet).
    /// Tabs show as spaces; a multi-byte character under the dots or the caret is
    /// marked with the full-width `．`/`＾`, as cel-go does.
    pub fn render_error(&self, location: Option<(usize, usize)>, message: &str) -> String {
        let Some((line, column)) = location else {
            return format!("ERROR: <input>:-1:0: {message}");
        };
        let mut out = format!("ERROR: <input>:{line}:{}: {message}", column + 1);
        // cel-go splits lines on '\n' only, and shows no snippet of an empty source
        // or of one over 16384 bytes.
        let snippet = match line.checked_sub(1) {
            Some(index) if !self.text.is_empty() => self.text.split('\n').nth(index),
            _ => None,
        };
        if let Some(snippet) = snippet.filter(|s| s.len() <= 16384) {
            let snippet = snippet.replace('\t', " ");
            let mut chars = snippet.chars();
            let mut marks = String::new();
            for c in chars.by_ref().take(column) {
                marks.push(if c.len_utf8() > 1 { '\u{ff0e}' } else { '.' });
            }
            let wide = chars.next().is_some_and(|c| c.len_utf8() > 1);
            marks.push(if wide { '\u{ff3e}' } else { '^' });
            out.push_str(&format!("\n | {snippet}\n | {marks}"));
        }
        out
    }
}

impl Expr {
    /// Calls `f` on this node and every node below it, parents first.
    pub fn visit<'a>(&'a self, f: &mut impl FnMut(&'a Expr)) {
        f(self);
        match &self.kind {
            ExprKind::Literal(_) | ExprKind::Ident(_) => {}
            ExprKind::Select { operand, .. } => operand.visit(f),
            ExprKind::Call { target, args, .. } => {
                if let Some(t) = target {
                    t.visit(f);
                }
                for a in args {
                    a.visit(f);
                }
            }
            ExprKind::List { elements, .. } => elements.iter().for_each(|e| e.visit(f)),
            ExprKind::Map { entries } => {
                for e in entries {
                    e.key.visit(f);
                    e.value.visit(f);
                }
            }
            ExprKind::Struct { fields, .. } => fields.iter().for_each(|e| e.value.visit(f)),
            ExprKind::Comprehension(c) => {
                c.range.visit(f);
                c.accu_init.visit(f);
                c.loop_cond.visit(f);
                c.loop_step.visit(f);
                c.result.visit(f);
            }
        }
    }
}
