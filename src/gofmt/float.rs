//! Go's text for a float64: `fmt`'s `%v` (`strconv` `'g'`, shortest) and `encoding/json`'s
//! number form, both from Go's shortest round-trip digits.

/// Go's `%v` of a float64 (`strconv.FormatFloat(f, 'g', -1, 64)`): exponent form when the
/// decimal exponent is below -4 or at least 6 (`1e+06`, `1.5e-05`), else plain (`123456`);
/// `NaN`, `+Inf` and `-Inf` for the special values.
pub fn float_v(f: f64) -> String {
    if let Some(text) = special(f) {
        return text.to_string();
    }
    let (digits, exp) = shortest(f);
    if (-4..6).contains(&exp) {
        plain(f, &digits, exp)
    } else {
        exponent(f, &digits, exp, 2)
    }
}

/// Go's `encoding/json` text of a float64: plain (`'f'`) unless `|f|` is below 1e-6 or from
/// 1e21, then exponent form with a trimmed negative exponent (`1e-7`, `1e+21`). Go refuses
/// to encode NaN and infinities; they print as [`float_v`] does.
pub fn float_json(f: f64) -> String {
    if let Some(text) = special(f) {
        return text.to_string();
    }
    let (digits, exp) = shortest(f);
    let abs = f.abs();
    if abs == 0.0 || (1e-6..1e21).contains(&abs) {
        plain(f, &digits, exp)
    } else {
        exponent(f, &digits, exp, 1)
    }
}

fn special(f: f64) -> Option<&'static str> {
    if f.is_nan() {
        Some("NaN")
    } else if f.is_infinite() {
        Some(if f > 0.0 { "+Inf" } else { "-Inf" })
    } else {
        None
    }
}

/// Go's shortest round-trip digits of a finite `|f|` (`"15"`) and the power of ten of the
/// first digit (`-7` for 1.5e-7); zero is `("0", 0)`. Rust's `{:e}` breaks exact ties
/// upwards where Go rounds to even, so the digit count is taken from it and the digits from
/// the correctly rounded form when that round-trips.
fn shortest(f: f64) -> (String, i32) {
    let abs = f.abs();
    let rust = format!("{abs:e}");
    let count = rust
        .split('e')
        .next()
        .map_or(1, |m| m.replace('.', "").len());
    let even = format!("{:.*e}", count.saturating_sub(1), abs);
    let chosen = if even.parse::<f64>() == Ok(abs) {
        even
    } else {
        rust
    };
    let (mantissa, exp) = chosen.split_once('e').unwrap_or((&chosen, "0"));
    let digits = mantissa.replace('.', "");
    let digits = match digits.trim_end_matches('0') {
        "" => "0".to_string(),
        trimmed => trimmed.to_string(),
    };
    (digits, exp.parse().unwrap_or(0))
}

fn sign(f: f64) -> &'static str {
    if f.is_sign_negative() { "-" } else { "" }
}

/// `d.ddde±XX` (`strconv` `'e'`) with at least `min_exp_digits` exponent digits.
fn exponent(f: f64, digits: &str, exp: i32, min_exp_digits: usize) -> String {
    let (first, rest) = digits.split_at(1);
    let point = if rest.is_empty() { "" } else { "." };
    let exp_sign = if exp < 0 { '-' } else { '+' };
    let magnitude = exp.unsigned_abs();
    format!(
        "{}{first}{point}{rest}e{exp_sign}{magnitude:0min_exp_digits$}",
        sign(f)
    )
}

/// `ddd.ddd` (`strconv` `'f'`) with exactly the shortest digits.
fn plain(f: f64, digits: &str, exp: i32) -> String {
    let sign = sign(f);
    let Ok(whole_len @ 1..) = usize::try_from(exp + 1) else {
        let zeros = "0".repeat(exp.unsigned_abs() as usize - 1);
        return format!("{sign}0.{zeros}{digits}");
    };
    if digits.len() > whole_len {
        format!("{sign}{}.{}", &digits[..whole_len], &digits[whole_len..])
    } else {
        format!("{sign}{digits}{}", "0".repeat(whole_len - digits.len()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Exactly between two 17-digit candidates: Go keeps the even one (`...62`).
    const TIE_TO_EVEN: f64 = 1_629_824_278_314_106.0 + 0.25;

    #[test]
    fn float_v_matches_go_percent_v() {
        let cases: &[(f64, &str)] = &[
            (0.0, "0"),
            (-0.0, "-0"),
            (10.0, "10"),
            (2.0, "2"),
            (1.5, "1.5"),
            (0.1, "0.1"),
            (123456.0, "123456"),
            (999999.0, "999999"),
            (100000.0, "100000"),
            (1e6, "1e+06"),
            (1234567.0, "1.234567e+06"),
            (1e21, "1e+21"),
            (1e100, "1e+100"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (-2.5e-7, "-2.5e-07"),
            (-1.25e-7, "-1.25e-07"),
            (18446744073709551615.0, "1.8446744073709552e+19"),
            (TIE_TO_EVEN, "1.6298242783141062e+15"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "+Inf"),
            (f64::NEG_INFINITY, "-Inf"),
        ];
        for (value, want) in cases {
            assert_eq!(float_v(*value), *want, "value {value}");
        }
    }

    #[test]
    fn float_json_matches_encoding_json() {
        let cases: &[(f64, &str)] = &[
            (0.0, "0"),
            (-0.0, "-0"),
            (2.0, "2"),
            (1.5, "1.5"),
            (1e6, "1000000"),
            (1e20, "100000000000000000000"),
            (18446744073709551615.0, "18446744073709552000"),
            (1e21, "1e+21"),
            (0.000001, "0.000001"),
            (9.99999e-7, "9.99999e-7"),
            (1.5e-7, "1.5e-7"),
            (1e-10, "1e-10"),
            (5e-324, "5e-324"),
            (TIE_TO_EVEN, "1629824278314106.2"),
        ];
        for (value, want) in cases {
            assert_eq!(float_json(*value), *want, "value {value}");
        }
    }
}
