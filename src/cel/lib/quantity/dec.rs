//! Decimals as `gopkg.in/inf.v0`'s `Dec` holds them: an unscaled integer and a scale,
//! the value being `unscaled × 10^-scale`. The scale is part of the state (it decides
//! `asApproximateFloat`), so sums keep inf's rule: the larger of the two scales.

use std::cmp::Ordering;

use super::bigint::BigInt;

/// The most decimal digits an alignment may add. Go would keep computing (for minutes,
/// with gigabytes) where this refuses; only absurd exponents (`1e900000`) reach it.
const MAX_ALIGN_DIGITS: i64 = 100_000;

/// An alignment beyond [`MAX_ALIGN_DIGITS`].
#[derive(Debug, PartialEq, Eq)]
pub struct TooLarge;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dec {
    pub unscaled: BigInt,
    pub scale: i32,
}

impl Dec {
    pub fn from_i64(value: i64, scale: i32) -> Dec {
        Dec {
            unscaled: BigInt::from_i64(value),
            scale,
        }
    }

    /// inf's `SetString` on what the quantity parser hands it: `[+-]?[0-9]*(.[0-9]*)?`
    /// with at least one digit; the scale is the count of fraction digits.
    pub fn parse(s: &str) -> Option<Dec> {
        let (negative, rest) = match s.as_bytes().first() {
            Some(b'-') => (true, &s[1..]),
            Some(b'+') => (false, &s[1..]),
            _ => (false, s),
        };
        let (int, frac) = rest.split_once('.').unwrap_or((rest, ""));
        let digits = [int.as_bytes(), frac.as_bytes()].concat();
        let unscaled = BigInt::from_digits(&digits, negative)?;
        let scale = i32::try_from(frac.len()).ok()?;
        Some(Dec { unscaled, scale })
    }

    pub fn signum(&self) -> i64 {
        self.unscaled.signum()
    }

    pub fn negated(self) -> Dec {
        Dec {
            unscaled: self.unscaled.negated(),
            scale: self.scale,
        }
    }

    pub fn abs(self) -> Dec {
        Dec {
            unscaled: self.unscaled.abs(),
            scale: self.scale,
        }
    }

    pub fn add(&self, other: &Dec) -> Result<Dec, TooLarge> {
        let scale = self.scale.max(other.scale);
        let a = self.unscaled_at(scale)?;
        let b = other.unscaled_at(scale)?;
        Ok(Dec {
            unscaled: a.add(&b),
            scale,
        })
    }

    pub fn sub(&self, other: &Dec) -> Result<Dec, TooLarge> {
        self.add(&other.clone().negated())
    }

    /// Exact comparison, without aligning: by sign, then by the position of the leading
    /// digit, then digit by digit.
    pub fn cmp(&self, other: &Dec) -> Ordering {
        let sign = self.signum().cmp(&other.signum());
        if sign != Ordering::Equal || self.signum() == 0 {
            return sign;
        }
        let (a, b) = (
            self.unscaled.magnitude_digits(),
            other.unscaled.magnitude_digits(),
        );
        let lead_a = a.len() as i64 - i64::from(self.scale);
        let lead_b = b.len() as i64 - i64::from(other.scale);
        let magnitude = lead_a.cmp(&lead_b).then_with(|| {
            let width = a.len().max(b.len());
            let pad = |d: &str| {
                d.bytes()
                    .chain(std::iter::repeat(b'0'))
                    .take(width)
                    .collect::<Vec<u8>>()
            };
            pad(&a).cmp(&pad(&b))
        });
        if self.signum() < 0 {
            magnitude.reverse()
        } else {
            magnitude
        }
    }

    /// inf's `Round(x, scale, RoundUp)`: exactly `scale` fraction digits, a dropped
    /// remainder rounding the magnitude up (away from zero).
    pub fn round_up(&self, scale: i32) -> Result<Dec, TooLarge> {
        if scale >= self.scale {
            let unscaled = self.unscaled_at(scale)?;
            return Ok(Dec { unscaled, scale });
        }
        let negative = self.signum() < 0;
        let mut magnitude = self.unscaled.clone().abs();
        let drop = i64::from(self.scale) - i64::from(scale);
        let digits = magnitude.magnitude_digits().len() as i64;
        let inexact = if drop > digits {
            let nonzero = !magnitude.is_zero();
            magnitude = BigInt::default();
            nonzero
        } else {
            magnitude.div_pow10(drop as u32)
        };
        if inexact {
            magnitude = magnitude.add(&BigInt::from_i64(1));
        }
        let unscaled = if negative {
            magnitude.negated()
        } else {
            magnitude
        };
        Ok(Dec { unscaled, scale })
    }

    /// The unscaled value at a scale not below the current one.
    fn unscaled_at(&self, scale: i32) -> Result<BigInt, TooLarge> {
        let grow = i64::from(scale) - i64::from(self.scale);
        let mut unscaled = self.unscaled.clone();
        if unscaled.is_zero() || grow == 0 {
            return Ok(unscaled);
        }
        if grow > MAX_ALIGN_DIGITS {
            return Err(TooLarge);
        }
        unscaled.mul_pow10(grow as u32);
        Ok(unscaled)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(s: &str) -> Dec {
        Dec::parse(s).unwrap()
    }

    fn show(d: &Dec) -> String {
        let sign = if d.signum() < 0 { "-" } else { "" };
        format!("{sign}{}e{}", d.unscaled.magnitude_digits(), -d.scale)
    }

    #[test]
    fn parse_counts_fraction_digits_as_scale() {
        let cases = [
            ("1.50", Some("150e-2")),
            ("-.5", Some("-5e-1")),
            ("+007", Some("7e0")),
            ("12.", Some("12e0")),
            (".", None),
            ("+", None),
            ("", None),
        ];
        for (input, want) in cases {
            assert_eq!(
                Dec::parse(input).map(|d| show(&d)).as_deref(),
                want,
                "{input}"
            );
        }
    }

    #[test]
    fn add_and_sub_keep_the_larger_scale() {
        assert_eq!(show(&dec("1.5").add(&dec("2.25")).unwrap()), "375e-2");
        assert_eq!(show(&dec("1.5").sub(&dec("2.25")).unwrap()), "-75e-2");
        let big = Dec::from_i64(1, -200_000);
        assert_eq!(big.add(&dec("1")), Err(TooLarge));
    }

    #[test]
    fn cmp_is_exact_across_scales() {
        let cases = [
            ("1.50", "1.5", Ordering::Equal),
            ("-2", "-1.999", Ordering::Less),
            ("0.001", "0", Ordering::Greater),
            ("100", "99.9999", Ordering::Greater),
            ("-0", "0.0", Ordering::Equal),
        ];
        for (a, b, want) in cases {
            assert_eq!(dec(a).cmp(&dec(b)), want, "{a} vs {b}");
        }
        assert_eq!(
            Dec::from_i64(1, -1_000_000_000).cmp(&dec("5")),
            Ordering::Greater
        );
    }

    #[test]
    fn round_up_moves_away_from_zero() {
        let cases = [
            ("1.0000000001", 9, "1000000001e-9"),
            ("-1.0000000001", 9, "-1000000001e-9"),
            ("0.00000000000001", 9, "1e-9"),
            ("2", 9, "2000000000e-9"),
            ("1.5", 0, "2e0"),
        ];
        for (input, scale, want) in cases {
            assert_eq!(show(&dec(input).round_up(scale).unwrap()), want, "{input}");
        }
    }
}
