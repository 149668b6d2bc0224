//! cel-go's parser limits (`parser.NewParser` defaults; kube's `base.go` sets none):
//! code points, nesting of the `expr` rule, and the visitor's recursion depth.

use cel::common::ast::{EntryExpr, Expr as CelExpr, IdedExpr};

/// `expressionSizeCodePointLimit`.
pub const CODE_POINT_LIMIT: usize = 100_000;
/// `maxRecursionDepth`.
pub const RECURSION_LIMIT: usize = 250;

pub fn code_points_message(size: usize) -> String {
    format!("expression code point size exceeds limit: size: {size}, limit {CODE_POINT_LIMIT}")
}

/// cel-go's parse listener error: an `expr` rule nested deeper than the limit.
pub fn listener_message() -> String {
    format!("expression recursion limit exceeded: {RECURSION_LIMIT}")
}

/// cel-go's visitor error: too many nested selects, calls on a target, indexes,
/// relations, arithmetic or conditionals.
pub const VISITOR_MESSAGE: &str = "max recursion depth exceeded";

/// The deepest nesting of the grammar's `expr` rule, from the tokens: the whole
/// input, each non-empty bracket `(`, `[`, `{`, and the else branch of each
/// conditional until its enclosing element ends. Computed before parsing because
/// the `cel` crate's parser recurses per level (and its own limit counts
/// differently).
pub fn expr_depth(source: &str) -> usize {
    let mut scan = DepthScan::default();
    let mut chars = source.char_indices().peekable();
    while let Some((_, c)) = chars.next() {
        match c {
            c if c.is_whitespace() => continue,
            '/' if chars.peek().is_some_and(|(_, n)| *n == '/') => {
                for (_, n) in chars.by_ref() {
                    if n == '\n' {
                        break;
                    }
                }
                continue;
            }
            '\'' | '"' => skip_string(source, &mut chars, c),
            '`' => {
                for (_, n) in chars.by_ref() {
                    if n == '`' {
                        break;
                    }
                }
            }
            _ => {}
        }
        scan.token(c);
        // An identifier or number is one operand; a string prefix (`r`, `b`, ...)
        // belongs to the string after it.
        if c.is_alphanumeric() || c == '_' {
            let word =
                |n: &char| n.is_alphanumeric() || *n == '_' || *n == '.' && c.is_ascii_digit();
            while chars.next_if(|(_, n)| word(n)).is_some() {}
            if let Some((_, quote)) = chars.next_if(|(_, n)| matches!(n, '\'' | '"')) {
                skip_string(source, &mut chars, quote);
            }
        }
    }
    scan.max
}

fn skip_string(
    source: &str,
    chars: &mut std::iter::Peekable<std::str::CharIndices<'_>>,
    quote: char,
) {
    let Some(&(start, _)) = chars.peek() else {
        return;
    };
    let triple: String = [quote, quote].iter().collect();
    let is_triple = source[start..].starts_with(&triple);
    if is_triple {
        chars.next();
        chars.next();
    }
    let closing: String = std::iter::repeat_n(quote, if is_triple { 3 } else { 1 }).collect();
    while let Some((i, c)) = chars.next() {
        if c == '\\' {
            chars.next();
        } else if source[i..].starts_with(&closing) {
            for _ in 1..closing.len() {
                chars.next();
            }
            return;
        } else if c == '\n' && !is_triple {
            return;
        }
    }
}

#[derive(Default)]
struct Frame {
    /// Depth of the `expr` enclosing the bracket.
    base: usize,
    /// Else branches entered since the element began.
    else_branches: usize,
    /// `?` of conditionals awaiting their `:`.
    pending: usize,
}

#[derive(Default)]
struct DepthScan {
    frames: Vec<Frame>,
    top: Frame,
    current: usize,
    max: usize,
    /// The previous token ends an operand, so a `?` after it is a conditional.
    after_operand: bool,
    /// The previous token opened a bracket.
    after_open: bool,
}

impl DepthScan {
    fn frame(&mut self) -> &mut Frame {
        self.frames.last_mut().unwrap_or(&mut self.top)
    }

    fn token(&mut self, c: char) {
        if self.current == 0 {
            self.current = 1;
        }
        let closes = matches!(c, ')' | ']' | '}');
        if !closes {
            self.max = self.max.max(self.current);
        }
        let after_operand = self.after_operand;
        self.after_operand = false;
        self.after_open = false;
        match c {
            '(' | '[' | '{' => {
                self.frames.push(Frame {
                    base: self.current,
                    ..Frame::default()
                });
                self.current += 1;
                self.after_open = true;
            }
            ')' | ']' | '}' => {
                if let Some(frame) = self.frames.pop() {
                    self.current = frame.base;
                }
                self.after_operand = true;
            }
            '?' if after_operand => self.frame().pending += 1,
            ':' => {
                let frame = self.frame();
                if frame.pending > 0 {
                    frame.pending -= 1;
                    frame.else_branches += 1;
                    self.current += 1;
                } else {
                    self.end_element();
                }
            }
            ',' => self.end_element(),
            c => self.after_operand = c.is_alphanumeric() || matches!(c, '_' | '\'' | '"' | '`'),
        }
    }

    fn end_element(&mut self) {
        let frame = self.frame();
        let back = std::mem::take(&mut frame.else_branches);
        frame.pending = 0;
        self.current = self.current.saturating_sub(back);
    }
}

/// cel-go's visitor depth: the most nested selects, receiver calls, indexes,
/// relations, arithmetic and conditionals on one path (parentheses, lists, maps,
/// global calls, `!`, unary `-`, `&&` and `||` do not count).
pub fn visitor_depth(root: &IdedExpr) -> usize {
    let mut max = 0;
    let mut stack = vec![(root, 0usize)];
    while let Some((e, depth)) = stack.pop() {
        let depth = depth + usize::from(counts(&e.expr));
        max = max.max(depth);
        match &e.expr {
            CelExpr::Call(call) => {
                stack.extend(call.target.iter().map(|t| (t.as_ref(), depth)));
                stack.extend(call.args.iter().map(|a| (a, depth)));
            }
            CelExpr::Select(select) => stack.push((&select.operand, depth)),
            CelExpr::List(list) => stack.extend(list.elements.iter().map(|x| (x, depth))),
            CelExpr::Map(map) => stack.extend(entries(&map.entries).map(|x| (x, depth))),
            CelExpr::Struct(s) => stack.extend(entries(&s.entries).map(|x| (x, depth))),
            CelExpr::Comprehension(c) => {
                for x in [
                    &c.iter_range,
                    &c.accu_init,
                    &c.loop_cond,
                    &c.loop_step,
                    &c.result,
                ] {
                    stack.push((x, depth));
                }
            }
            CelExpr::Unspecified | CelExpr::Ident(_) | CelExpr::Literal(_) => {}
        }
    }
    max
}

fn entries(entries: &[cel::common::ast::IdedEntryExpr]) -> impl Iterator<Item = &IdedExpr> {
    entries.iter().flat_map(|e| match &e.expr {
        EntryExpr::MapEntry(m) => vec![&m.key, &m.value],
        EntryExpr::StructField(f) => vec![&f.value],
    })
}

fn counts(e: &CelExpr) -> bool {
    match e {
        CelExpr::Select(_) => true,
        CelExpr::Call(call) => {
            call.target.is_some()
                || matches!(
                    call.func_name.as_str(),
                    "_?._"
                        | "_[_]"
                        | "_[?_]"
                        | "_?_:_"
                        | "_<_"
                        | "_<=_"
                        | "_>_"
                        | "_>=_"
                        | "_==_"
                        | "_!=_"
                        | "@in"
                        | "_+_"
                        | "_-_"
                        | "_*_"
                        | "_/_"
                        | "_%_"
                )
        }
        _ => false,
    }
}
