//! Go's JSON syntax check (`checkValid`) with its error texts: the v1 scanner of
//! sigs.k8s.io/json (kube's decoders of patches and ObjectMeta) and encoding/json of Go
//! 1.27, whose json/v2 engine words some errors otherwise (the apiVersion/kind sniffing).

use super::quote::{quote_byte, quote_rune_at, quote_text};

/// Which Go decoder's words a syntax error is given in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    /// sigs.k8s.io/json: Go's historical (v1) scanner.
    V1,
    /// encoding/json of Go 1.27 (json/v2 underneath, reporting with v1's phrases).
    V2,
}

/// Go's limit on nesting (`maxNestingDepth`).
const MAX_DEPTH: usize = 10_000;

const UNEXPECTED_END: &str = "unexpected end of JSON input";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    BeginValueOrEmpty,
    BeginValue,
    BeginStringOrEmpty,
    BeginString,
    EndValue,
    EndTop,
    InString,
    InStringEsc,
    /// After `\u` and this many hex digits.
    InStringEscU(u8),
    Neg,
    One,
    Zero,
    Dot,
    Dot0,
    E,
    ESign,
    E0,
    /// Inside a literal: which one and how many bytes matched.
    Literal(&'static str, usize),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Parse {
    ObjectKey,
    ObjectValue,
    ArrayValue,
}

struct Scanner<'a> {
    data: &'a [u8],
    flavor: Flavor,
    state: State,
    stack: Vec<Parse>,
    /// Where the current string started (v2 reports escapes by their text).
    escape_at: usize,
}

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r' | b'\n')
}

/// Checks `data` as Go's Unmarshal does before decoding; the error is Go's text.
pub fn check(data: &[u8], flavor: Flavor) -> Result<(), String> {
    let mut s = Scanner {
        data,
        flavor,
        state: State::BeginValue,
        stack: Vec::new(),
        escape_at: 0,
    };
    for (i, &c) in data.iter().enumerate() {
        s.step(i, c)?;
    }
    s.eof()
}

impl Scanner<'_> {
    fn error(&self, at: usize, context: &str) -> String {
        let what = match self.flavor {
            Flavor::V1 => quote_byte(self.data.get(at).copied().unwrap_or(b' ')),
            Flavor::V2 => quote_rune_at(&self.data[at.min(self.data.len())..]),
        };
        format!("invalid character {what} {context}")
    }

    /// v1 and v2 words for the same place.
    fn error2(&self, at: usize, v1: &str, v2: &str) -> String {
        match self.flavor {
            Flavor::V1 => self.error(at, v1),
            Flavor::V2 => self.error(at, v2),
        }
    }

    fn eof(&mut self) -> Result<(), String> {
        if self.state == State::EndTop {
            return Ok(());
        }
        if self.flavor == Flavor::V2 {
            let complete = matches!(
                self.state,
                State::EndValue | State::One | State::Zero | State::Dot0 | State::E0
            );
            return match complete && self.stack.is_empty() {
                true => Ok(()),
                false => Err(UNEXPECTED_END.into()),
            };
        }
        // v1 feeds a space at the end: a number ends, anything else unfinished fails
        // with that space's error or as unexpected end.
        let at = self.data.len();
        self.step(at, b' ')?;
        match self.state {
            State::EndTop => Ok(()),
            _ => Err(UNEXPECTED_END.into()),
        }
    }

    fn push(&mut self, at: usize, p: Parse) -> Result<(), String> {
        self.stack.push(p);
        if self.stack.len() > MAX_DEPTH {
            return Err(match self.flavor {
                Flavor::V1 => self.error(at, "exceeded max depth"),
                Flavor::V2 => "exceeded max depth".into(),
            });
        }
        Ok(())
    }

    fn step(&mut self, at: usize, c: u8) -> Result<(), String> {
        match self.state {
            State::BeginValueOrEmpty => {
                if is_space(c) {
                    return Ok(());
                }
                if c == b']' {
                    return self.end_value(at, c);
                }
                self.begin_value(at, c)
            }
            State::BeginValue => self.begin_value(at, c),
            State::BeginStringOrEmpty => {
                if is_space(c) {
                    return Ok(());
                }
                if c == b'}' {
                    if let Some(top) = self.stack.last_mut() {
                        *top = Parse::ObjectValue;
                    }
                    return self.end_value(at, c);
                }
                self.begin_string(at, c)
            }
            State::BeginString => self.begin_string(at, c),
            State::EndValue => self.end_value(at, c),
            State::EndTop => {
                if is_space(c) {
                    return Ok(());
                }
                Err(self.error(at, "after top-level value"))
            }
            State::InString => self.in_string(at, c),
            State::InStringEsc => self.in_string_esc(at, c),
            State::InStringEscU(n) => self.in_string_esc_u(at, c, n),
            _ => self.in_number_or_literal(at, c),
        }
    }

    fn begin_value(&mut self, at: usize, c: u8) -> Result<(), String> {
        if is_space(c) {
            return Ok(());
        }
        self.state = match c {
            b'{' => {
                self.push(at, Parse::ObjectKey)?;
                State::BeginStringOrEmpty
            }
            b'[' => {
                self.push(at, Parse::ArrayValue)?;
                State::BeginValueOrEmpty
            }
            b'"' => {
                self.escape_at = at;
                State::InString
            }
            b'-' => State::Neg,
            b'0' => State::Zero,
            b'1'..=b'9' => State::One,
            b't' => State::Literal("true", 1),
            b'f' => State::Literal("false", 1),
            b'n' => State::Literal("null", 1),
            _ => return Err(self.error(at, "looking for beginning of value")),
        };
        Ok(())
    }

    fn begin_string(&mut self, at: usize, c: u8) -> Result<(), String> {
        if is_space(c) {
            return Ok(());
        }
        if c == b'"' {
            self.state = State::InString;
            return Ok(());
        }
        Err(self.error(at, "looking for beginning of object key string"))
    }

    fn end_value(&mut self, at: usize, c: u8) -> Result<(), String> {
        let Some(&top) = self.stack.last() else {
            self.state = State::EndTop;
            return self.step(at, c);
        };
        if is_space(c) {
            self.state = State::EndValue;
            return Ok(());
        }
        match (top, c) {
            (Parse::ObjectKey, b':') => {
                self.set_top(Parse::ObjectValue);
                self.state = State::BeginValue;
                Ok(())
            }
            (Parse::ObjectKey, _) => Err(self.error(at, "after object key")),
            (Parse::ObjectValue, b',') => {
                self.set_top(Parse::ObjectKey);
                self.state = State::BeginString;
                Ok(())
            }
            (Parse::ObjectValue, b'}') | (Parse::ArrayValue, b']') => {
                self.stack.pop();
                self.state = match self.stack.is_empty() {
                    true => State::EndTop,
                    false => State::EndValue,
                };
                Ok(())
            }
            (Parse::ObjectValue, _) => Err(self.error(at, "after object key:value pair")),
            (Parse::ArrayValue, b',') => {
                self.state = State::BeginValue;
                Ok(())
            }
            (Parse::ArrayValue, _) => Err(self.error(at, "after array element")),
        }
    }

    fn set_top(&mut self, p: Parse) {
        if let Some(top) = self.stack.last_mut() {
            *top = p;
        }
    }

    fn in_string(&mut self, at: usize, c: u8) -> Result<(), String> {
        match c {
            b'"' => {
                self.state = State::EndValue;
                Ok(())
            }
            b'\\' => {
                self.escape_at = at;
                self.state = State::InStringEsc;
                Ok(())
            }
            0..0x20 => Err(self.error2(at, "in string literal", "in string")),
            _ => Ok(()),
        }
    }

    fn in_string_esc(&mut self, at: usize, c: u8) -> Result<(), String> {
        match c {
            b'b' | b'f' | b'n' | b'r' | b't' | b'\\' | b'/' | b'"' => {
                self.state = State::InString;
                Ok(())
            }
            b'u' => {
                self.state = State::InStringEscU(0);
                Ok(())
            }
            _ => Err(match self.flavor {
                Flavor::V1 => self.error(at, "in string escape code"),
                Flavor::V2 => self.bad_escape(self.escape_at, 2),
            }),
        }
    }

    fn in_string_esc_u(&mut self, at: usize, c: u8, n: u8) -> Result<(), String> {
        if c.is_ascii_hexdigit() {
            self.state = match n {
                3 => State::InString,
                _ => State::InStringEscU(n + 1),
            };
            return Ok(());
        }
        Err(match self.flavor {
            Flavor::V1 => self.error(at, "in \\u hexadecimal character escape"),
            // v2 reads the six bytes of `\uXXXX` (fewer at the end of the input).
            Flavor::V2 if self.escape_at + 6 > self.data.len() => self.bad_escape_rest(),
            Flavor::V2 => self.bad_escape(self.escape_at, 6),
        })
    }

    fn bad_escape(&self, start: usize, len: usize) -> String {
        let end = (start + len).min(self.data.len());
        let what = quote_text(&self.data[start..end]);
        format!("invalid escape sequence {what} in string")
    }

    fn bad_escape_rest(&self) -> String {
        self.bad_escape(self.escape_at, self.data.len() - self.escape_at)
    }

    fn in_number_or_literal(&mut self, at: usize, c: u8) -> Result<(), String> {
        let next = match (self.state, c) {
            (State::Neg, b'0') => State::Zero,
            (State::Neg, b'1'..=b'9') => State::One,
            (State::Neg, _) => return Err(self.error(at, "in numeric literal")),
            (State::One, b'0'..=b'9') => State::One,
            (State::One | State::Zero, b'.') => State::Dot,
            (State::One | State::Zero | State::Dot0, b'e' | b'E') => State::E,
            (State::Dot, b'0'..=b'9') | (State::Dot0, b'0'..=b'9') => State::Dot0,
            (State::Dot, _) => {
                let v1 = "after decimal point in numeric literal";
                return Err(self.error2(at, v1, "in numeric literal"));
            }
            (State::E, b'+' | b'-') => State::ESign,
            (State::E | State::ESign, b'0'..=b'9') | (State::E0, b'0'..=b'9') => State::E0,
            (State::E | State::ESign, _) => {
                let v1 = "in exponent of numeric literal";
                return Err(self.error2(at, v1, "in numeric literal"));
            }
            (State::Literal(word, n), _) if word.as_bytes().get(n) == Some(&c) => {
                match n + 1 == word.len() {
                    true => State::EndValue,
                    false => State::Literal(word, n + 1),
                }
            }
            (State::Literal(word, n), _) => {
                let expected = word.as_bytes().get(n).copied().unwrap_or(b' ') as char;
                let context = format!("in literal {word} (expecting '{expected}')");
                return Err(self.error(at, &context));
            }
            _ => return self.end_value(at, c),
        };
        self.state = next;
        Ok(())
    }
}
