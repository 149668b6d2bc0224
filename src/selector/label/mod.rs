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
//!
//! Layout: `lex` tokenizes and parses into [`Requirement`]s; `validate` checks keys and values
//! with upstream's messages; `metav1` converts an API object's `metav1.LabelSelector`; this
//! module holds the types and matching.

mod lex;
mod metav1;
#[cfg(test)]
mod tests;
mod validate;

/// Label key and value checks, shared with ObjectMeta validation.
pub(crate) use validate::{key_errors as label_key_errors, value_errors as label_value_errors};

use std::collections::BTreeMap;

use serde_json::{Map, Value};

pub use lex::RequirementError;

/// Why a label selector was rejected; `Display` is apimachinery's text (callers wrap it in a 400).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SelectorError {
    /// One requirement (key, operator, values) is malformed or invalid.
    #[error("unable to parse requirement: {0}")]
    Requirement(RequirementError),
    /// A `,` is followed by something other than `!` or a key (`x,,y`, a trailing `,`).
    #[error("found '{0}', expected: identifier after ','")]
    AfterComma(String),
    /// A requirement is followed by something other than `,` or the end (`x==a==b`).
    #[error("found '{0}', expected: ',' or 'end of string'")]
    AfterRequirement(String),
    /// The selector starts with something other than `!` or a key (`,x`, `(`).
    #[error("found '{0}', expected: !, identifier, or 'end of string'")]
    Start(String),
}

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
        let mut requirements = lex::parse(selector)?;
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
