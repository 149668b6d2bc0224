//! apimachinery's `int64Amount` (`amount.go`, `math.go`): a quantity that fits
//! `value × 10^scale` with an `int64` value, and its overflow-checked arithmetic,
//! ported with Go's wrapping semantics so overflow is detected where Go detects it.

use std::cmp::Ordering;

use super::dec::Dec;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Int64Amount {
    pub value: i64,
    /// A power of ten (apimachinery's `Scale`; `-9` is nano).
    pub scale: i32,
}

impl Int64Amount {
    pub fn signum(self) -> i64 {
        self.value.signum()
    }

    /// `AsInt64`: only amounts without fraction digits, and without overflow.
    pub fn as_int64(self) -> Option<i64> {
        match self.scale.cmp(&0) {
            Ordering::Equal => Some(self.value),
            Ordering::Less => None,
            Ordering::Greater => positive_scale(self.value, self.scale),
        }
    }

    /// `AsDec`: inf's scale is the negated power of ten.
    pub fn as_dec(self) -> Dec {
        Dec::from_i64(self.value, self.scale.wrapping_neg())
    }

    pub fn cmp(self, other: Int64Amount) -> Ordering {
        let (mut a, mut b) = (self, other);
        match a.scale.cmp(&b.scale) {
            Ordering::Equal => {}
            Ordering::Greater => {
                let Some((result, remainder)) =
                    divide_by_scale(b.value, a.scale.wrapping_sub(b.scale))
                else {
                    return self.as_dec().cmp(&other.as_dec());
                };
                if result == a.value {
                    return 0.cmp(&remainder);
                }
                b.value = result;
            }
            Ordering::Less => {
                let Some((result, remainder)) =
                    divide_by_scale(a.value, b.scale.wrapping_sub(a.scale))
                else {
                    return self.as_dec().cmp(&other.as_dec());
                };
                if result == b.value {
                    return remainder.cmp(&0);
                }
                a.value = result;
            }
        }
        a.value.cmp(&b.value)
    }

    /// `Add`: false (and unchanged) on overflow, where Go falls back to decimals.
    pub fn add(&mut self, other: Int64Amount) -> bool {
        if other.value == 0 {
            return true;
        }
        if self.value == 0 {
            *self = other;
            return true;
        }
        let sum = match self.scale.cmp(&other.scale) {
            Ordering::Equal => int64_add(self.value, other.value),
            Ordering::Greater => positive_scale(self.value, self.scale.wrapping_sub(other.scale))
                .and_then(|a| int64_add(a, other.value))
                .inspect(|_| self.scale = other.scale),
            Ordering::Less => positive_scale(other.value, other.scale.wrapping_sub(self.scale))
                .and_then(|b| int64_add(self.value, b)),
        };
        match sum {
            Some(c) => {
                self.value = c;
                true
            }
            None => false,
        }
    }

    pub fn sub(&mut self, other: Int64Amount) -> bool {
        self.add(Int64Amount {
            value: other.value.wrapping_neg(),
            scale: other.scale,
        })
    }
}

/// Go's `int64Add`: the wrapped sum, rejected when the signs say it wrapped.
pub fn int64_add(a: i64, b: i64) -> Option<i64> {
    let c = a.wrapping_add(b);
    let wrapped = (a > 0 && b > 0 && c < 0)
        || (a < 0 && b < 0 && (c > 0 || (a == i64::MIN && b == i64::MIN)));
    (!wrapped).then_some(c)
}

/// Go's `int64Multiply`.
pub fn int64_multiply(a: i64, b: i64) -> Option<i64> {
    if a == 0 || b == 0 || a == 1 || b == 1 {
        return Some(a.wrapping_mul(b));
    }
    if a == i64::MIN || b == i64::MIN {
        return None;
    }
    let c = a.wrapping_mul(b);
    (c.wrapping_div(b) == a).then_some(c)
}

/// Go's `int64MultiplyScale` (and its 10/100/1000 variants, which behave the same).
fn int64_multiply_scale(a: i64, b: i64) -> Option<i64> {
    if a == 0 || a == 1 {
        return Some(a.wrapping_mul(b));
    }
    if a == i64::MIN && b != 1 {
        return None;
    }
    let c = a.wrapping_mul(b);
    (c.wrapping_div(b) == a).then_some(c)
}

/// Go's `positiveScaleInt64`: `base × 10^scale`, or None on overflow.
fn positive_scale(base: i64, scale: i32) -> Option<i64> {
    match scale {
        0 => Some(base),
        1 => int64_multiply_scale(base, 10),
        2 => int64_multiply_scale(base, 100),
        3 => int64_multiply_scale(base, 1000),
        6 => int64_multiply_scale(base, 1_000_000),
        9 => int64_multiply_scale(base, 1_000_000_000),
        // Go loops `scale` times; zero stays zero however long it loops.
        _ if base == 0 => Some(0),
        _ => (0..scale).try_fold(base, |v, _| int64_multiply_scale(v, 10)),
    }
}

/// Go's `divideByScaleInt64`: quotient and remainder by `10^scale`, None when
/// `scale >= 18` (not exact: the caller compares as decimals).
fn divide_by_scale(base: i64, scale: i32) -> Option<(i64, i64)> {
    if scale == 0 {
        return Some((base, 0));
    }
    // A negative difference only arises from wrapped scales (Go divides by zero there).
    if !(0..18).contains(&scale) {
        return None;
    }
    let divisor = 10i64.pow(scale as u32);
    Some((base / divisor, base % divisor))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn amt(value: i64, scale: i32) -> Int64Amount {
        Int64Amount { value, scale }
    }

    #[test]
    fn int64_add_detects_wrap_like_go() {
        assert_eq!(int64_add(i64::MAX, 1), None);
        assert_eq!(int64_add(i64::MIN, -1), None);
        assert_eq!(int64_add(i64::MIN, i64::MIN), None);
        assert_eq!(int64_add(i64::MAX, i64::MIN), Some(-1));
        assert_eq!(int64_multiply(i64::MAX / 2 + 1, 2), None);
        assert_eq!(int64_multiply(3, 1 << 60), Some(3 << 60));
    }

    #[test]
    fn as_int64_rejects_fractions_and_overflow() {
        let cases = [
            (amt(5, 0), Some(5)),
            (amt(50, 3), Some(50_000)),
            (amt(10, -1), None),
            (amt(9, 18), Some(9_000_000_000_000_000_000)),
            (amt(10, 18), None),
            (amt(1, 19), None),
            (amt(0, 2_000_000_000), Some(0)),
        ];
        for (amount, want) in cases {
            assert_eq!(amount.as_int64(), want, "{amount:?}");
        }
    }

    #[test]
    fn cmp_aligns_scales_exactly() {
        let cases = [
            (amt(1, 3), amt(1000, 0), Ordering::Equal),
            (amt(1, 3), amt(1001, 0), Ordering::Less),
            (amt(1, 3), amt(999, 0), Ordering::Greater),
            (amt(15, -1), amt(2, 0), Ordering::Less),
            (amt(1, 20), amt(i64::MAX, 0), Ordering::Greater),
            (amt(-1, 0), amt(-1, 1), Ordering::Greater),
        ];
        for (a, b, want) in cases {
            assert_eq!(a.cmp(b), want, "{a:?} vs {b:?}");
            assert_eq!(b.cmp(a), want.reverse(), "{b:?} vs {a:?}");
        }
    }

    #[test]
    fn add_takes_the_smaller_scale_and_fails_on_overflow() {
        let mut a = amt(50, 3);
        assert!(a.add(amt(20, 0)));
        assert_eq!(a, amt(50_020, 0));
        let mut b = amt(20, 0);
        assert!(b.add(amt(50, 3)));
        assert_eq!(b, amt(50_020, 0));
        let mut c = amt(i64::MAX, 0);
        assert!(!c.add(amt(1, 0)));
        assert_eq!(c, amt(i64::MAX, 0));
        let mut d = amt(1, 0);
        assert!(d.sub(amt(3, 0)));
        assert_eq!(d, amt(-2, 0));
    }
}
