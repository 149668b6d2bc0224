//! Label selectors (`labelSelector`): apimachinery's `labels.Parse` lexer, parser and matching.
//!
//! Grammar (k8s.io/apimachinery/pkg/labels/selector.go):
//!
//! ```text
//! <selector>    ::= <requirement> | <requirement> "," <selector>
//! <requirement> ::= [!] KEY [ ("in" | "notin") "(" VALUES ")" | ("=" | "==" | "!=" | ">" | "<") VALUE ]
//! ```
//!
//! Whitespace (space, tab, CR, LF) separates tokens; `in`/`notin` are keywords only in operator
//! position. Keys are qualified names (optional DNS-subdomain prefix and `/`, name of at most 63
//! characters), values label values; error texts are upstream's (kube 1.35 wording), including
//! the `<nil>` field path of an invalid key.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use serde_json::{Map, Value};

/// Why a label selector was rejected; `Display` is apimachinery's text (callers wrap it in a 400).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SelectorError(String);

/// How a requirement relates a label's value to its values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operator {
    Equals,
    DoubleEquals,
    NotEquals,
    In,
    NotIn,
    Exists,
    DoesNotExist,
    GreaterThan,
    LessThan,
}

/// One requirement: a key, an operator and its (sorted, de-duplicated) values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Requirement {
    key: String,
    operator: Operator,
    values: Vec<String>,
}

impl Requirement {
    pub fn key(&self) -> &str {
        &self.key
    }

    pub fn operator(&self) -> Operator {
        self.operator
    }

    pub fn values(&self) -> &[String] {
        &self.values
    }

    /// Whether a label value (`None`: the key is absent) satisfies this requirement;
    /// `!=` and `notin` hold for an absent key, as upstream.
    pub fn matches(&self, value: Option<&str>) -> bool {
        let has = |v: &str| self.values.iter().any(|x| x == v);
        match self.operator {
            Operator::In | Operator::Equals | Operator::DoubleEquals => value.is_some_and(has),
            Operator::NotIn | Operator::NotEquals => value.is_none_or(|v| !has(v)),
            Operator::Exists => value.is_some(),
            Operator::DoesNotExist => value.is_none(),
            Operator::GreaterThan | Operator::LessThan => self.compare(value),
        }
    }

    fn compare(&self, value: Option<&str>) -> bool {
        let (Some(Ok(actual)), [wanted]) = (value.map(str::parse::<i64>), self.values.as_slice())
        else {
            return false;
        };
        match (wanted.parse::<i64>(), self.operator) {
            (Ok(w), Operator::GreaterThan) => actual > w,
            (Ok(w), Operator::LessThan) => actual < w,
            _ => false,
        }
    }
}

/// A parsed label selector: the conjunction of its requirements, sorted by key.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LabelSelector {
    requirements: Vec<Requirement>,
}

impl LabelSelector {
    /// Parses a `labelSelector` value; `""` selects everything.
    pub fn parse(selector: &str) -> Result<Self, SelectorError> {
        let mut parser = Parser {
            items: lex(selector),
            pos: 0,
        };
        let mut requirements = parser.parse().map_err(SelectorError)?;
        requirements.sort_by(|a, b| a.key.cmp(&b.key));
        Ok(Self { requirements })
    }

    pub fn requirements(&self) -> &[Requirement] {
        &self.requirements
    }

    /// Whether the selector restricts nothing.
    pub fn is_empty(&self) -> bool {
        self.requirements.is_empty()
    }

    /// Matches an object's `metadata.labels` (absent: pass an empty map). As upstream's
    /// unstructured accessor, `null` values read as `""` and any other non-string value makes
    /// the whole map read as empty.
    pub fn matches(&self, labels: &Map<String, Value>) -> bool {
        let valid = labels.values().all(|v| v.is_string() || v.is_null());
        self.matches_with(|key| {
            let value = labels.get(key).filter(|_| valid)?;
            Some(value.as_str().unwrap_or(""))
        })
    }

    pub fn matches_btree(&self, labels: &BTreeMap<String, String>) -> bool {
        self.matches_with(|key| labels.get(key).map(String::as_str))
    }

    /// Matches labels given by a lookup (`None`: the label is absent).
    pub fn matches_with<'a>(&self, lookup: impl Fn(&str) -> Option<&'a str>) -> bool {
        self.requirements.iter().all(|r| r.matches(lookup(&r.key)))
    }

    /// The single value the requirement on `key` pins (`=`, `==` or one-value `in`).
    pub fn requires_exact_match(&self, key: &str) -> Option<&str> {
        let r = self.requirements.iter().find(|r| r.key == key)?;
        let pinning = matches!(
            r.operator,
            Operator::Equals | Operator::DoubleEquals | Operator::In
        );
        match r.values.as_slice() {
            [only] if pinning => Some(only),
            _ => None,
        }
    }
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

    fn parse(&mut self) -> Result<Vec<Requirement>, String> {
        let mut requirements = Vec::new();
        loop {
            let (tok, lit) = self.lookahead(Context::Values);
            match tok {
                Token::Identifier | Token::DoesNotExist => {
                    let r = self
                        .parse_requirement()
                        .map_err(|e| format!("unable to parse requirement: {e}"))?;
                    requirements.push(r);
                    match self.consume(Context::Values) {
                        (Token::EndOfString, _) => return Ok(requirements),
                        (Token::Comma, _) => match self.lookahead(Context::Values) {
                            (Token::Identifier | Token::DoesNotExist, _) => {}
                            (_, l2) => {
                                return Err(format!(
                                    "found '{l2}', expected: identifier after ','"
                                ));
                            }
                        },
                        (_, l) => {
                            return Err(format!("found '{l}', expected: ',' or 'end of string'"));
                        }
                    }
                }
                Token::EndOfString => return Ok(requirements),
                _ => {
                    return Err(format!(
                        "found '{lit}', expected: !, identifier, or 'end of string'"
                    ));
                }
            }
        }
    }

    fn parse_requirement(&mut self) -> Result<Requirement, String> {
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
        check_values(&key, operator, &values)?;
        Ok(Requirement {
            key,
            operator,
            values,
        })
    }

    /// `None` when an operator follows the key; `DoesNotExist` for `!key` whatever follows.
    fn parse_key_and_infer_operator(&mut self) -> Result<(String, Option<Operator>), String> {
        let mut operator = None;
        let (mut tok, mut lit) = self.consume(Context::Values);
        if tok == Token::DoesNotExist {
            operator = Some(Operator::DoesNotExist);
            (tok, lit) = self.consume(Context::Values);
        }
        if tok != Token::Identifier {
            return Err(format!("found '{lit}', expected: identifier"));
        }
        check_key(&lit)?;
        let (next, _) = self.lookahead(Context::Values);
        if matches!(next, Token::EndOfString | Token::Comma) && operator.is_none() {
            operator = Some(Operator::Exists);
        }
        Ok((lit, operator))
    }

    fn parse_operator(&mut self) -> Result<Operator, String> {
        let (tok, lit) = self.consume(Context::KeyAndOperator);
        Ok(match tok {
            Token::In => Operator::In,
            Token::Equals => Operator::Equals,
            Token::DoubleEquals => Operator::DoubleEquals,
            Token::GreaterThan => Operator::GreaterThan,
            Token::LessThan => Operator::LessThan,
            Token::NotIn => Operator::NotIn,
            Token::NotEquals => Operator::NotEquals,
            _ => return Err(format!("found '{lit}', expected: {BINARY_OPERATORS}")),
        })
    }

    fn parse_values(&mut self) -> Result<BTreeSet<String>, String> {
        let (tok, lit) = self.consume(Context::Values);
        if tok != Token::OpenPar {
            return Err(format!("found '{lit}' expected: '('"));
        }
        let (tok, lit) = self.lookahead(Context::Values);
        match tok {
            Token::Identifier | Token::Comma => {
                let set = self.parse_identifiers_list()?;
                if self.consume(Context::Values).0 != Token::ClosedPar {
                    return Err(format!("found '{lit}', expected: ')'"));
                }
                Ok(set)
            }
            Token::ClosedPar => {
                self.consume(Context::Values);
                Ok(BTreeSet::from([String::new()]))
            }
            _ => Err(format!("found '{lit}', expected: ',', ')' or identifier")),
        }
    }

    fn parse_identifiers_list(&mut self) -> Result<BTreeSet<String>, String> {
        let mut set = BTreeSet::new();
        loop {
            let (tok, lit) = self.consume(Context::Values);
            match tok {
                Token::Identifier => {
                    set.insert(lit);
                    match self.lookahead(Context::Values) {
                        (Token::Comma, _) => {}
                        (Token::ClosedPar, _) => return Ok(set),
                        (_, lit2) => return Err(format!("found '{lit2}', expected: ',' or ')'")),
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
                _ => return Err(format!("found '{lit}', expected: ',', or identifier")),
            }
        }
    }

    fn parse_exact_value(&mut self) -> Result<BTreeSet<String>, String> {
        if matches!(
            self.lookahead(Context::Values).0,
            Token::EndOfString | Token::Comma
        ) {
            return Ok(BTreeSet::from([String::new()]));
        }
        match self.consume(Context::Values) {
            (Token::Identifier, lit) => Ok(BTreeSet::from([lit])),
            (_, lit) => Err(format!("found '{lit}', expected: identifier")),
        }
    }
}

const NAME_MSG: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const NAME_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const NAME_EXAMPLES: [&str; 3] = ["MyName", "my.name", "123-abc"];
const VALUE_MSG: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const VALUE_FMT: &str = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
const DNS_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS_FMT: &str = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";

fn regex_error(msg: &str, fmt: &str, examples: &[&str]) -> String {
    let examples: Vec<String> = examples.iter().map(|e| format!("'{e}'")).collect();
    format!(
        "{msg} (e.g. {}, regex used for validation is '{fmt}')",
        examples.join(" or ")
    )
}

fn max_len_error(max: usize) -> String {
    format!("must be no more than {max} bytes")
}

/// `NAME_FMT`: alphanumerics, `-`, `_`, `.`, starting and ending alphanumeric.
fn is_name(s: &str) -> bool {
    let b = s.as_bytes();
    let ends = b
        .first()
        .zip(b.last())
        .is_some_and(|(f, l)| f.is_ascii_alphanumeric() && l.is_ascii_alphanumeric());
    ends && b
        .iter()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
}

fn is_dns1123_subdomain(s: &str) -> bool {
    s.split('.').all(|label| {
        let b = label.as_bytes();
        let alnum = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit();
        b.first()
            .zip(b.last())
            .is_some_and(|(f, l)| alnum(f) && alnum(l))
            && b.iter().all(|c| alnum(c) || *c == b'-')
    })
}

/// apimachinery's `IsLabelKey` (`IsQualifiedName`) messages.
fn key_errors(key: &str) -> Vec<String> {
    let mut errs = Vec::new();
    let name = match key.split('/').collect::<Vec<_>>().as_slice() {
        [name] => *name,
        [prefix, name] => {
            if prefix.is_empty() {
                errs.push("prefix part must be non-empty".to_owned());
            } else {
                if prefix.len() > 253 {
                    errs.push(format!("prefix part {}", max_len_error(253)));
                }
                if !is_dns1123_subdomain(prefix) {
                    errs.push(format!(
                        "prefix part {}",
                        regex_error(DNS_MSG, DNS_FMT, &["example.com"])
                    ));
                }
            }
            *name
        }
        _ => {
            let re = regex_error(NAME_MSG, NAME_FMT, &NAME_EXAMPLES);
            return vec![format!(
                "a valid label key {re} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
            )];
        }
    };
    if name.is_empty() {
        errs.push("name part must be non-empty".to_owned());
    } else if name.len() > 63 {
        errs.push(format!("name part {}", max_len_error(63)));
    }
    if !is_name(name) {
        errs.push(format!(
            "name part {}",
            regex_error(NAME_MSG, NAME_FMT, &NAME_EXAMPLES)
        ));
    }
    errs
}

fn value_errors(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 63 {
        errs.push(max_len_error(63));
    }
    if !value.is_empty() && !is_name(value) {
        errs.push(regex_error(
            VALUE_MSG,
            VALUE_FMT,
            &["MyValue", "my_value", "12345"],
        ));
    }
    errs
}

/// A `field.Invalid` error's text.
fn invalid(path: &str, value: &str, detail: &str) -> String {
    format!("{path}: Invalid value: {}: {detail}", go_quote(value))
}

/// Go's `%q`, close enough for the printable/non-printable split of label text.
fn go_quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        let _ = match c {
            '"' | '\\' => write!(out, "\\{c}"),
            '\u{7}' => write!(out, "\\a"),
            '\u{8}' => write!(out, "\\b"),
            '\u{c}' => write!(out, "\\f"),
            '\n' => write!(out, "\\n"),
            '\r' => write!(out, "\\r"),
            '\t' => write!(out, "\\t"),
            '\u{b}' => write!(out, "\\v"),
            c if u32::from(c) < 0x20 || c == '\u{7f}' => write!(out, "\\x{:02x}", u32::from(c)),
            c if c.is_control() || (c.is_whitespace() && c != ' ') => {
                write!(out, "\\u{:04x}", u32::from(c))
            }
            c => write!(out, "{c}"),
        };
    }
    out.push('"');
    out
}

/// Key check done while parsing; its `field.Path` is nil, printed `<nil>` by upstream.
fn check_key(key: &str) -> Result<(), String> {
    let errs = key_errors(key);
    if errs.is_empty() {
        Ok(())
    } else {
        Err(invalid("<nil>", key, &errs.join("; ")))
    }
}

/// `NewRequirement`'s value checks, aggregated (deduplicated, `[a, b]` when several).
fn check_values(key: &str, op: Operator, values: &[String]) -> Result<(), String> {
    let mut errs: Vec<String> = Vec::new();
    if matches!(op, Operator::GreaterThan | Operator::LessThan) {
        for (i, v) in values
            .iter()
            .enumerate()
            .filter(|(_, v)| v.parse::<i64>().is_err())
        {
            errs.push(invalid(
                &format!("values[{i}]"),
                v,
                "for 'Gt', 'Lt' operators, the value must be an integer",
            ));
        }
    }
    for (i, v) in values.iter().enumerate() {
        let detail = value_errors(v);
        if !detail.is_empty() {
            errs.push(invalid(
                &format!("values[{i}][{key}]"),
                v,
                &detail.join("; "),
            ));
        }
    }
    let mut unique: Vec<String> = Vec::with_capacity(errs.len());
    for e in errs {
        if !unique.contains(&e) {
            unique.push(e);
        }
    }
    match unique.as_slice() {
        [] => Ok(()),
        [one] => Err(one.clone()),
        many => Err(format!("[{}]", many.join(", "))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `key op values` per requirement, `;`-joined, in parsed (key-sorted) order.
    fn summary(sel: &LabelSelector) -> String {
        let parts: Vec<String> = sel
            .requirements()
            .iter()
            .map(|r| format!("{} {:?} [{}]", r.key(), r.operator(), r.values().join(",")))
            .collect();
        parts.join("; ")
    }

    #[test]
    fn parse_valid_selectors_yield_sorted_requirements() {
        #[rustfmt::skip]
        let cases = [
            ("empty", "", ""),
            ("whitespace only", " \t", ""),
            ("equals", "x=a", "x Equals [a]"),
            ("double equals", "x==a", "x DoubleEquals [a]"),
            ("not equals", "x!=a,y=b", "x NotEquals [a]; y Equals [b]"),
            ("empty value", "x=", "x Equals []"),
            ("empty value then comma", "x=,z= ", "x Equals []; z Equals []"),
            ("exists", "x", "x Exists []"),
            ("exists trailing space", "a ", "a Exists []"),
            ("leading carriage return", "\rx", "x Exists []"),
            ("does not exist", "!x", "x DoesNotExist []"),
            ("greater and less", "x>1,z<5", "x GreaterThan [1]; z LessThan [5]"),
            ("sorted by key", "z=c,x=a,y=b", "x Equals [a]; y Equals [b]; z Equals [c]"),
            ("prefixed key", "this-is-a-dns.domain.com/key-with-dash", "this-is-a-dns.domain.com/key-with-dash Exists []"),
            ("in with spaces", "0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)", "0.1.2.domain/99 NotIn [10.10.100.1,tick.tack.clock]"),
            ("tabs and newlines", "x  notin\t\n(abc,def)", "x NotIn [abc,def]"),
            ("in values sorted and deduplicated", "x in (def,abc,abc)", "x In [abc,def]"),
            ("empty set", "x in ()", "x In []"),
            ("trailing comma", "x in (abc,)", "x In [,abc]"),
            ("leading comma", "x notin (, a)", "x NotIn [,a]"),
            ("consecutive commas", "x in (a,,a,,a,,)", "x In [,a]"),
            ("keywords as values", "a in (x,y,notin, z,in)", "a In [in,notin,x,y,z]"),
            ("keyword as key and value", "notin=in", "notin Equals [in]"),
            ("mixed", "x notin (abc,,def),bar,z in (),w", "bar Exists []; w Exists []; x NotIn [,abc,def]; z In []"),
        ];
        for (name, input, want) in cases {
            let sel = LabelSelector::parse(input).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(summary(&sel), want, "{name}");
            assert_eq!(sel.is_empty(), want.is_empty(), "{name}");
        }
    }

    #[test]
    fn parse_invalid_selectors_return_upstream_text() {
        const KEY_RE: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName' or 'my.name' or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
        const VALUE_RE: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue' or 'my_value' or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
        let long = "a".repeat(64);
        let (long_key, long_value) = (format!("{long}=x"), format!("x={long}"));
        #[rustfmt::skip]
        let cases: Vec<(&str, &str, String)> = vec![
            ("double bar", "x=a||y=b", format!("unable to parse requirement: values[0][x]: Invalid value: \"a||y\": {VALUE_RE}")),
            ("two operators", "x==a==b", "found '==', expected: ',' or 'end of string'".into()),
            ("not with value", "!x=a", "found '=', expected: ',' or 'end of string'".into()),
            ("lt not integer", "x<a", "unable to parse requirement: values[0]: Invalid value: \"a\": for 'Gt', 'Lt' operators, the value must be an integer".into()),
            ("double comma", "x,,y", "found ',', expected: identifier after ','".into()),
            ("leading comma", ",x,y", "found ',', expected: !, identifier, or 'end of string'".into()),
            ("trailing comma", "a in (xyz),", "found '', expected: identifier after ','".into()),
            ("unknown operator", "x nott in (y)", "unable to parse requirement: found 'nott', expected: in, notin, =, ==, !=, gt, lt".into()),
            ("missing comma between requirements", "a in (xyz)b notin ()", "found 'b', expected: ',' or 'end of string'".into()),
            ("no comma in set", "a in (xyz abc)", "unable to parse requirement: found 'abc', expected: ',' or ')'".into()),
            ("unclosed set", "a notin(", "unable to parse requirement: found '', expected: ',', ')' or identifier".into()),
            ("missing open paren", "a in x", "unable to parse requirement: found 'x' expected: '('".into()),
            ("operator in set", "a in (x,=)", "unable to parse requirement: found '=', expected: ',', or identifier".into()),
            ("paren after key", "a (", "unable to parse requirement: found '(', expected: in, notin, =, ==, !=, gt, lt".into()),
            ("paren alone", "(", "found '(', expected: !, identifier, or 'end of string'".into()),
            ("bang alone", "!", "unable to parse requirement: found '', expected: identifier".into()),
            ("value is operator", "x=!", "unable to parse requirement: found '!', expected: identifier".into()),
            ("bad key", "x/y/z", format!("unable to parse requirement: <nil>: Invalid value: \"x/y/z\": a valid label key {KEY_RE} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')")),
            ("empty prefix", "/x", "unable to parse requirement: <nil>: Invalid value: \"/x\": prefix part must be non-empty".into()),
            ("uppercase prefix", "A/x", "unable to parse requirement: <nil>: Invalid value: \"A/x\": prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')".into()),
            ("empty name", "a/", format!("unable to parse requirement: <nil>: Invalid value: \"a/\": name part must be non-empty; name part {KEY_RE}")),
            ("long name", &long_key, format!("unable to parse requirement: <nil>: Invalid value: \"{long}\": name part must be no more than 63 bytes")),
            ("long value", &long_value, format!("unable to parse requirement: values[0][x]: Invalid value: \"{long}\": must be no more than 63 bytes")),
            ("quoted key", "a\"b", format!("unable to parse requirement: <nil>: Invalid value: \"a\\\"b\": name part {KEY_RE}")),
            ("two bad values", "x in (-a,-b)", format!("unable to parse requirement: [values[0][x]: Invalid value: \"-a\": {VALUE_RE}, values[1][x]: Invalid value: \"-b\": {VALUE_RE}]")),
        ];
        for (name, input, want) in cases {
            let err = LabelSelector::parse(input).expect_err(name);
            assert_eq!(err.to_string(), want, "{name}");
        }
    }

    #[test]
    fn matches_labels_follows_upstream_semantics() {
        let labels: BTreeMap<String, String> = [("x", "foo"), ("y", ""), ("z", "2")]
            .map(|(k, v)| (k.into(), v.into()))
            .into();
        #[rustfmt::skip]
        let cases = [
            ("empty", "", true),
            ("equals", "x=foo", true),
            ("equals other", "x=bar", false),
            ("equals absent", "w=foo", false),
            ("not equals absent", "w!=foo", true),
            ("not equals same", "x!=foo", false),
            ("in", "x in (bar,foo)", true),
            ("in absent", "w in (foo)", false),
            ("in empty value", "y in ()", true),
            ("notin absent", "w notin (foo)", true),
            ("notin present", "x notin (foo)", false),
            ("exists", "y", true),
            ("exists absent", "w", false),
            ("does not exist", "!w", true),
            ("does not exist present", "!y", false),
            ("greater", "z>1", true),
            ("greater equal", "z>2", false),
            ("less", "z<3", true),
            ("greater not integer label", "x>1", false),
            ("greater absent", "w>1", false),
            ("conjunction", "x=foo,y,!w,z<10", true),
            ("conjunction fails", "x=foo,w", false),
        ];
        for (name, input, want) in cases {
            let sel = LabelSelector::parse(input).expect(name);
            assert_eq!(sel.matches_btree(&labels), want, "{name}");
            let json: Map<String, Value> = labels
                .iter()
                .map(|(k, v)| (k.clone(), Value::from(v.clone())))
                .collect();
            assert_eq!(sel.matches(&json), want, "{name} (json)");
        }
    }

    #[test]
    fn matches_json_labels_non_string_values_read_as_empty_map() {
        let labels: Map<String, Value> =
            serde_json::from_str(r#"{"a": "1", "n": null, "b": 2}"#).unwrap();
        let nulls: Map<String, Value> = serde_json::from_str(r#"{"a": "1", "n": null}"#).unwrap();
        #[rustfmt::skip]
        let cases = [
            ("non-string hides all labels", &labels, "a=1", false),
            ("non-string map empty for notin", &labels, "!a", true),
            ("null reads as empty string", &nulls, "n=", true),
            ("null key exists", &nulls, "n,a=1", true),
        ];
        for (name, labels, input, want) in cases {
            let sel = LabelSelector::parse(input).expect(name);
            assert_eq!(sel.matches(labels), want, "{name}");
        }
    }

    #[test]
    fn requires_exact_match_pins_single_values() {
        #[rustfmt::skip]
        let cases = [
            ("equals", "app=web", Some("web")),
            ("double equals", "app==web", Some("web")),
            ("single in", "app in (web)", Some("web")),
            ("multi in", "app in (web,db)", None),
            ("not equals", "app!=web", None),
            ("other key", "tier=web", None),
        ];
        for (name, input, want) in cases {
            let sel = LabelSelector::parse(input).expect(name);
            assert_eq!(sel.requires_exact_match("app"), want, "{name}");
        }
    }
}
