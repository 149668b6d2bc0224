//! Go's `regexp.Compile` syntax check (RE2 syntax with Perl flags), reporting the first
//! error with Go's exact text, e.g. "error parsing regexp: missing argument to repetition
//! operator: `+`". kube reports `pattern`s that Go rejects; the Rust `regex` crate accepts
//! and rejects a slightly different set, so it cannot stand in for this check.
//!
//! Only syntax is checked: the parse stack is simulated just enough to know what a repetition
//! applies to, and repetition counts are multiplied along nesting as Go limits them. The
//! "expression too large" and "expression nests too deeply" limits are not reproduced.

mod class;
mod escape;
#[cfg(test)]
mod tests;

/// The largest count in `x{n,m}`, also the limit of nested counts multiplied together.
const MAX_REPEAT: u64 = 1000;

/// A Go `regexp/syntax.Error`: the pattern is not valid RE2 syntax as Go parses it. `code` is
/// Go's `ErrorCode` text and `expr` the part of the pattern it points at.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("error parsing regexp: {code}: `{expr}`")]
pub struct GoError {
    code: &'static str,
    expr: String,
}

impl GoError {
    fn new(code: &'static str, expr: &str) -> Self {
        GoError {
            code,
            expr: expr.to_string(),
        }
    }
}

pub(super) const INVALID_CHAR_RANGE: &str = "invalid character class range";
pub(super) const INVALID_ESCAPE: &str = "invalid escape sequence";
const INVALID_NAMED_CAPTURE: &str = "invalid named capture";
const INVALID_PERL_OP: &str = "invalid or unsupported Perl syntax";
const INVALID_REPEAT_OP: &str = "invalid nested repetition operator";
const INVALID_REPEAT_SIZE: &str = "invalid repeat count";
pub(super) const MISSING_BRACKET: &str = "missing closing ]";
const MISSING_PAREN: &str = "missing closing )";
const MISSING_REPEAT_ARGUMENT: &str = "missing argument to repetition operator";
pub(super) const TRAILING_BACKSLASH: &str = "trailing backslash at end of expression";
const UNEXPECTED_PAREN: &str = "unexpected )";

/// `Ok` when Go's `regexp.Compile` accepts `pattern`, else Go's error (its Display is Go's text).
pub fn check(pattern: &str) -> Result<(), GoError> {
    Parser::new(pattern).parse()
}

/// The top of Go's parse stack within one group.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Top {
    /// Nothing a repetition could apply to (start, `(` or `|`).
    Marker,
    /// An expression whose nested repetition counts multiply to the given weight.
    Expr(u64),
}

/// One open group (the whole expression is the outermost one).
struct Frame {
    /// Largest weight of the finished alternatives and concatenated expressions.
    finished: u64,
    top: Top,
}

impl Frame {
    fn new() -> Self {
        Frame {
            finished: 1,
            top: Top::Marker,
        }
    }

    fn weight(&self) -> u64 {
        match self.top {
            Top::Expr(w) => self.finished.max(w),
            Top::Marker => self.finished,
        }
    }
}

struct Parser<'a> {
    whole: &'a str,
    pos: usize,
    frames: Vec<Frame>,
    /// Where the previous token started, when it was a repetition operator.
    last_repeat: Option<usize>,
}

impl<'a> Parser<'a> {
    fn new(whole: &'a str) -> Self {
        Parser {
            whole,
            pos: 0,
            frames: vec![Frame::new()],
            last_repeat: None,
        }
    }

    fn rest(&self) -> &'a str {
        &self.whole[self.pos..]
    }

    fn frame(&mut self) -> &mut Frame {
        let last = self.frames.len() - 1;
        &mut self.frames[last]
    }

    /// Pushes an expression of the given weight (the previous top is finished).
    fn push(&mut self, weight: u64) {
        let frame = self.frame();
        frame.finished = frame.weight();
        frame.top = Top::Expr(weight);
    }

    fn parse(mut self) -> Result<(), GoError> {
        while self.pos < self.whole.len() {
            let start = self.pos;
            let repeated = self.token()?;
            self.last_repeat = repeated.then_some(start);
        }
        if self.frames.len() != 1 {
            return Err(GoError::new(MISSING_PAREN, self.whole));
        }
        Ok(())
    }

    /// Parses one token; true when it was a repetition operator.
    fn token(&mut self) -> Result<bool, GoError> {
        let rest = self.rest();
        let Some(c) = rest.chars().next() else {
            return Ok(false);
        };
        match c {
            '(' if rest.as_bytes().get(1) == Some(&b'?') => self.perl_flags()?,
            '(' => self.open_group(1),
            '|' => {
                let frame = self.frame();
                frame.finished = frame.weight();
                frame.top = Top::Marker;
                self.pos += 1;
            }
            ')' => self.close_group()?,
            '[' => {
                self.pos += class::parse_class(rest)?;
                self.push(1);
            }
            '*' | '+' | '?' => {
                self.repeat(1, 0, 0, false)?;
                return Ok(true);
            }
            '{' => return self.counted_repeat(),
            '\\' => self.escape()?,
            _ => {
                self.pos += c.len_utf8();
                self.push(1);
            }
        }
        Ok(false)
    }

    fn open_group(&mut self, len: usize) {
        self.pos += len;
        self.frames.push(Frame::new());
    }

    fn close_group(&mut self) -> Result<(), GoError> {
        if self.frames.len() < 2 {
            return Err(GoError::new(UNEXPECTED_PAREN, self.whole));
        }
        let weight = self.frames.pop().map_or(1, |f| f.weight());
        self.pos += 1;
        self.push(weight);
        Ok(())
    }

    /// `{n}`, `{n,}` or `{n,m}`; anything else makes `{` a literal.
    fn counted_repeat(&mut self) -> Result<bool, GoError> {
        let rest = self.rest();
        let Some((min, max, len)) = parse_repeat(rest) else {
            self.pos += 1;
            self.push(1);
            return Ok(false);
        };
        let max_repeat = MAX_REPEAT as i64;
        if min < 0 || min > max_repeat || max > max_repeat || (max >= 0 && min > max) {
            return Err(GoError::new(INVALID_REPEAT_SIZE, &rest[..len]));
        }
        self.repeat(len, min, max, true)?;
        Ok(true)
    }

    /// Applies a repetition operator `len` bytes long at the current position.
    fn repeat(&mut self, len: usize, min: i64, max: i64, counted: bool) -> Result<(), GoError> {
        let start = self.pos;
        let mut after = start + len;
        if self.whole.as_bytes().get(after) == Some(&b'?') {
            after += 1;
        }
        if let Some(last) = self.last_repeat {
            return Err(GoError::new(INVALID_REPEAT_OP, &self.whole[last..after]));
        }
        let Top::Expr(weight) = self.frame().top else {
            return Err(GoError::new(
                MISSING_REPEAT_ARGUMENT,
                &self.whole[start..after],
            ));
        };
        let new_weight = match (counted, max) {
            (false, _) => weight,
            (true, 0) => 1,
            (true, -1) => weight.saturating_mul(min.max(1) as u64),
            (true, max) => weight.saturating_mul(max as u64),
        };
        if counted && (min >= 2 || max >= 2) && new_weight > MAX_REPEAT {
            return Err(GoError::new(INVALID_REPEAT_SIZE, &self.whole[start..after]));
        }
        self.frame().top = Top::Expr(new_weight);
        self.pos = after;
        Ok(())
    }

    /// `\` at the top level: assertions, `\Q...\E`, classes and single-character escapes.
    fn escape(&mut self) -> Result<(), GoError> {
        let rest = self.rest();
        match rest.as_bytes().get(1) {
            Some(b'A' | b'b' | b'B' | b'z') => {
                self.pos += 2;
                self.push(1);
                return Ok(());
            }
            Some(b'C') => return Err(GoError::new(INVALID_ESCAPE, &rest[..2])),
            Some(b'Q') => {
                let quoted = &rest[2..];
                let (literal, consumed) = match quoted.find("\\E") {
                    Some(end) => (&quoted[..end], 2 + end + 2),
                    None => (quoted, rest.len()),
                };
                self.pos += consumed;
                if !literal.is_empty() {
                    self.push(1);
                }
                return Ok(());
            }
            _ => {}
        }
        let len = match class::parse_unicode_class(rest)? {
            Some(len) => len,
            None => match class::perl_class(rest) {
                Some(len) => len,
                None => escape::parse_escape(rest)?.1,
            },
        };
        self.pos += len;
        self.push(1);
        Ok(())
    }

    /// `(?flags)`, `(?flags:`, `(?P<name>` and `(?<name>`.
    fn perl_flags(&mut self) -> Result<(), GoError> {
        let t = self.rest();
        let bytes = t.as_bytes();
        let starts_with_p = t.len() > 4 && bytes[2] == b'P' && bytes[3] == b'<';
        let starts_with_name = t.len() > 3 && bytes[2] == b'<';
        if starts_with_p || starts_with_name {
            let Some(end) = t.find('>') else {
                return Err(GoError::new(INVALID_NAMED_CAPTURE, t));
            };
            let name = &t[if starts_with_p { 4 } else { 3 }..end];
            let valid =
                !name.is_empty() && name.chars().all(|c| c == '_' || c.is_ascii_alphanumeric());
            if !valid {
                return Err(GoError::new(INVALID_NAMED_CAPTURE, &t[..=end]));
            }
            self.open_group(end + 1);
            return Ok(());
        }
        let (mut negated, mut saw_flag) = (false, false);
        for (i, c) in t[2..].char_indices() {
            let consumed = 2 + i + c.len_utf8();
            match c {
                'i' | 'm' | 's' | 'U' => saw_flag = true,
                '-' if !negated => {
                    negated = true;
                    saw_flag = false;
                }
                ':' | ')' if !negated || saw_flag => {
                    if c == ':' {
                        self.open_group(consumed);
                    } else {
                        self.pos += consumed;
                    }
                    return Ok(());
                }
                _ => return Err(GoError::new(INVALID_PERL_OP, &t[..consumed])),
            }
        }
        Err(GoError::new(INVALID_PERL_OP, t))
    }
}

/// Go's `parseRepeat`: `(min, max, length)` with `max == -1` for `{n,}` and `min == -1` for
/// numbers too large; `None` when the text is not a counted repetition.
fn parse_repeat(s: &str) -> Option<(i64, i64, usize)> {
    let mut rest = s.strip_prefix('{')?;
    let (mut min, after) = parse_int(rest)?;
    rest = after;
    let max;
    if let Some(after_comma) = rest.strip_prefix(',') {
        if after_comma.starts_with('}') {
            max = -1;
            rest = after_comma;
        } else {
            let (value, after) = parse_int(after_comma)?;
            max = value;
            rest = after;
            if max < 0 {
                min = -1;
            }
        }
    } else {
        max = min;
    }
    let rest = rest.strip_prefix('}')?;
    Some((min, max, s.len() - rest.len()))
}

/// A decimal without leading zeros; `-1` when it is 1e8 or more.
fn parse_int(s: &str) -> Option<(i64, &str)> {
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || (digits >= 2 && s.starts_with('0')) {
        return None;
    }
    let mut n: i64 = 0;
    for b in s[..digits].bytes() {
        if n >= 100_000_000 {
            n = -1;
            break;
        }
        n = n * 10 + i64::from(b - b'0');
    }
    Some((n, &s[digits..]))
}
