//! kube-openapi's number validator: the value's format range, then multipleOf, minimum
//! and maximum — compared as int64 for integer values when the bound fits the schema's
//! type (bounds truncated the Go way), else as float64.

use serde_json::Number;

use super::result::{Kind, Outcome, Plain};
use super::types::{View, is_json_integer};
use super::walk::Walker;
use crate::formats::strfmt;
use crate::gofmt::{Num, f64_to_i64, float_v};
use crate::schema::Schema;

/// The type and format the range checks use: only for a single `integer` or `number`.
fn range_type<'s>(view: &View<'s>) -> (&'s str, &'s str) {
    match view.single() {
        t @ ("integer" | "number") => (t, view.format),
        _ => ("", ""),
    }
}

/// `IsValueValidAgainstRange`; `None` when in range, else the plain error.
fn out_of_range<'v>(
    w: &Walker<'v>,
    what: &'static str,
    n: Num,
    (ty, format): (&'v str, &'v str),
) -> Option<Outcome<'v>> {
    if ty.is_empty() {
        return None;
    }
    let number = match n {
        Num::Int(i) => Number::from(i),
        Num::Float(f) => Number::from_f64(f)?,
    };
    if strfmt::is_valid_number(ty, format, &number) {
        return None;
    }
    Some(Outcome::fail(
        w.issue(Kind::Plain(Plain::Range(what, ty, format))),
    ))
}

/// kube-openapi's `numberValidator.Validate`.
pub(super) fn check<'v>(w: &Walker<'v>, s: &Schema, view: &View<'v>, n: Num) -> Outcome<'v> {
    let range = range_type(view);
    let mut res = out_of_range(w, "Checked", n, range).unwrap_or_default();
    let mut multiple = Outcome::default();
    if let Some(factor) = s.multiple_of {
        match out_of_range(w, "MultipleOf", Num::Float(factor), range) {
            None => multiple.merge(multiple_native(w, n, factor)),
            Some(err) => {
                multiple.merge(err);
                multiple.merge(multiple_float(w, n.as_f64(), factor));
            }
        }
    }
    let mut minimum = Outcome::default();
    if let Some(min) = s.minimum {
        let bound = Bound::Min(min, s.exclusive_minimum);
        match out_of_range(w, "Minimum boundary", Num::Float(min), range) {
            None => minimum.merge(bound.check(w, n)),
            Some(err) => {
                minimum.merge(err);
                minimum.merge(bound.check(w, Num::Float(n.as_f64())));
            }
        }
    }
    let mut maximum = Outcome::default();
    if let Some(max) = s.maximum {
        let bound = Bound::Max(max, s.exclusive_maximum);
        match out_of_range(w, "Maximum boundary", Num::Float(max), range) {
            None => maximum.merge(bound.check(w, n)),
            Some(err) => {
                maximum.merge(err);
                maximum.merge(bound.check(w, Num::Float(n.as_f64())));
            }
        }
    }
    res.merge(multiple);
    res.merge(minimum);
    res.merge(maximum);
    res.inc();
    res
}

/// `MultipleOfNativeType`: an int64 value against the truncated factor.
fn multiple_native<'v>(w: &Walker<'v>, n: Num, factor: f64) -> Outcome<'v> {
    let Num::Int(i) = n else {
        return multiple_float(w, n.as_f64(), factor);
    };
    let factor = f64_to_i64(factor);
    if factor <= 0 {
        return Outcome::fail(w.issue(Kind::FactorNotPositive(Num::Int(factor))));
    }
    if (i / factor).wrapping_mul(factor) != i {
        let text = format!("should be a multiple of {factor}");
        return Outcome::fail(w.issue(Kind::Body(i.to_string(), text)));
    }
    Outcome::default()
}

/// `MultipleOf` on float64.
fn multiple_float<'v>(w: &Walker<'v>, data: f64, factor: f64) -> Outcome<'v> {
    if factor <= 0.0 {
        return Outcome::fail(w.issue(Kind::FactorNotPositive(Num::Float(factor))));
    }
    let mult = if factor < 1.0 {
        1.0 / factor * data
    } else {
        data / factor
    };
    if !is_json_integer(mult) {
        let text = format!("should be a multiple of {}", float_v(factor));
        return Outcome::fail(w.issue(Kind::Body(float_v(data), text)));
    }
    Outcome::default()
}

/// A `minimum` or `maximum` with its exclusive flag.
enum Bound {
    Min(f64, bool),
    Max(f64, bool),
}

impl Bound {
    /// `Minimum`/`Maximum` (`…Int` for int64 values, with the bound truncated).
    fn check<'v>(&self, w: &Walker<'v>, n: Num) -> Outcome<'v> {
        let (bound, exclusive, is_max) = match *self {
            Bound::Min(b, e) => (b, e, false),
            Bound::Max(b, e) => (b, e, true),
        };
        let (fails, bound_text) = match n {
            Num::Int(i) => {
                let b = f64_to_i64(bound);
                let fails = match (is_max, exclusive) {
                    (true, false) => i > b,
                    (true, true) => i >= b,
                    (false, false) => i < b,
                    (false, true) => i <= b,
                };
                (fails, b.to_string())
            }
            Num::Float(f) => {
                let fails = match (is_max, exclusive) {
                    (true, false) => f > bound,
                    (true, true) => f >= bound,
                    (false, false) => f < bound,
                    (false, true) => f <= bound,
                };
                (fails, float_v(bound))
            }
        };
        if !fails {
            return Outcome::default();
        }
        let relation = match (is_max, exclusive) {
            (true, false) => "less than or equal to",
            (true, true) => "less than",
            (false, false) => "greater than or equal to",
            (false, true) => "greater than",
        };
        let text = format!("should be {relation} {bound_text}");
        Outcome::fail(w.issue(Kind::Body(n.go(), text)))
    }
}
