//! kube's semver library (k8s.io/apiserver `pkg/cel/library/semverlib.go`, version 1):
//! `semver` and `isSemver` (with the `normalize` overloads), `major`, `minor`, `patch`
//! and comparisons on `kubernetes.Semver`, parsing and ordering as blang/semver v4 does,
//! with its error texts.

#[cfg(test)]
mod tests;

use std::any::Any;
use std::cmp::Ordering;

use super::argv;
use crate::cel::functions::{Decl, Impl, Library, Outcome};
use crate::cel::types::Type;
use crate::cel::value::{EvalError, Opaque, Value};
use crate::gofmt::quote;

pub const SEMVER_TYPE: &str = "kubernetes.Semver";

/// A prerelease identifier: numeric ones order numerically and before alphanumerics.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Pre {
    Num(u64),
    Alpha(String),
}

impl Pre {
    fn cmp(&self, other: &Pre) -> Ordering {
        match (self, other) {
            (Pre::Num(a), Pre::Num(b)) => a.cmp(b),
            (Pre::Num(_), Pre::Alpha(_)) => Ordering::Less,
            (Pre::Alpha(_), Pre::Num(_)) => Ordering::Greater,
            (Pre::Alpha(a), Pre::Alpha(b)) => a.cmp(b),
        }
    }
}

/// A `kubernetes.Semver` value (blang's `semver.Version`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Semver {
    major: u64,
    minor: u64,
    patch: u64,
    pre: Vec<Pre>,
    build: Vec<String>,
}

impl Semver {
    /// blang's `Version.Compare`: build metadata does not count; a version with a
    /// prerelease is lower than the same version without.
    pub fn compare(&self, other: &Semver) -> Ordering {
        let core =
            (self.major, self.minor, self.patch).cmp(&(other.major, other.minor, other.patch));
        if core != Ordering::Equal {
            return core;
        }
        match (self.pre.is_empty(), other.pre.is_empty()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Greater,
            (false, true) => Ordering::Less,
            (false, false) => {
                let pairs = self.pre.iter().zip(&other.pre);
                let first_difference = pairs.map(|(a, b)| a.cmp(b)).find(|o| o.is_ne());
                first_difference.unwrap_or_else(|| self.pre.len().cmp(&other.pre.len()))
            }
        }
    }
}

impl Opaque for Semver {
    fn type_name(&self) -> &'static str {
        SEMVER_TYPE
    }

    fn equals(&self, other: &dyn Opaque) -> bool {
        self.try_equals(Some(other)).unwrap_or(false)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    /// `Semver.Equal`: `Version.EQ` with another semver, else `no such overload`.
    fn try_equals(&self, other: Option<&dyn Opaque>) -> Result<bool, EvalError> {
        match other.and_then(|o| o.as_any().downcast_ref::<Semver>()) {
            Some(o) => Ok(self.compare(o) == Ordering::Equal),
            None => Err(argv::no_such_overload()),
        }
    }
}

const NUMBERS: &str = "0123456789";
const ALPHANUM: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-0123456789";

fn contains_only(s: &str, set: &str) -> bool {
    s.chars().all(|c| set.contains(c))
}

fn has_leading_zeroes(s: &str) -> bool {
    s.len() > 1 && s.starts_with('0')
}

/// Go's `strconv.ParseUint(s, 10, 64)` on a string of digits, with its error texts.
fn parse_uint(s: &str) -> Result<u64, String> {
    if s.is_empty() {
        return Err(format!(
            "strconv.ParseUint: parsing {}: invalid syntax",
            quote(s)
        ));
    }
    s.parse().map_err(|_| {
        format!(
            "strconv.ParseUint: parsing {}: value out of range",
            quote(s)
        )
    })
}

/// One of the three numbers: digits only, no leading zero.
fn parse_number(s: &str, lower: &str, upper: &str) -> Result<u64, String> {
    if !contains_only(s, NUMBERS) {
        return Err(format!(
            "Invalid character(s) found in {lower} number {}",
            quote(s)
        ));
    }
    if has_leading_zeroes(s) {
        return Err(format!(
            "{upper} number must not contain leading zeroes {}",
            quote(s)
        ));
    }
    parse_uint(s)
}

fn parse_pre(s: &str) -> Result<Pre, String> {
    if s.is_empty() {
        return Err("Prerelease is empty".to_string());
    }
    if contains_only(s, NUMBERS) {
        if has_leading_zeroes(s) {
            return Err(format!(
                "Numeric PreRelease version must not contain leading zeroes {}",
                quote(s)
            ));
        }
        return parse_uint(s).map(Pre::Num);
    }
    if contains_only(s, ALPHANUM) {
        return Ok(Pre::Alpha(s.to_string()));
    }
    Err(format!(
        "Invalid character(s) found in prerelease {}",
        quote(s)
    ))
}

fn parse_build(s: &str) -> Result<String, String> {
    if s.is_empty() {
        return Err("Build meta data is empty".to_string());
    }
    if !contains_only(s, ALPHANUM) {
        return Err(format!(
            "Invalid character(s) found in build meta data {}",
            quote(s)
        ));
    }
    Ok(s.to_string())
}

/// blang's `semver.Parse`: strict `MAJOR.MINOR.PATCH[-PRE][+BUILD]`.
pub fn parse(s: &str) -> Result<Semver, String> {
    if s.is_empty() {
        return Err("Version string empty".to_string());
    }
    let parts: Vec<&str> = s.splitn(3, '.').collect();
    let [major, minor, rest] = parts[..] else {
        return Err("No Major.Minor.Patch elements found".to_string());
    };
    let major = parse_number(major, "major", "Major")?;
    let minor = parse_number(minor, "minor", "Minor")?;
    let (rest, build) = match rest.split_once('+') {
        Some((rest, build)) => (rest, build.split('.').collect()),
        None => (rest, Vec::new()),
    };
    let (patch, pre) = match rest.split_once('-') {
        Some((patch, pre)) => (patch, pre.split('.').collect()),
        None => (rest, Vec::new()),
    };
    let patch = parse_number(patch, "patch", "Patch")?;
    Ok(Semver {
        major,
        minor,
        patch,
        pre: pre.into_iter().map(parse_pre).collect::<Result<_, _>>()?,
        build: build
            .into_iter()
            .map(parse_build)
            .collect::<Result<_, _>>()?,
    })
}

/// kube's `normalizeAndParse`: a leading `v` dropped, leading zeros stripped, missing
/// minor and patch filled with `0` (not when the short form carries `-` or `+`).
pub fn normalize_and_parse(s: &str) -> Result<Semver, String> {
    let s = s.strip_prefix('v').unwrap_or(s);
    let mut parts: Vec<String> = s
        .splitn(3, '.')
        .map(|p| {
            if p.len() <= 1 {
                return p.to_string();
            }
            let trimmed = p.trim_start_matches('0');
            if trimmed.starts_with(|c: char| c.is_ascii_digit()) {
                trimmed.to_string()
            } else {
                format!("0{trimmed}")
            }
        })
        .collect();
    if parts.len() < 3 {
        if parts.last().is_some_and(|p| p.contains(['+', '-'])) {
            return Err("short version cannot contain PreRelease/Build meta data".to_string());
        }
        parts.resize(3, "0".to_string());
    }
    parse(&parts.join("."))
}

/// The semver library's overloads (kube's `SemverVersion(1)`).
pub fn library() -> Library {
    let v = || Type::Opaque(SEMVER_TYPE);
    let decls = vec![
        Decl::global("string_to_semver", "semver", vec![Type::String], v()),
        Decl::global(
            "string_bool_to_semver",
            "semver",
            vec![Type::String, Type::Bool],
            v(),
        ),
        Decl::global(
            "is_semver_string",
            "isSemver",
            vec![Type::String],
            Type::Bool,
        ),
        Decl::global(
            "is_semver_string_bool",
            "isSemver",
            vec![Type::String, Type::Bool],
            Type::Bool,
        ),
        Decl::member(
            "semver_is_greater_than",
            "isGreaterThan",
            vec![v(), v()],
            Type::Bool,
        ),
        Decl::member(
            "semver_is_less_than",
            "isLessThan",
            vec![v(), v()],
            Type::Bool,
        ),
        Decl::member("semver_compare_to", "compareTo", vec![v(), v()], Type::Int),
        Decl::member("semver_major", "major", vec![v()], Type::Int),
        Decl::member("semver_minor", "minor", vec![v()], Type::Int),
        Decl::member("semver_patch", "patch", vec![v()], Type::Int),
    ];
    let impls = vec![
        ("string_to_semver", Impl::Unary(string_to_semver)),
        (
            "string_bool_to_semver",
            Impl::Binary(string_to_semver_normalize),
        ),
        ("is_semver_string", Impl::Unary(is_semver)),
        ("is_semver_string_bool", Impl::Binary(is_semver_normalize)),
        ("semver_is_greater_than", Impl::Binary(is_greater_than)),
        ("semver_is_less_than", Impl::Binary(is_less_than)),
        ("semver_compare_to", Impl::Binary(compare_to)),
        ("semver_major", Impl::Unary(major)),
        ("semver_minor", Impl::Unary(minor)),
        ("semver_patch", Impl::Unary(patch)),
    ];
    Library { decls, impls }
}

fn bool_arg(value: &Value<'_>) -> Result<bool, EvalError> {
    match value {
        Value::Bool(b) => Ok(*b),
        _ => Err(argv::no_such_overload()),
    }
}

fn parse_with(s: &Value<'_>, normalize: bool) -> Result<Result<Semver, String>, EvalError> {
    let s = argv::string(s)?;
    Ok(if normalize {
        normalize_and_parse(s)
    } else {
        parse(s)
    })
}

fn string_to_semver<'a>(s: &Value<'a>) -> Outcome<'a> {
    string_to_semver_normalize(s, &Value::Bool(false))
}

fn string_to_semver_normalize<'a>(s: &Value<'a>, normalize: &Value<'a>) -> Outcome<'a> {
    let version = parse_with(s, bool_arg(normalize)?)?.map_err(EvalError::new)?;
    Ok(argv::wrap(version))
}

fn is_semver<'a>(s: &Value<'a>) -> Outcome<'a> {
    is_semver_normalize(s, &Value::Bool(false))
}

fn is_semver_normalize<'a>(s: &Value<'a>, normalize: &Value<'a>) -> Outcome<'a> {
    Ok(Value::Bool(parse_with(s, bool_arg(normalize)?)?.is_ok()))
}

fn compare<'a>(a: &Value<'a>, b: &Value<'a>) -> Result<Ordering, EvalError> {
    Ok(argv::opaque::<Semver>(a)?.compare(argv::opaque::<Semver>(b)?))
}

fn is_greater_than<'a>(a: &Value<'a>, b: &Value<'a>) -> Outcome<'a> {
    Ok(Value::Bool(compare(a, b)?.is_gt()))
}

fn is_less_than<'a>(a: &Value<'a>, b: &Value<'a>) -> Outcome<'a> {
    Ok(Value::Bool(compare(a, b)?.is_lt()))
}

fn compare_to<'a>(a: &Value<'a>, b: &Value<'a>) -> Outcome<'a> {
    Ok(Value::Int(compare(a, b)? as i64))
}

/// `types.Int(v.Major)`: Go's conversion wraps values above the int64 maximum.
fn component<'a>(v: &Value<'a>, pick: fn(&Semver) -> u64) -> Outcome<'a> {
    Ok(Value::Int(pick(argv::opaque::<Semver>(v)?) as i64))
}

fn major<'a>(v: &Value<'a>) -> Outcome<'a> {
    component(v, |s| s.major)
}

fn minor<'a>(v: &Value<'a>) -> Outcome<'a> {
    component(v, |s| s.minor)
}

fn patch<'a>(v: &Value<'a>) -> Outcome<'a> {
    component(v, |s| s.patch)
}
