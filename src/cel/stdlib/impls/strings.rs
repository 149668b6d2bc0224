//! String functions: `contains`, `startsWith`, `endsWith`, and `matches` with a pattern
//! computed at run time (constant patterns are compiled at plan time).

use crate::cel::eval::{ops, regex};
use crate::cel::functions::{Impl, Outcome};
use crate::cel::value::{EvalError, Value};

fn strings<'v>(a: &'v Value<'_>, b: &'v Value<'_>) -> Result<(&'v str, &'v str), EvalError> {
    match (a, b) {
        (Value::String(x), Value::String(y)) => Ok((x.as_str(), y.as_str())),
        _ => Err(ops::no_such_overload()),
    }
}

fn contains<'a>(a: &Value<'a>, b: &Value<'a>) -> Outcome<'a> {
    strings(a, b).map(|(s, sub)| Value::Bool(s.contains(sub)))
}

fn starts_with<'a>(a: &Value<'a>, b: &Value<'a>) -> Outcome<'a> {
    strings(a, b).map(|(s, p)| Value::Bool(s.starts_with(p)))
}

fn ends_with<'a>(a: &Value<'a>, b: &Value<'a>) -> Outcome<'a> {
    strings(a, b).map(|(s, p)| Value::Bool(s.ends_with(p)))
}

fn matches<'a>(a: &Value<'a>, b: &Value<'a>) -> Outcome<'a> {
    let (s, pattern) = strings(a, b)?;
    let re = regex::compile(pattern).map_err(EvalError::new)?;
    Ok(Value::Bool(re.is_match(s)))
}

pub(super) fn impls() -> Vec<(&'static str, Impl)> {
    vec![
        ("contains_string", Impl::Binary(contains)),
        ("starts_with_string", Impl::Binary(starts_with)),
        ("ends_with_string", Impl::Binary(ends_with)),
        ("matches", Impl::Binary(matches)),
        ("matches_string", Impl::Binary(matches)),
    ]
}
