//! The template parser, following client-go's `parser.go` state machine character by character.

use super::unquote::unquote_extend;
use super::{Node, Param, ParseError};

/// Parses a whole template into its top-level nodes (text and `{...}` lists).
pub(super) fn parse_template(text: &str) -> Result<Vec<Node>, ParseError> {
    let mut parser = Parser {
        input: text,
        pos: 0,
        start: 0,
        width: 0,
    };
    let mut root = Vec::new();
    parser.parse_text(&mut root)?;
    Ok(root)
}

/// client-go's `parseAction`: parses `{text}` and keeps the nodes of its first action.
fn parse_action(text: &str) -> Result<Vec<Node>, ParseError> {
    let root = parse_template(&format!("{{{text}}}"))?;
    match root.into_iter().next() {
        Some(Node::List(nodes)) => Ok(nodes),
        _ => Ok(Vec::new()),
    }
}

struct Parser<'s> {
    input: &'s str,
    /// Byte offset of the next character.
    pos: usize,
    /// Byte offset where the not yet consumed text starts.
    start: usize,
    /// Byte width of the last character `next` returned (0 at the end).
    width: usize,
}

impl<'s> Parser<'s> {
    fn rest(&self) -> &'s str {
        self.input.get(self.pos..).unwrap_or_default()
    }

    fn next(&mut self) -> Option<char> {
        let c = self.rest().chars().next();
        self.width = c.map_or(0, char::len_utf8);
        self.pos += self.width;
        c
    }

    fn backup(&mut self) {
        self.pos -= self.width;
    }

    fn peek(&mut self) -> Option<char> {
        let c = self.next();
        self.backup();
        c
    }

    fn consume_text(&mut self) -> &'s str {
        let text = self.input.get(self.start..self.pos).unwrap_or_default();
        self.start = self.pos;
        text
    }

    /// Whether the byte before the character just read is a backslash (an escaped quote).
    fn escaped(&self) -> bool {
        self.pos >= 2 && self.input.as_bytes().get(self.pos - 2) == Some(&b'\\')
    }

    fn parse_text(&mut self, root: &mut Vec<Node>) -> Result<(), ParseError> {
        loop {
            if self.rest().starts_with('{') {
                if self.pos > self.start {
                    root.push(Node::Text(self.consume_text().to_owned()));
                }
                self.pos += 1;
                self.consume_text();
                let mut action = Vec::new();
                self.parse_inside_action(&mut action)?;
                root.push(Node::List(action));
                continue;
            }
            if self.next().is_none() {
                break;
            }
        }
        if self.pos > self.start {
            root.push(Node::Text(self.consume_text().to_owned()));
        }
        Ok(())
    }

    /// Parses nodes into `cur` until the closing `}` (consumed).
    fn parse_inside_action(&mut self, cur: &mut Vec<Node>) -> Result<(), ParseError> {
        loop {
            let rest = self.rest();
            if rest.starts_with('}') {
                self.pos += 1;
                self.consume_text();
                return Ok(());
            }
            if rest.starts_with("[?(") {
                self.parse_filter(cur)?;
                continue;
            }
            if rest.starts_with("..") {
                self.parse_recursive(cur)?;
                continue;
            }
            match self.next() {
                None | Some('\r' | '\n') => return Err(ParseError::UnclosedAction),
                Some(' ' | '@' | '$') => {
                    self.consume_text();
                }
                Some('[') => self.parse_array(cur)?,
                Some(quote @ ('"' | '\'')) => self.parse_quote(cur, quote)?,
                Some('.') => self.parse_field(cur),
                Some(c) if c == '+' || c == '-' || c.is_numeric() => {
                    self.backup();
                    self.parse_number(cur)?;
                }
                Some(c) if is_alphanumeric(c) => {
                    self.backup();
                    self.parse_identifier(cur);
                }
                Some(c) => return Err(ParseError::UnrecognizedCharacter(go_unicode(c))),
            }
        }
    }

    fn parse_identifier(&mut self, cur: &mut Vec<Node>) {
        while !is_terminator(self.next()) {}
        self.backup();
        let value = self.consume_text();
        cur.push(match value {
            "true" => Node::Bool(true),
            "false" => Node::Bool(false),
            _ => Node::Identifier(value.to_owned()),
        });
    }

    fn parse_recursive(&mut self, cur: &mut Vec<Node>) -> Result<(), ParseError> {
        if cur.last() == Some(&Node::Recursive) {
            return Err(ParseError::MultipleRecursiveDescent);
        }
        self.pos += 2;
        self.consume_text();
        cur.push(Node::Recursive);
        if self.peek().is_some_and(is_alphanumeric) {
            self.parse_field(cur);
        }
        Ok(())
    }

    fn parse_number(&mut self, cur: &mut Vec<Node>) -> Result<(), ParseError> {
        if matches!(self.peek(), Some('+' | '-')) {
            self.next();
        }
        while self.next().is_some_and(|c| c == '.' || c.is_numeric()) {}
        self.backup();
        let value = self.consume_text();
        if let Ok(int) = value.parse::<i64>() {
            cur.push(Node::Int(int));
        } else if let Ok(float) = value.parse::<f64>() {
            cur.push(Node::Float(float));
        } else {
            return Err(ParseError::InvalidNumber(value.to_owned()));
        }
        Ok(())
    }

    fn parse_array(&mut self, cur: &mut Vec<Node>) -> Result<(), ParseError> {
        loop {
            match self.next() {
                None | Some('\n') => return Err(ParseError::UnterminatedArray),
                Some(']') => break,
                Some(_) => {}
            }
        }
        let text = self.consume_text();
        let inner = text
            .strip_prefix('[')
            .and_then(|t| t.strip_suffix(']'))
            .unwrap_or_default();
        let inner = if inner == "*" { ":" } else { inner };

        if inner.contains(',') {
            let union = inner
                .split(',')
                .map(|part| parse_action(&format!("[{}]", part.trim_matches(' '))))
                .collect::<Result<Vec<_>, _>>()?;
            cur.push(Node::Union(union));
            return Ok(());
        }
        if let Some(key) = dict_key(inner) {
            cur.extend(parse_action(&format!(".{key}"))?);
            return Ok(());
        }
        let groups =
            slice_groups(inner).ok_or_else(|| ParseError::InvalidArrayIndex(inner.to_owned()))?;
        cur.push(Node::Array(slice_params(groups)?));
        Ok(())
    }

    fn parse_filter(&mut self, cur: &mut Vec<Node>) -> Result<(), ParseError> {
        self.pos += 3;
        self.consume_text();
        let (mut begin, mut end, mut pair) = (false, false, '"');
        loop {
            match self.next() {
                None | Some('\n') => return Err(ParseError::UnterminatedFilter),
                Some(quote @ ('"' | '\'')) => {
                    if !begin {
                        begin = true;
                        pair = quote;
                    } else if !self.escaped() && quote == pair {
                        end = true;
                    }
                }
                Some(')') if begin == end => break,
                Some(_) => {}
            }
        }
        if self.next() != Some(']') {
            return Err(ParseError::UnclosedFilter);
        }
        let text = self.consume_text();
        let text = text.strip_suffix(")]").unwrap_or(text);
        cur.push(match split_comparison(text) {
            None => Node::Filter {
                left: parse_action(text)?,
                right: Vec::new(),
                operator: "exists".to_owned(),
            },
            Some((left, operator, right)) => Node::Filter {
                left: parse_action(left)?,
                right: parse_action(right)?,
                operator: operator.to_owned(),
            },
        });
        Ok(())
    }

    fn parse_quote(&mut self, cur: &mut Vec<Node>, quote: char) -> Result<(), ParseError> {
        loop {
            match self.next() {
                None | Some('\n') => return Err(ParseError::UnterminatedQuote),
                Some(c) if c == quote && !self.escaped() => break,
                Some(_) => {}
            }
        }
        let value = self.consume_text();
        let text = unquote_extend(value)
            .ok_or_else(|| ParseError::InvalidQuotedString(value.to_owned()))?;
        cur.push(Node::Text(text));
        Ok(())
    }

    /// A field name up to the next unescaped terminator; backslashes are then dropped.
    fn parse_field(&mut self, cur: &mut Vec<Node>) {
        self.consume_text();
        loop {
            match self.next() {
                Some('\\') => {
                    self.next();
                }
                c if is_terminator(c) => {
                    self.backup();
                    break;
                }
                _ => {}
            }
        }
        let value = self.consume_text();
        cur.push(if value == "*" {
            Node::Wildcard
        } else {
            Node::Field(value.replace('\\', ""))
        });
    }
}

/// Characters that end an identifier or field (`None` is the end of input).
fn is_terminator(c: Option<char>) -> bool {
    matches!(
        c,
        None | Some(' ' | '\t' | '\r' | '\n' | '.' | ',' | '[' | ']' | '$' | '@' | '{' | '}')
    )
}

/// Go's `unicode.IsLetter || unicode.IsDigit || '_'`, approximated by Rust's Unicode classes.
fn is_alphanumeric(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

/// Go's `%#U`: `U+002A '*'` (the quoted character only when printable).
fn go_unicode(c: char) -> String {
    if c.is_control() {
        format!("U+{:04X}", u32::from(c))
    } else {
        format!("U+{:04X} '{c}'", u32::from(c))
    }
}

/// `^'([^']*)'$`: a single-quoted key.
fn dict_key(text: &str) -> Option<&str> {
    let key = text.strip_prefix('\'')?.strip_suffix('\'')?;
    (!key.contains('\'')).then_some(key)
}

/// `^(-?\d*)(:-?\d*)?(:-?\d*)?$`: the three slice groups ("" when absent).
fn slice_groups(text: &str) -> Option<[&str; 3]> {
    fn signed_digits(s: &str) -> usize {
        let sign = usize::from(s.starts_with('-'));
        sign + s[sign..].bytes().take_while(u8::is_ascii_digit).count()
    }
    let first = signed_digits(text);
    let mut groups = [&text[..first], "", ""];
    let mut rest = &text[first..];
    for slot in groups.iter_mut().skip(1) {
        if let Some(after) = rest.strip_prefix(':') {
            let len = 1 + signed_digits(after);
            *slot = &rest[..len];
            rest = &rest[len..];
        }
    }
    rest.is_empty().then_some(groups)
}

/// Start, end and step from the slice groups; `[i]` gets the derived end `i + 1`.
fn slice_params(groups: [&str; 3]) -> Result<[Param; 3], ParseError> {
    let mut params = [Param::default(); 3];
    for (i, group) in groups.into_iter().enumerate() {
        let text = if i > 0 {
            group.strip_prefix(':').unwrap_or(group)
        } else {
            group
        };
        if !group.is_empty() && !text.is_empty() {
            let value = text
                .parse::<i64>()
                .map_err(|_| ParseError::ArrayIndexNotNumber(text.to_owned()))?;
            params[i] = Param {
                value,
                known: true,
                derived: false,
            };
        } else if group.is_empty() && i == 1 {
            params[1] = Param {
                value: params[0].value.wrapping_add(1),
                known: true,
                derived: true,
            };
        }
    }
    Ok(params)
}

/// `^([^!<>=]+)([!<>=]+)(.+?)$`: left side, operator, right side of a filter comparison.
fn split_comparison(text: &str) -> Option<(&str, &str, &str)> {
    let is_operator = |c: char| matches!(c, '!' | '<' | '>' | '=');
    let op_start = text.find(is_operator).filter(|i| *i > 0)?;
    let after = &text[op_start..];
    let run = after.find(|c: char| !is_operator(c)).unwrap_or(after.len());
    // The right side needs at least one character: give one back from an all-operator tail.
    let run = if run == after.len() {
        run.checked_sub(1).filter(|r| *r > 0)?
    } else {
        run
    };
    Some((&text[..op_start], &after[..run], &after[run..]))
}
