//! kube-openapi's string validator (maxLength and minLength in characters, then an
//! unanchored pattern; the first failure ends the check) and its format validator.

use super::result::{Kind, Outcome};
use super::walk::Walker;
use crate::formats::strfmt;
use crate::gofmt::quote;
use crate::schema::Schema;

/// `maxLength`, `minLength`, `pattern`, in that order, stopping at the first failure.
pub(super) fn check<'v>(w: &Walker<'v>, s: &Schema, text: &str) -> Outcome<'v> {
    if let Some(max) = s.max_length {
        // Characters never outnumber bytes, so short strings need no count.
        if usize::try_from(max).map_or(true, |m| text.len() > m)
            && i64::try_from(text.chars().count()).unwrap_or(i64::MAX) > max
        {
            return Outcome::fail(w.issue(Kind::TooLong(max)));
        }
    }
    if let Some(min) = s.min_length
        && i64::try_from(text.chars().count()).unwrap_or(i64::MAX) < min
    {
        let text_msg = format!("should be at least {min} chars long");
        return Outcome::fail(w.issue(Kind::Body(quote(text), text_msg)));
    }
    if let Some(pattern) = &s.pattern {
        let failure = match &pattern.regex {
            Some(re) if re.is_match(text) => None,
            Some(_) => Some(format!("should match '{}'", pattern.source)),
            None => Some(format!(
                "should match '{}, but pattern is invalid: error parsing regexp: {}'",
                pattern.source, pattern.source
            )),
        };
        if let Some(text_msg) = failure {
            return Outcome::fail(w.issue(Kind::Body(quote(text), text_msg)));
        }
    }
    Outcome::default()
}

/// A string with a checked format: `<path> in body must be of type <format>: "<value>"`.
pub(super) fn check_format<'v>(w: &Walker<'v>, format: &'v str, text: &'v str) -> Outcome<'v> {
    if strfmt::is_valid(format, text) {
        Outcome::default()
    } else {
        Outcome::fail(w.issue(Kind::Type(format, text)))
    }
}
