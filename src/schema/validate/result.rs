//! Validation results as kube-openapi accumulates them (errors deduplicated by message,
//! a match count that picks the best failing `anyOf`/`oneOf` branch). A failure keeps
//! its position and data and is only rendered — into kube-openapi's message and the
//! field error `kubeOpenAPIResultToFieldErrors` makes of it — when that text is needed,
//! so failing branches that a later `anyOf` branch makes moot cost no formatting.
//!
//! Deliberate deviation for pathological input: once the issues of one walk carry
//! [`PATH_BUDGET`] bytes of path and data text (a megabyte-long map key is copied into
//! the path of every error beneath it), further issues are kept unrendered ("muted"):
//! they still make a value invalid but are not reported, unless nothing else is.

use std::cell::{Cell, OnceCell};
use std::collections::HashSet;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::rc::Rc;

use serde_json::Value;

use super::path::{Seg, openapi_name};
use super::walk::Walker;
use crate::error::{ErrorType, FieldError};
use crate::formats::strfmt;
use crate::gofmt::{Num, field_value, marshal, quote};

/// The errors kube reports on the validator's root path as `Invalid(path, "", msg)`.
#[derive(Clone, Copy, Debug)]
pub(super) enum Plain<'v> {
    AnyOf,
    /// oneOf with this many valid branches (not one).
    OneOf(usize),
    /// allOf; `true` when no branch validated.
    AllOf(bool),
    Not,
    /// A number outside its format's range: what (`Checked`, `Maximum boundary`, ...),
    /// type and format.
    Range(&'static str, &'v str, &'v str),
}

/// What failed, with the data its messages need.
#[derive(Debug)]
pub(super) enum Kind<'v> {
    Plain(Plain<'v>),
    /// `InvalidType`: expected type (or format) and the found type (or value).
    Type(&'v str, &'v str),
    Required(&'v str),
    Enum(&'v Value, &'v [Value]),
    TooLong(i64),
    /// maxItems / maxProperties: count, limit, `items` or `properties`.
    TooMany(usize, i64, &'static str),
    /// minItems / minProperties.
    TooFew(usize, i64, &'static str),
    /// `field.Invalid(<path>, bad, "<path> in body <text>")`.
    Body(String, String),
    FactorNotPositive(Num),
    Forbidden(&'v str),
}

/// Bytes of path (and data) text the issues of one walk may carry before further issues
/// are muted: far above what any 3 MiB body yields without a very long repeated key.
pub(super) const PATH_BUDGET: usize = 16 << 20;

/// One failure at a position.
#[derive(Debug)]
pub(super) struct Issue<'v> {
    path: Vec<Seg<'v>>,
    kind: Kind<'v>,
    /// Past the walk's [`PATH_BUDGET`]: not rendered unless it is all there is.
    muted: bool,
    message: OnceCell<Message>,
}

/// A rendered message with its hash, so that deduplication hashes each text once.
#[derive(Clone, Debug)]
struct Message {
    hash: u64,
    text: Rc<str>,
}

impl Message {
    fn new(text: String) -> Self {
        let mut hasher = DefaultHasher::new();
        text.hash(&mut hasher);
        Message {
            hash: hasher.finish(),
            text: text.into(),
        }
    }
}

impl PartialEq for Message {
    fn eq(&self, other: &Self) -> bool {
        self.hash == other.hash && self.text == other.text
    }
}

impl Eq for Message {}

impl Hash for Message {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

impl<'v> Issue<'v> {
    /// kube-openapi's message: the text errors are deduplicated by.
    fn message(&self) -> &str {
        &self.rendered().text
    }

    fn rendered(&self) -> &Message {
        self.message
            .get_or_init(|| Message::new(self.render_message()))
    }

    /// What deduplication compares: the message, or `None` for a muted issue.
    fn dedup_key(&self) -> Option<&Message> {
        (!self.muted).then(|| self.rendered())
    }

    fn render_message(&self) -> String {
        let name = openapi_name(&self.path);
        match &self.kind {
            Kind::Plain(plain) => plain_message(*plain, &name),
            Kind::Type(expected, found) => {
                format!(
                    "{name} in body must be of type {expected}: {}",
                    quote(found)
                )
            }
            Kind::Required(key) => format!("{name}.{key} in body is required"),
            Kind::Enum(_, allowed) => {
                let allowed = marshal(&Value::from(allowed.to_vec()));
                format!("{name} in body should be one of {allowed}")
            }
            Kind::TooLong(max) => format!("{name} in body should be at most {max} chars long"),
            Kind::TooMany(_, max, what) => {
                format!("{name} in body should have at most {max} {what}")
            }
            Kind::TooFew(_, min, what) => {
                format!("{name} in body should have at least {min} {what}")
            }
            Kind::Body(_, text) => format!("{name} in body {text}"),
            Kind::FactorNotPositive(factor) => format!(
                "factor MultipleOf declared for {name} must be positive: {}",
                factor.go()
            ),
            Kind::Forbidden(key) => format!("{name}.{key} in body is a forbidden property"),
        }
    }

    /// The field error kube reports; `prefix` is the validator's field path.
    pub(super) fn into_error(self, prefix: Option<&str>) -> FieldError {
        let message = self.message().to_string();
        let name = match &self.kind {
            Kind::Plain(_) => String::new(),
            Kind::Required(key) => format!("{}.{key}", openapi_name(&self.path)),
            _ => openapi_name(&self.path),
        };
        let (reason, detail) = match self.kind {
            Kind::Type(_, found) => (
                ErrorType::TypeInvalid,
                format!("Invalid value: {}: {message}", quote(found)),
            ),
            Kind::Required(_) => (ErrorType::Required, "Required value".to_string()),
            Kind::Enum(data, allowed) => (ErrorType::NotSupported, not_supported(data, allowed)),
            Kind::TooLong(max) => (ErrorType::TooLong, too_long(max)),
            Kind::TooMany(actual, max, _) => (ErrorType::TooMany, too_many(actual, max)),
            Kind::Plain(_) => invalid("\"\"", &message),
            Kind::TooFew(actual, _, _) => invalid(&actual.to_string(), &message),
            Kind::Body(bad, _) => invalid(&bad, &message),
            Kind::FactorNotPositive(factor) => invalid(&factor.go(), &message),
            Kind::Forbidden(key) => invalid(&quote(key), &message),
        };
        FieldError {
            reason,
            field: field_of(prefix, &name),
            detail,
        }
    }
}

fn plain_message(plain: Plain<'_>, name: &str) -> String {
    let quoted = quote(name);
    match plain {
        Plain::AnyOf => format!("{quoted} must validate at least one schema (anyOf)"),
        Plain::OneOf(0) => {
            format!("{quoted} must validate one and only one schema (oneOf). Found none valid")
        }
        Plain::OneOf(n) => format!(
            "{quoted} must validate one and only one schema (oneOf). Found {n} valid alternatives"
        ),
        Plain::AllOf(true) => {
            format!("{quoted} must validate all the schemas (allOf). None validated")
        }
        Plain::AllOf(false) => format!("{quoted} must validate all the schemas (allOf)"),
        Plain::Not => format!("{quoted} must not validate the schema (not)"),
        Plain::Range(what, ty, format) => strfmt::number_range_message(what, ty, format, name),
    }
}

/// The field of an error named `name`: the name without its leading dot, under the
/// validator's root path; an unnamed error sits on the root path (`<nil>` when nil).
fn field_of(prefix: Option<&str>, name: &str) -> String {
    if name.is_empty() || name == "." {
        return prefix.unwrap_or("<nil>").to_string();
    }
    let name = name.strip_prefix('.').unwrap_or(name);
    match prefix {
        Some(prefix) => format!("{prefix}.{name}"),
        None => name.to_string(),
    }
}

fn invalid(bad: &str, message: &str) -> (ErrorType, String) {
    (
        ErrorType::Invalid,
        format!("Invalid value: {bad}: {message}"),
    )
}

/// `field.NotSupported`: allowed strings as they are, other values as JSON, all quoted.
fn not_supported(data: &Value, allowed: &[Value]) -> String {
    let values: Vec<String> = allowed
        .iter()
        .map(|v| match v {
            Value::String(s) => quote(s),
            other => quote(&marshal(other)),
        })
        .collect();
    format!(
        "Unsupported value: {}: supported values: {}",
        field_value(data),
        values.join(", ")
    )
}

/// `field.TooLong(path, "", max)`.
fn too_long(max: i64) -> String {
    match max {
        1 => "Too long: may not be more than 1 byte".to_string(),
        m if m >= 0 => format!("Too long: may not be more than {m} bytes"),
        _ => "Too long: value is too long".to_string(),
    }
}

/// `field.TooMany(path, actual, max)`.
fn too_many(actual: usize, max: i64) -> String {
    match max {
        1 => format!("Too many: {actual}: must have at most 1 item"),
        m if m >= 0 => format!("Too many: {actual}: must have at most {m} items"),
        _ => format!("Too many: {actual}: has too many items"),
    }
}

/// kube-openapi's `validate.Result`: errors plus the number of checks that passed.
#[derive(Debug, Default)]
pub(super) struct Outcome<'v> {
    issues: Vec<Issue<'v>>,
    pub(super) matches: usize,
    /// The messages of `issues[..indexed]`, for constant-time deduplication. A lone
    /// issue is not indexed (nor rendered) until a second one arrives.
    /// Created when a second issue arrives: most outcomes of a valid object have none,
    /// and a `HashSet` costs a random hasher seed to create.
    seen: Option<HashSet<Message>>,
    indexed: usize,
    /// Whether a muted issue is kept (muted issues count as one message).
    muted: bool,
}

impl<'v> Outcome<'v> {
    pub(super) fn fail(issue: Issue<'v>) -> Self {
        let mut outcome = Outcome::default();
        outcome.add(issue);
        outcome
    }

    /// A result of one passed check.
    pub(super) fn passed() -> Self {
        Outcome {
            matches: 1,
            ..Outcome::default()
        }
    }

    pub(super) fn is_valid(&self) -> bool {
        self.issues.is_empty()
    }

    pub(super) fn inc(&mut self) {
        self.matches += 1;
    }

    /// Adds an error unless one with the same message is already there (`AddErrors`).
    pub(super) fn add(&mut self, issue: Issue<'v>) {
        if issue.muted {
            if !self.muted {
                self.muted = true;
                self.issues.push(issue);
            }
            return;
        }
        if !self.issues.is_empty() {
            let seen = self.seen.get_or_insert_with(HashSet::default);
            for earlier in &self.issues[self.indexed..] {
                if let Some(key) = earlier.dedup_key() {
                    seen.insert(key.clone());
                }
            }
            self.indexed = self.issues.len();
            if let Some(key) = issue.dedup_key()
                && !seen.insert(key.clone())
            {
                return;
            }
            self.indexed += 1;
        }
        self.issues.push(issue);
    }

    pub(super) fn merge(&mut self, other: Outcome<'v>) {
        let matches = self.matches + other.matches;
        if self.issues.is_empty() {
            // `other`'s issues are already distinct: take them with their index.
            *self = other;
        } else {
            for issue in other.issues {
                self.add(issue);
            }
        }
        self.matches = matches;
    }

    /// Ratcheting: the errors of an unchanged value become warnings, which kube drops.
    pub(super) fn ratchet(&mut self) {
        self.issues.clear();
        self.seen = None;
        self.indexed = 0;
        self.muted = false;
    }

    /// The field errors kube reports, `prefix` being the validator's field path. Muted
    /// issues are left out unless no other issue is there to report the failure.
    pub(super) fn into_errors(self, prefix: Option<&str>) -> Vec<FieldError> {
        let only_muted = self.issues.iter().all(|i| i.muted);
        self.issues
            .into_iter()
            .filter(|i| !i.muted || only_muted)
            .take(if only_muted { 1 } else { usize::MAX })
            .map(|i| i.into_error(prefix))
            .collect()
    }
}

impl<'v> Walker<'v> {
    /// A failure of `kind` at the current position, muted once the walk's issues carry
    /// more than [`PATH_BUDGET`] bytes of text (the one crossing it is kept).
    pub(super) fn issue(&self, kind: Kind<'v>) -> Issue<'v> {
        let path = self.trail.snapshot();
        let left = self.budget.get();
        self.budget.set(left.saturating_sub(text_len(&path, &kind)));
        Issue {
            path,
            kind,
            muted: left == 0,
            message: OnceCell::new(),
        }
    }
}

/// Roughly the bytes of path and data an issue's rendering repeats.
fn text_len(path: &[Seg<'_>], kind: &Kind<'_>) -> usize {
    let path_len: usize = path
        .iter()
        .map(|seg| match seg {
            Seg::Prop(name) | Seg::Addl(name) => name.len() + 1,
            Seg::Index(_) => 8,
        })
        .sum();
    let data_len = match kind {
        Kind::Type(a, b) => a.len() + b.len(),
        Kind::Required(key) | Kind::Forbidden(key) => key.len(),
        Kind::Body(bad, text) => bad.len() + text.len(),
        _ => 0,
    };
    path_len + data_len
}

/// The text budget of one walk, shared by the issues it creates.
pub(super) fn budget() -> Cell<usize> {
    Cell::new(PATH_BUDGET)
}
