//! Label selector tokenizer and recursive-descent parser (apimachinery's `Lexer` and `Parser`),
//! producing requirements with upstream's error texts.

use std::collections::BTreeSet;

use super::validate::{check_key, check_values};
use super::{Operator, Requirement, SelectorError};
use crate::error::{FieldError, aggregate};

/// Why one requirement was rejected; `Display` is apimachinery's text, which
/// [`SelectorError::Requirement`] prefixes. Each `String` is the token found instead.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RequirementError {
    /// No key where one must be (at the start, or after `!`).
    #[error("found '{0}', expected: identifier")]
    ExpectedKey(String),
    /// The key is not a qualified name; upstream's field path is nil, printed `<nil>`.
    #[error("{}", .0.message())]
    InvalidKey(FieldError),
    /// The key is followed by something that is not an operator (`x nott in (y)`).
    #[error("found '{0}', expected: {BINARY_OPERATORS}")]
    ExpectedOperator(String),
    /// `in` or `notin` is not followed by `(`.
    #[error("found '{0}' expected: '('")]
    ExpectedOpenPar(String),
    /// `(` is followed by something other than a value, `,` or `)`.
    #[error("found '{0}', expected: ',', ')' or identifier")]
    ExpectedValues(String),
    /// A value in the list is followed by something other than `,` or `)`.
    #[error("found '{0}', expected: ',' or ')'")]
    ExpectedSeparator(String),
    /// The list holds something other than a value or `,` (`(x,=)`).
    #[error("found '{0}', expected: ',', or identifier")]
    ExpectedListItem(String),
    /// The value list is not closed by `)`.
    #[error("found '{0}', expected: ')'")]
    ExpectedClosedPar(String),
    /// `=`, `==`, `!=`, `>` or `<` is followed by something that is not a value (`x=!`).
    #[error("found '{0}', expected: identifier")]
    ExpectedValue(String),
    /// Values fail `NewRequirement`'s checks (deduplicated; `[a, b]` when several).
    #[error("{}", aggregate(.0))]
    InvalidValues(Vec<FieldError>),
}

/// Lexes and parses a whole selector into its requirements (unsorted).
pub(super) fn parse(selector: &str) -> Result<Vec<Requirement>, SelectorError> {
    let mut parser = Parser {
        items: lex(selector),
        pos: 0,
    };
    parser.parse()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Token {
    Error,
    EndOfString,
    ClosedPar,
    Comma,
    DoesNotExist,
    DoubleEquals,
    Equals,
    GreaterThan,
    Identifier,
    In,
    LessThan,
    NotEquals,
    NotIn,
    OpenPar,
}

fn is_whitespace(ch: u8) -> bool {
    matches!(ch, b' ' | b'\t' | b'\r' | b'\n')
}

fn is_special(ch: u8) -> bool {
    matches!(ch, b'=' | b'!' | b'(' | b')' | b',' | b'>' | b'<')
}

fn special_token(s: &str) -> Option<Token> {
    Some(match s {
        ")" => Token::ClosedPar,
        "," => Token::Comma,
        "!" => Token::DoesNotExist,
        "==" => Token::DoubleEquals,
        "=" => Token::Equals,
        ">" => Token::GreaterThan,
        "<" => Token::LessThan,
        "!=" => Token::NotEquals,
        "(" => Token::OpenPar,
        _ => return None,
    })
}

/// Upstream's byte lexer; a NUL byte reads as end of input where upstream's does.
struct Lexer<'a> {
    s: &'a str,
    pos: usize,
}

impl Lexer<'_> {
    fn read(&mut self) -> u8 {
        let ch = self.s.as_bytes().get(self.pos).copied().unwrap_or(0);
        self.pos = (self.pos + 1).min(self.s.len());
        ch
    }

    fn text(&self, start: usize, end: usize) -> String {
        self.s.get(start..end).unwrap_or_default().to_owned()
    }

    fn lex(&mut self) -> (Token, String) {
        let mut ch = self.read();
        while is_whitespace(ch) {
            ch = self.read();
        }
        if ch == 0 {
            return (Token::EndOfString, String::new());
        }
        self.pos -= 1;
        if is_special(ch) {
            self.scan_special()
        } else {
            self.scan_identifier()
        }
    }

    fn scan_identifier(&mut self) -> (Token, String) {
        let start = self.pos;
        let end = loop {
            let at = self.pos;
            match self.read() {
                0 => break at,
                ch if is_special(ch) || is_whitespace(ch) => {
                    self.pos = at;
                    break at;
                }
                _ => {}
            }
        };
        let lit = self.text(start, end);
        let tok = match lit.as_str() {
            "in" => Token::In,
            "notin" => Token::NotIn,
            _ => Token::Identifier,
        };
        (tok, lit)
    }

    /// Longest run of special bytes that is a token (`!=`, `==`, or one symbol).
    fn scan_special(&mut self) -> (Token, String) {
        let start = self.pos;
        let mut last = None;
        loop {
            let at = self.pos;
            match self.read() {
                0 => break,
                ch if !is_special(ch) => {
                    self.pos = at;
                    break;
                }
                _ => match special_token(self.s.get(start..self.pos).unwrap_or_default()) {
                    Some(tok) => last = Some((tok, self.pos)),
                    None if last.is_some() => {
                        self.pos = at;
                        break;
                    }
                    None => {}
                },
            }
        }
        match last {
            Some((tok, end)) => (tok, self.text(start, end)),
            None => (
                Token::Error,
                format!(
                    "error expected: keyword found '{}'",
                    self.text(start, self.pos)
                ),
            ),
        }
    }
}

fn lex(s: &str) -> Vec<(Token, String)> {
    let mut lexer = Lexer { s, pos: 0 };
    let mut items = Vec::new();
    loop {
        let item = lexer.lex();
        let end = item.0 == Token::EndOfString;
        items.push(item);
        if end {
            return items;
        }
    }
}

/// In value position the `in`/`notin` keywords are plain identifiers.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Context {
    KeyAndOperator,
    Values,
}

struct Parser {
    items: Vec<(Token, String)>,
    pos: usize,
}

const BINARY_OPERATORS: &str = "in, notin, =, ==, !=, gt, lt";

impl Parser {
    fn lookahead(&self, ctx: Context) -> (Token, String) {
        let (tok, lit) = self
            .items
            .get(self.pos)
            .cloned()
            .unwrap_or((Token::EndOfString, String::new()));
        match tok {
            Token::In | Token::NotIn if ctx == Context::Values => (Token::Identifier, lit),
            _ => (tok, lit),
        }
    }

    fn consume(&mut self, ctx: Context) -> (Token, String) {
        let item = self.lookahead(ctx);
        self.pos += 1;
        item
    }

    fn parse(&mut self) -> Result<Vec<Requirement>, SelectorError> {
        let mut requirements = Vec::new();
        loop {
            let (tok, lit) = self.lookahead(Context::Values);
            match tok {
                Token::Identifier | Token::DoesNotExist => {
                    let r = self
                        .parse_requirement()
                        .map_err(SelectorError::Requirement)?;
                    requirements.push(r);
                    match self.consume(Context::Values) {
                        (Token::EndOfString, _) => return Ok(requirements),
                        (Token::Comma, _) => match self.lookahead(Context::Values) {
                            (Token::Identifier | Token::DoesNotExist, _) => {}
                            (_, l2) => return Err(SelectorError::AfterComma(l2)),
                        },
                        (_, l) => return Err(SelectorError::AfterRequirement(l)),
                    }
                }
                Token::EndOfString => return Ok(requirements),
                _ => return Err(SelectorError::Start(lit)),
            }
        }
    }

    fn parse_requirement(&mut self) -> Result<Requirement, RequirementError> {
        let (key, operator) = self.parse_key_and_infer_operator()?;
        let (operator, values) = match operator {
            Some(op @ (Operator::Exists | Operator::DoesNotExist)) => (op, BTreeSet::new()),
            _ => {
                let op = self.parse_operator()?;
                let values = match op {
                    Operator::In | Operator::NotIn => self.parse_values()?,
                    _ => self.parse_exact_value()?,
                };
                (op, values)
            }
        };
        let values: Vec<String> = values.into_iter().collect();
        check_values(&key, operator, &values).map_err(RequirementError::InvalidValues)?;
        Ok(Requirement {
            key,
            operator,
            values,
        })
    }

    /// `None` when an operator follows the key; `DoesNotExist` for `!key` whatever follows.
    fn parse_key_and_infer_operator(
        &mut self,
    ) -> Result<(String, Option<Operator>), RequirementError> {
        let mut operator = None;
        let (mut tok, mut lit) = self.consume(Context::Values);
        if tok == Token::DoesNotExist {
            operator = Some(Operator::DoesNotExist);
            (tok, lit) = self.consume(Context::Values);
        }
        if tok != Token::Identifier {
            return Err(RequirementError::ExpectedKey(lit));
        }
        check_key(&lit).map_err(RequirementError::InvalidKey)?;
        let (next, _) = self.lookahead(Context::Values);
        if matches!(next, Token::EndOfString | Token::Comma) && operator.is_none() {
            operator = Some(Operator::Exists);
        }
        Ok((lit, operator))
    }

    fn parse_operator(&mut self) -> Result<Operator, RequirementError> {
        let (tok, lit) = self.consume(Context::KeyAndOperator);
        Ok(match tok {
            Token::In => Operator::In,
            Token::Equals => Operator::Equals,
            Token::DoubleEquals => Operator::DoubleEquals,
            Token::GreaterThan => Operator::GreaterThan,
            Token::LessThan => Operator::LessThan,
            Token::NotIn => Operator::NotIn,
            Token::NotEquals => Operator::NotEquals,
            _ => return Err(RequirementError::ExpectedOperator(lit)),
        })
    }

    fn parse_values(&mut self) -> Result<BTreeSet<String>, RequirementError> {
        let (tok, lit) = self.consume(Context::Values);
        if tok != Token::OpenPar {
            return Err(RequirementError::ExpectedOpenPar(lit));
        }
        let (tok, lit) = self.lookahead(Context::Values);
        match tok {
            Token::Identifier | Token::Comma => {
                let set = self.parse_identifiers_list()?;
                if self.consume(Context::Values).0 != Token::ClosedPar {
                    return Err(RequirementError::ExpectedClosedPar(lit));
                }
                Ok(set)
            }
            Token::ClosedPar => {
                self.consume(Context::Values);
                Ok(BTreeSet::from([String::new()]))
            }
            _ => Err(RequirementError::ExpectedValues(lit)),
        }
    }

    fn parse_identifiers_list(&mut self) -> Result<BTreeSet<String>, RequirementError> {
        let mut set = BTreeSet::new();
        loop {
            let (tok, lit) = self.consume(Context::Values);
            match tok {
                Token::Identifier => {
                    set.insert(lit);
                    match self.lookahead(Context::Values) {
                        (Token::Comma, _) => {}
                        (Token::ClosedPar, _) => return Ok(set),
                        (_, lit2) => return Err(RequirementError::ExpectedSeparator(lit2)),
                    }
                }
                Token::Comma => {
                    // "(," ",)" and ",," all contribute the empty value
                    let next = self.lookahead(Context::Values).0;
                    if set.is_empty() || matches!(next, Token::ClosedPar | Token::Comma) {
                        set.insert(String::new());
                    }
                    if next == Token::ClosedPar {
                        return Ok(set);
                    }
                }
                _ => return Err(RequirementError::ExpectedListItem(lit)),
            }
        }
    }

    fn parse_exact_value(&mut self) -> Result<BTreeSet<String>, RequirementError> {
        if matches!(
            self.lookahead(Context::Values).0,
            Token::EndOfString | Token::Comma
        ) {
            return Ok(BTreeSet::from([String::new()]));
        }
        match self.consume(Context::Values) {
            (Token::Identifier, lit) => Ok(BTreeSet::from([lit])),
            (_, lit) => Err(RequirementError::ExpectedValue(lit)),
        }
    }
}
