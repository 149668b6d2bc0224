//! A decoded JSON number as Go holds it (int64 or float64) and Go's float-to-int64
//! conversion.

use serde_json::Number;

use super::float_v;

/// A decoded JSON number as apimachinery's decoder holds it: int64 when it parses as one,
/// else float64.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Num {
    Int(i64),
    Float(f64),
}

impl Num {
    pub fn of(n: &Number) -> Num {
        match n.as_i64() {
            Some(i) => Num::Int(i),
            None => Num::Float(n.as_f64().unwrap_or(f64::NAN)),
        }
    }

    pub fn as_f64(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Float(f) => f,
        }
    }

    /// `%v` of the Go value.
    pub fn go(self) -> String {
        match self {
            Num::Int(i) => i.to_string(),
            Num::Float(f) => float_v(f),
        }
    }
}

/// Go's `int64(f)` on amd64: truncation toward zero; NaN and values out of range give the
/// "integer indefinite" value, the minimum int64.
pub fn f64_to_i64(f: f64) -> i64 {
    const LIMIT: f64 = 9_223_372_036_854_775_808.0; // 2^63
    if (-LIMIT..LIMIT).contains(&f) {
        f as i64
    } else {
        i64::MIN
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f64_to_i64_matches_go_amd64() {
        let cases = [
            ("truncates_positive", 2.9, 2),
            ("truncates_negative", -2.9, -2),
            ("min_exact", -9_223_372_036_854_775_808.0, i64::MIN),
            (
                "two_pow_63_indefinite",
                9_223_372_036_854_775_808.0,
                i64::MIN,
            ),
            ("below_min_indefinite", -1e19, i64::MIN),
            ("nan_indefinite", f64::NAN, i64::MIN),
            ("infinity_indefinite", f64::INFINITY, i64::MIN),
        ];
        for (name, value, want) in cases {
            assert_eq!(f64_to_i64(value), want, "{name}");
        }
    }

    #[test]
    fn num_of_int64_else_float64() {
        let cases = [
            ("int", "-5", Num::Int(-5), "-5"),
            ("integral_float", "3.0", Num::Float(3.0), "3"),
            (
                "beyond_int64",
                "18446744073709551615",
                Num::Float(1.8446744073709552e19),
                "1.8446744073709552e+19",
            ),
        ];
        for (name, text, want, printed) in cases {
            let n: Number = serde_json::from_str(text).expect(name);
            assert_eq!(Num::of(&n), want, "{name}");
            assert_eq!(Num::of(&n).go(), printed, "{name}");
        }
    }
}
