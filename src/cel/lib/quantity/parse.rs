//! apimachinery's `ParseQuantity`: the hand-written scanner, the suffix table, the
//! int64 fast path and the `inf.Dec` fallback (rounded up to nano, binary-SI values
//! capped at the int64 maximum), with its three error texts.

use std::fmt;

use super::amount::{Int64Amount, int64_multiply};
use super::dec::Dec;
use super::resource::{Quantity, Repr};

/// Why a string is not a quantity (`ErrFormatWrong`, `ErrNumeric`, `ErrSuffix`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParseError {
    FormatWrong,
    Numeric,
    Suffix,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ParseError::FormatWrong => {
                "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
            }
            ParseError::Numeric => "unable to parse numeric part of quantity",
            ParseError::Suffix => "unable to parse quantity's suffix",
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    DecimalExponent,
    BinarySI,
    DecimalSI,
}

/// What `parseQuantityString` splits a string into.
struct Parts<'s> {
    positive: bool,
    /// The number as written, sign included, suffix excluded.
    value: &'s str,
    /// Integer digits without leading zeros (`"0"` when none).
    num: &'s str,
    denom: &'s str,
    suffix: &'s str,
}

const MAX_INT64_FACTORS: i32 = 18;
const NANO: i32 = -9;

pub fn parse_quantity(s: &str) -> Result<Quantity, ParseError> {
    if s.is_empty() {
        return Err(ParseError::FormatWrong);
    }
    if s == "0" {
        return Ok(Quantity::from_int(Int64Amount::default()));
    }
    let parts = split(s)?;
    let (base, exponent, format) = interpret(parts.suffix).ok_or(ParseError::Suffix)?;
    if let Some(amount) = fast_path(&parts, exponent, format)? {
        return Ok(Quantity::from_int(amount));
    }
    let mut amount = Dec::parse(parts.value).ok_or(ParseError::Numeric)?;
    if base == 10 {
        amount.scale = amount.scale.wrapping_sub(exponent);
    } else {
        amount.unscaled.mul_pow2(exponent as u32);
    }
    let negative = amount.signum() < 0;
    let mut amount = amount.abs();
    if amount.signum() != 0 {
        // Only absurd exponents fail to align; Go would grind on, we call them unparsable.
        amount = amount.round_up(-NANO).map_err(|_| ParseError::Numeric)?;
    }
    let max_allowed = Dec::from_i64(i64::MAX, 0);
    if format == Format::BinarySI && amount.cmp(&max_allowed).is_gt() {
        amount = max_allowed;
    }
    let amount = if negative { amount.negated() } else { amount };
    Ok(Quantity::from_repr(Repr::dec(amount)))
}

/// The int64 representation, when the digits and the scale allow it (Go's
/// `precision >= 0` branch); `Ok(None)` sends the caller to the decimal path.
fn fast_path(p: &Parts, exponent: i32, format: Format) -> Result<Option<Int64Amount>, ParseError> {
    let digits = (p.num.len() + p.denom.len()) as i64;
    let (mut scale, mantissa, precision) = match format {
        Format::DecimalExponent | Format::DecimalSI => {
            (exponent, 1i64, i64::from(MAX_INT64_FACTORS) - digits)
        }
        Format::BinarySI if exponent >= 0 && p.denom.is_empty() => {
            let precision = 15 - p.num.len() as i64 - i64::from(exponent * 3 / 10) - 1;
            (0, 1i64 << exponent, precision)
        }
        Format::BinarySI => (0, 1, -1),
    };
    if precision < 0 {
        return Ok(None);
    }
    scale = scale.wrapping_sub(p.denom.len() as i32);
    if scale < NANO {
        return Ok(None);
    }
    let shifted = format!("{}{}", p.num, p.denom);
    let value: i64 = shifted.parse().map_err(|_| ParseError::Numeric)?;
    Ok(int64_multiply(value, mantissa).map(|result| Int64Amount {
        value: if p.positive {
            result
        } else {
            result.wrapping_neg()
        },
        scale,
    }))
}

/// `parseQuantityString`: sign, integer digits, fraction digits, then a suffix of
/// `[eEinumkKMGTP]*[-+]?[0-9]*`.
fn split(s: &str) -> Result<Parts<'_>, ParseError> {
    let b = s.as_bytes();
    let end = b.len();
    let (positive, mut pos) = match b[0] {
        b'-' => (false, 1),
        b'+' => (true, 1),
        _ => (true, 0),
    };
    let zero = |value| Parts {
        positive,
        value,
        num: "0",
        denom: "",
        suffix: "",
    };
    while pos < end && b[pos] == b'0' {
        pos += 1;
    }
    if pos >= end {
        return Ok(zero("0"));
    }
    let num_start = pos;
    pos += count_digits(&b[pos..]);
    if pos >= end {
        return Ok(Parts {
            num: &s[num_start..],
            ..zero(s)
        });
    }
    let num = if pos == num_start {
        "0"
    } else {
        &s[num_start..pos]
    };
    let mut denom = "";
    if b[pos] == b'.' {
        pos += 1;
        let denom_start = pos;
        pos += count_digits(&b[pos..]);
        denom = &s[denom_start..pos];
        if pos >= end {
            return Ok(Parts {
                num,
                denom,
                ..zero(s)
            });
        }
    }
    let value = &s[..pos];
    let suffix_start = pos;
    while pos < end && b"eEinumkKMGTP".contains(&b[pos]) {
        pos += 1;
    }
    if pos < end && matches!(b[pos], b'-' | b'+') {
        pos += 1;
    }
    pos += count_digits(&b[pos..]);
    if pos < end {
        return Err(ParseError::FormatWrong);
    }
    Ok(Parts {
        positive,
        value,
        num,
        denom,
        suffix: &s[suffix_start..],
    })
}

fn count_digits(b: &[u8]) -> usize {
    b.iter().take_while(|c| c.is_ascii_digit()).count()
}

/// The suffix table: base, power and format.
fn interpret(suffix: &str) -> Option<(u32, i32, Format)> {
    let decimal = |e| Some((10, e, Format::DecimalSI));
    let binary = |e| Some((2, e, Format::BinarySI));
    match suffix {
        "" => decimal(0),
        "n" => decimal(-9),
        "u" => decimal(-6),
        "m" => decimal(-3),
        "k" => decimal(3),
        "M" => decimal(6),
        "G" => decimal(9),
        "T" => decimal(12),
        "P" => decimal(15),
        "E" => decimal(18),
        "Ki" => binary(10),
        "Mi" => binary(20),
        "Gi" => binary(30),
        "Ti" => binary(40),
        "Pi" => binary(50),
        "Ei" => binary(60),
        _ if suffix.len() > 1 && suffix.starts_with(['e', 'E']) => {
            // Go's ParseInt, then a truncating int32 conversion.
            let parsed: i64 = suffix[1..].parse().ok()?;
            Some((10, parsed as i32, Format::DecimalExponent))
        }
        _ => None,
    }
}
