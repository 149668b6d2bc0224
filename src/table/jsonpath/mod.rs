//! client-go `util/jsonpath` templates (`{.status.conditions[?(@.type=="Ready")].status}`):
//! parsed once, evaluated over decoded JSON with missing keys allowed, as printer columns use it.
//!
//! Values are treated as Kubernetes' unstructured decoding types them: integers that fit are
//! `int64`, other numbers `float64`. Go's map iteration is unordered; here maps are walked in
//! key order. The `range`/`end` template keywords parse but fail at evaluation (printer columns
//! never use them).

mod eval;
mod parse;
#[cfg(test)]
mod tests;
mod unquote;

use serde_json::Value;

use crate::gofmt;

/// A parse failure, worded as client-go's parser words it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// The input ended (or a line ended) inside `{ ... }`.
    #[error("unclosed action")]
    UnclosedAction,
    /// A character that cannot start anything inside an action.
    #[error("unrecognized character in action: {0}")]
    UnrecognizedCharacter(String),
    /// A `+`/`-`/digit run that is neither an integer nor a float.
    #[error("cannot parse number {0}")]
    InvalidNumber(String),
    /// `[` without `]`.
    #[error("unterminated array")]
    UnterminatedArray,
    /// The text inside `[...]` is neither a key, a union nor a slice.
    #[error("invalid array index {0}")]
    InvalidArrayIndex(String),
    /// A slice bound that does not fit in an integer.
    #[error("array index {0} is not a number")]
    ArrayIndexNotNumber(String),
    /// `[?(` without a closing `)`.
    #[error("unterminated filter")]
    UnterminatedFilter,
    /// `[?(...)` not followed by `]`.
    #[error("unclosed array expect ]")]
    UnclosedFilter,
    /// A quote without its closing quote.
    #[error("unterminated quoted string")]
    UnterminatedQuote,
    /// A quoted string with an invalid escape.
    #[error("unquote string {0} error invalid syntax")]
    InvalidQuotedString(String),
    /// `....`: a recursive descent directly after another.
    #[error("invalid multiple recursive descent")]
    MultipleRecursiveDescent,
}

/// An evaluation failure; for a printer column any of these yields an empty (null) cell.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EvalError {
    /// An index or slice applied to something that is not an array.
    #[error("{0} is not array or slice")]
    NotArray(&'static str),
    /// An index outside the array.
    #[error("array index out of bounds: index {index}, length {length}")]
    IndexOutOfBounds { index: i64, length: i64 },
    /// A slice whose start is after its end.
    #[error("starting index {start} is greater than ending index {end}")]
    StartAfterEnd { start: i64, end: i64 },
    /// A slice step of zero or less.
    #[error("step must be > 0")]
    StepNotPositive,
    /// A filter applied to something that is not an array.
    #[error("{0} is not array or slice and cannot be filtered")]
    NotFilterable(&'static str),
    /// A filter side that produced several values.
    #[error("can only compare one element at a time")]
    CompareMany,
    /// A comparison with null, a map or an array (or ordering booleans).
    #[error("invalid type for comparison")]
    BadComparisonType,
    /// A comparison between different kinds (say a string and a number).
    #[error("incompatible types for comparison")]
    BadComparison,
    /// A filter operator other than `==`, `!=`, `<`, `>`, `<=`, `>=`.
    #[error("unrecognized filter operator {0}")]
    UnrecognizedOperator(String),
    /// A bare word in an action (`range` and `end` included).
    #[error("unrecognized identifier {0}")]
    UnrecognizedIdentifier(String),
}

/// One parsed element of a template.
#[derive(Debug, Clone, PartialEq)]
enum Node {
    /// `{ ... }`: the nodes of one action, applied in sequence.
    List(Vec<Node>),
    /// Literal text, outside an action or quoted inside one.
    Text(String),
    /// `.name`: a map key.
    Field(String),
    /// A bare word such as `range`.
    Identifier(String),
    /// `[i]`, `[a:b:c]`, `[*]`.
    Array([Param; 3]),
    /// `[?(left op right)]`, or `[?(left)]` with operator `exists`.
    Filter {
        left: Vec<Node>,
        right: Vec<Node>,
        operator: String,
    },
    Int(i64),
    Float(f64),
    Bool(bool),
    /// `.*`.
    Wildcard,
    /// `..`.
    Recursive,
    /// `[a, b]`: each branch applied to the same input.
    Union(Vec<Vec<Node>>),
}

/// A slice bound: start, end or step.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Param {
    value: i64,
    /// Whether the bound was written (or derived) at parse time.
    known: bool,
    /// The end bound of a single index `[i]`, derived as `i + 1`.
    derived: bool,
}

/// One value produced by evaluation: part of the input, or a literal from the template.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Item<'a> {
    /// A value inside the evaluated document (JSON `null` is Go's nil).
    Json(&'a Value),
    /// A byte of a string, produced by `*` or `..` over a string (Go `uint8`).
    Byte(u8),
    /// A quoted literal or text outside actions.
    Text(&'a str),
    Int(i64),
    Float(f64),
    Bool(bool),
}

impl Item<'_> {
    /// The text client-go's `PrintResults` writes for this single value: strings raw, maps and
    /// arrays as JSON, numbers as Go prints them, JSON null as `<no value>` (printer columns
    /// pass the unwrapped nil, which Go's template printer renders that way).
    pub fn print(&self) -> String {
        match self {
            Item::Json(Value::Null) => "<no value>".to_owned(),
            Item::Json(Value::Bool(b)) | Item::Bool(b) => b.to_string(),
            Item::Json(Value::Number(n)) => gofmt::Num::of(n).go(),
            Item::Json(Value::String(s)) => s.clone(),
            Item::Json(v @ (Value::Array(_) | Value::Object(_))) => gofmt::marshal(v),
            Item::Byte(b) => b.to_string(),
            Item::Text(s) => (*s).to_owned(),
            Item::Int(i) => i.to_string(),
            Item::Float(f) => gofmt::float_v(*f),
        }
    }
}

/// A parsed template, ready to evaluate any number of times.
#[derive(Debug, Clone, PartialEq)]
pub struct JsonPath {
    root: Vec<Node>,
}

impl JsonPath {
    /// Parses a full template such as `{.spec.replicas}` (text outside braces is literal).
    pub fn parse(template: &str) -> Result<JsonPath, ParseError> {
        parse::parse_template(template).map(|root| JsonPath { root })
    }

    /// client-go's `FindResults` with `AllowMissingKeys(true)`: one result list per top-level
    /// template element, or the first error met anywhere.
    pub fn find_results<'a>(&'a self, data: &'a Value) -> Result<Vec<Vec<Item<'a>>>, EvalError> {
        let input = [Item::Json(data)];
        self.root
            .iter()
            .map(|node| eval::walk(&input, node).map_err(|failure| failure.error))
            .collect()
    }

    /// The first value of the first result list, as printer columns read it; `None` when there
    /// is no value or evaluation failed.
    pub fn first<'a>(&'a self, data: &'a Value) -> Option<Item<'a>> {
        let results = self.find_results(data).ok()?;
        results.into_iter().next()?.into_iter().next()
    }
}
