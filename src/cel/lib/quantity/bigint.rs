//! Arbitrary-precision signed integers: the part of Go's `math/big.Int` that quantities
//! need as the unscaled value of an `inf.Dec` (parse, scale by powers of ten and two,
//! add, compare, convert to float).

use std::cmp::Ordering;

const BASE: u64 = 1 << 32;
/// The largest power of ten in a limb.
const TEN_9: u32 = 1_000_000_000;

/// A signed integer: magnitude in little-endian 32-bit limbs without trailing zero limbs;
/// zero is never negative.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BigInt {
    negative: bool,
    mag: Vec<u32>,
}

impl BigInt {
    pub fn from_i64(v: i64) -> BigInt {
        let abs = v.unsigned_abs();
        let mut n = BigInt {
            negative: v < 0,
            mag: vec![abs as u32, (abs >> 32) as u32],
        };
        n.trim();
        n
    }

    /// An integer from ASCII decimal digits (any count, at least one).
    pub fn from_digits(digits: &[u8], negative: bool) -> Option<BigInt> {
        if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let mut n = BigInt::default();
        // Nine digits per step: each fits a limb multiplier.
        for chunk in digits.chunks(9) {
            let mut value = 0u32;
            for d in chunk {
                value = value * 10 + u32::from(d - b'0');
            }
            n.mul_add_small(10u32.pow(chunk.len() as u32), value);
        }
        n.negative = negative;
        n.trim();
        Some(n)
    }

    pub fn signum(&self) -> i64 {
        match (self.mag.is_empty(), self.negative) {
            (true, _) => 0,
            (false, true) => -1,
            (false, false) => 1,
        }
    }

    pub fn is_zero(&self) -> bool {
        self.mag.is_empty()
    }

    pub fn negated(mut self) -> BigInt {
        self.negative = !self.negative;
        self.trim();
        self
    }

    pub fn abs(mut self) -> BigInt {
        self.negative = false;
        self
    }

    /// `self * 10^n`.
    pub fn mul_pow10(&mut self, mut n: u32) {
        while n >= 9 {
            self.mul_add_small(TEN_9, 0);
            n -= 9;
        }
        self.mul_add_small(10u32.pow(n), 0);
    }

    /// `self * 2^n`.
    pub fn mul_pow2(&mut self, mut n: u32) {
        while n >= 31 {
            self.mul_add_small(1 << 31, 0);
            n -= 31;
        }
        self.mul_add_small(1 << n, 0);
    }

    /// Divides by `10^n` truncating toward zero; true when a non-zero remainder was dropped.
    pub fn div_pow10(&mut self, mut n: u32) -> bool {
        let mut inexact = false;
        while n > 0 && !self.is_zero() {
            let step = n.min(9);
            inexact |= self.div_small(10u32.pow(step)) != 0;
            n -= step;
        }
        self.trim();
        inexact
    }

    pub fn add(&self, other: &BigInt) -> BigInt {
        if self.negative == other.negative {
            return BigInt {
                negative: self.negative,
                mag: add_mag(&self.mag, &other.mag),
            };
        }
        let (mag, negative) = match cmp_mag(&self.mag, &other.mag) {
            Ordering::Less => (sub_mag(&other.mag, &self.mag), other.negative),
            _ => (sub_mag(&self.mag, &other.mag), self.negative),
        };
        let mut result = BigInt { negative, mag };
        result.trim();
        result
    }

    /// The decimal digits of the magnitude (`"0"` for zero).
    pub fn magnitude_digits(&self) -> String {
        let mut n = self.clone();
        let mut chunks = Vec::new();
        while !n.is_zero() {
            chunks.push(n.div_small(TEN_9));
            n.trim();
        }
        let mut out = chunks
            .pop()
            .map_or_else(|| "0".to_string(), |c| c.to_string());
        for chunk in chunks.iter().rev() {
            out.push_str(&format!("{chunk:09}"));
        }
        out
    }

    /// The nearest `f64`, ties to even (Go's `big.Float.SetInt(x).Float64()`): Rust's
    /// decimal parser rounds correctly, so the exact digits are handed to it.
    pub fn to_f64(&self) -> f64 {
        let digits = self.magnitude_digits();
        let abs = digits.parse::<f64>().unwrap_or(f64::INFINITY);
        if self.negative { -abs } else { abs }
    }

    fn mul_add_small(&mut self, m: u32, add: u32) {
        let mut carry = u64::from(add);
        for limb in &mut self.mag {
            let v = u64::from(*limb) * u64::from(m) + carry;
            *limb = (v % BASE) as u32;
            carry = v / BASE;
        }
        if carry > 0 {
            self.mag.push(carry as u32);
        }
        self.trim();
    }

    /// Divides the magnitude in place, returning the remainder.
    fn div_small(&mut self, d: u32) -> u32 {
        let mut rem = 0u64;
        for limb in self.mag.iter_mut().rev() {
            let v = rem * BASE + u64::from(*limb);
            *limb = (v / u64::from(d)) as u32;
            rem = v % u64::from(d);
        }
        rem as u32
    }

    fn trim(&mut self) {
        while self.mag.last() == Some(&0) {
            self.mag.pop();
        }
        if self.mag.is_empty() {
            self.negative = false;
        }
    }
}

fn cmp_mag(a: &[u32], b: &[u32]) -> Ordering {
    a.len()
        .cmp(&b.len())
        .then_with(|| a.iter().rev().cmp(b.iter().rev()))
}

fn add_mag(a: &[u32], b: &[u32]) -> Vec<u32> {
    let (long, short) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    let mut out = Vec::with_capacity(long.len() + 1);
    let mut carry = 0u64;
    for (i, &limb) in long.iter().enumerate() {
        let v = u64::from(limb) + u64::from(short.get(i).copied().unwrap_or(0)) + carry;
        out.push((v % BASE) as u32);
        carry = v / BASE;
    }
    if carry > 0 {
        out.push(carry as u32);
    }
    out
}

/// `a - b` for `a >= b`.
fn sub_mag(a: &[u32], b: &[u32]) -> Vec<u32> {
    let mut out = Vec::with_capacity(a.len());
    let mut borrow = 0i64;
    for (i, &limb) in a.iter().enumerate() {
        let mut v = i64::from(limb) - i64::from(b.get(i).copied().unwrap_or(0)) - borrow;
        borrow = i64::from(v < 0);
        if v < 0 {
            v += BASE as i64;
        }
        out.push(v as u32);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn big(s: &str) -> BigInt {
        let (neg, digits) = s.strip_prefix('-').map_or((false, s), |d| (true, d));
        BigInt::from_digits(digits.as_bytes(), neg).unwrap()
    }

    fn show(n: &BigInt) -> String {
        format!(
            "{}{}",
            if n.signum() < 0 { "-" } else { "" },
            n.magnitude_digits()
        )
    }

    #[test]
    fn from_digits_round_trips() {
        for s in [
            "0",
            "1",
            "-1",
            "4294967296",
            "123456789012345678901234567890",
            "-999999999999",
        ] {
            assert_eq!(show(&big(s)), s);
        }
        assert_eq!(show(&big("000123")), "123");
        assert!(BigInt::from_digits(b"", false).is_none());
        assert!(BigInt::from_digits(b"1a", false).is_none());
    }

    #[test]
    fn arithmetic_matches_decimal_expectations() {
        let cases = [
            (
                "99999999999999999999",
                "1",
                "100000000000000000000",
                "99999999999999999998",
            ),
            ("-5", "3", "-2", "-8"),
            ("5", "-30000000000", "-29999999995", "30000000005"),
            ("0", "-1", "-1", "1"),
        ];
        for (a, b, sum, diff) in cases {
            assert_eq!(show(&big(a).add(&big(b))), sum, "{a} + {b}");
            assert_eq!(show(&big(a).add(&big(b).negated())), diff, "{a} - {b}");
        }
    }

    #[test]
    fn scaling_by_powers_multiplies_and_divides() {
        let mut n = big("-12");
        n.mul_pow10(20);
        assert_eq!(show(&n), "-1200000000000000000000");
        assert!(!n.div_pow10(19));
        assert_eq!(show(&n), "-120");
        assert!(n.div_pow10(2));
        assert_eq!(show(&n), "-1");
        let mut p = big("3");
        p.mul_pow2(60);
        assert_eq!(show(&p), "3458764513820540928");
    }

    #[test]
    fn conversions_from_i64_and_to_f64() {
        assert_eq!(big("9007199254740993").to_f64(), 9007199254740992.0);
        assert_eq!(big("-1").to_f64(), -1.0);
        assert_eq!(show(&BigInt::from_i64(i64::MIN)), "-9223372036854775808");
    }
}
