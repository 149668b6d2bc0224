//! Go's `time.ParseDuration`, with its error texts and the `time` package's own quoting, and
//! `time.Duration.String`.

/// Go's `1<<63`: a duration is int64 nanoseconds, and Go sums magnitudes in a uint64.
const LIMIT: u64 = 1 << 63;

/// Go's `time.ParseDuration`: `[-+]?([0-9]*(\.[0-9]*)?[a-z]+)+` or `0`, as (negative as
/// written, nanoseconds); a negative magnitude may be 2^63. The error is Go's text
/// (`time: invalid duration "abc"`).
pub fn parse_duration(orig: &str) -> Result<(bool, u64), String> {
    let (negative, mut rest) = match orig.as_bytes().first() {
        Some(b'-') => (true, &orig[1..]),
        Some(b'+') => (false, &orig[1..]),
        _ => (false, orig),
    };
    if rest == "0" {
        return Ok((negative, 0));
    }
    if rest.is_empty() {
        return Err(invalid(orig));
    }
    let mut total: u64 = 0;
    while !rest.is_empty() {
        let (nanos, tail) = term(rest, orig)?;
        // Go adds without a wrap check: 2^63 + 2^63 wraps to 0 and is accepted.
        total = total.wrapping_add(nanos);
        if total > LIMIT {
            return Err(invalid(orig));
        }
        rest = tail;
    }
    if !negative && total > LIMIT - 1 {
        return Err(invalid(orig));
    }
    Ok((negative, total))
}

/// [`parse_duration`] as the `time.Duration` Go returns: int64 nanoseconds.
pub fn parse_duration_nanos(orig: &str) -> Result<i64, String> {
    let (negative, nanos) = parse_duration(orig)?;
    // The magnitude is below 2^63 unless negative, where 2^63 is int64's minimum.
    Ok(if negative {
        0i64.wrapping_sub_unsigned(nanos)
    } else {
        0i64.wrapping_add_unsigned(nanos)
    })
}

/// Go's `time.Duration.String` of int64 nanoseconds: `0s`, `1.5ms`, `3s`, `1h2m0.5s`.
pub fn format_duration(nanos: i64) -> String {
    let u = nanos.unsigned_abs();
    let sign = if nanos < 0 { "-" } else { "" };
    if u == 0 {
        return "0s".into();
    }
    if u < 1_000_000_000 {
        let (prec, unit) = match u {
            0..1_000 => (0, "ns"),
            1_000..1_000_000 => (3, "µs"),
            _ => (6, "ms"),
        };
        let (whole, frac) = fraction(u, prec);
        return format!("{sign}{whole}{frac}{unit}");
    }
    let (secs, frac) = fraction(u, 9);
    let (h, m, s) = (secs / 3600, secs / 60 % 60, secs % 60);
    match (h, secs / 60) {
        (0, 0) => format!("{sign}{s}{frac}s"),
        (0, _) => format!("{sign}{m}m{s}{frac}s"),
        _ => format!("{sign}{h}h{m}m{s}{frac}s"),
    }
}

/// Go's `fmtFrac`: `v / 10^prec` and the fraction as `.ddd` without trailing zeros (empty
/// when zero).
fn fraction(v: u64, prec: u32) -> (u64, String) {
    let scale = 10u64.pow(prec);
    let frac = v % scale;
    if frac == 0 {
        return (v / scale, String::new());
    }
    let digits = format!("{frac:0width$}", width = prec as usize);
    (v / scale, format!(".{}", digits.trim_end_matches('0')))
}

/// One `<number><unit>` of `orig`: its nanoseconds (at most 2^63) and what follows.
fn term<'a>(s: &'a str, orig: &str) -> Result<(u64, &'a str), String> {
    if !s.starts_with(|c: char| c == '.' || c.is_ascii_digit()) {
        return Err(invalid(orig));
    }
    let int_len = s.bytes().take_while(u8::is_ascii_digit).count();
    let whole = leading_int(&s[..int_len]).ok_or_else(|| invalid(orig))?;
    let mut rest = &s[int_len..];
    let (mut fraction, mut scale, mut frac_len) = (0u64, 1f64, 0);
    if let Some(after) = rest.strip_prefix('.') {
        frac_len = after.bytes().take_while(u8::is_ascii_digit).count();
        (fraction, scale) = leading_fraction(&after[..frac_len]);
        rest = &after[frac_len..];
    }
    if int_len == 0 && frac_len == 0 {
        return Err(invalid(orig));
    }
    let unit_len = rest
        .bytes()
        .take_while(|b| *b != b'.' && !b.is_ascii_digit())
        .count();
    if unit_len == 0 {
        return Err(format!("time: missing unit in duration {}", quote(orig)));
    }
    let unit_text = &rest[..unit_len];
    let unit = unit_nanos(unit_text).ok_or_else(|| {
        format!(
            "time: unknown unit {} in duration {}",
            quote(unit_text),
            quote(orig)
        )
    })?;
    if whole > LIMIT / unit {
        return Err(invalid(orig));
    }
    let mut nanos = whole * unit;
    if fraction > 0 {
        // Go goes through float64 the same way, to stay exact for fractions of hours.
        nanos += (fraction as f64 * (unit as f64 / scale)) as u64;
        if nanos > LIMIT {
            return Err(invalid(orig));
        }
    }
    Ok((nanos, &rest[unit_len..]))
}

/// Go's `unitMap`.
fn unit_nanos(unit: &str) -> Option<u64> {
    Some(match unit {
        "ns" => 1,
        "us" | "µs" | "μs" => 1_000,
        "ms" => 1_000_000,
        "s" => 1_000_000_000,
        "m" => 60_000_000_000,
        "h" => 3_600_000_000_000,
        _ => return None,
    })
}

/// Go's `leadingInt` over ASCII digits: `None` once the value passes 2^63.
fn leading_int(digits: &str) -> Option<u64> {
    digits.bytes().try_fold(0u64, |value, d| {
        if value > LIMIT / 10 {
            return None;
        }
        Some(value * 10 + u64::from(d - b'0')).filter(|v| *v <= LIMIT)
    })
}

/// Go's `leadingFraction`: digits until the value would pass 2^63, and 10^digits used.
fn leading_fraction(digits: &str) -> (u64, f64) {
    let (mut value, mut scale) = (0u64, 1f64);
    for d in digits.bytes() {
        if value > (LIMIT - 1) / 10 {
            break;
        }
        let next = value * 10 + u64::from(d - b'0');
        if next > LIMIT {
            break;
        }
        value = next;
        scale *= 10.0;
    }
    (value, scale)
}

fn invalid(orig: &str) -> String {
    format!("time: invalid duration {}", quote(orig))
}

/// The `time` package's own `quote`: ASCII from space up (DEL included) as is, `"` and `\`
/// escaped, every byte of anything else as `\xNN`.
fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        if c.is_ascii() && c >= ' ' {
            if c == '"' || c == '\\' {
                out.push('\\');
            }
            out.push(c);
        } else {
            for b in c.encode_utf8(&mut [0; 4]).bytes() {
                out.push_str(&format!("\\x{b:02x}"));
            }
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Go's `durationTests` (src/time/time_test.go) and the signs.
    #[test]
    fn format_duration_matches_go_string() {
        let table: &[(i64, &str)] = &[
            (0, "0s"),
            (1, "1ns"),
            (1_100, "1.1µs"),
            (2_200_000, "2.2ms"),
            (3_300_000_000, "3.3s"),
            (240_000_000_000, "4m0s"),
            (245_000_000_000, "4m5s"),
            (245_001_000_000, "4m5.001s"),
            (18_245_001_000_000, "5h4m5.001s"),
            (18_000_000_000_001, "5h0m0.000000001s"),
            (i64::MAX, "2562047h47m16.854775807s"),
            (i64::MIN, "-2562047h47m16.854775808s"),
            (-3_000_000_000, "-3s"),
        ];
        for (nanos, want) in table {
            assert_eq!(format_duration(*nanos), *want, "{nanos}");
        }
    }

    /// Go 1.27's `parseDurationTests` (src/time/time_test.go), values as Go's int64.
    const VALID: &[(&str, i64)] = &[
        ("0", 0),
        ("5s", 5_000_000_000),
        ("30s", 30_000_000_000),
        ("1478s", 1_478_000_000_000),
        ("-5s", -5_000_000_000),
        ("+5s", 5_000_000_000),
        ("-0", 0),
        ("+0", 0),
        ("5.0s", 5_000_000_000),
        ("5.6s", 5_600_000_000),
        ("5.s", 5_000_000_000),
        (".5s", 500_000_000),
        ("1.0s", 1_000_000_000),
        ("1.00s", 1_000_000_000),
        ("1.004s", 1_004_000_000),
        ("1.0040s", 1_004_000_000),
        ("100.00100s", 100_001_000_000),
        ("10ns", 10),
        ("11us", 11_000),
        ("12µs", 12_000),
        ("12μs", 12_000),
        ("13ms", 13_000_000),
        ("14s", 14_000_000_000),
        ("15m", 900_000_000_000),
        ("16h", 57_600_000_000_000),
        ("3h30m", 12_600_000_000_000),
        ("10.5s4m", 250_500_000_000),
        ("-2m3.4s", -123_400_000_000),
        ("1h2m3s4ms5us6ns", 3_723_004_005_006),
        ("39h9m14.425s", 140_954_425_000_000),
        ("52763797000ns", 52_763_797_000),
        ("0.3333333333333333333h", 1_200_000_000_000),
        ("9007199254740993ns", 9_007_199_254_740_993),
        ("9223372036854775807ns", i64::MAX),
        ("9223372036854775.807us", i64::MAX),
        ("9223372036s854ms775us807ns", i64::MAX),
        ("-9223372036854775808ns", i64::MIN),
        ("-9223372036854775.808us", i64::MIN),
        ("-9223372036s854ms775us808ns", i64::MIN),
        ("-2562047h47m16.854775808s", i64::MIN),
        ("0.100000000000000000000h", 360_000_000_000),
        ("0.830103483285477580700h", 2_988_372_539_827),
        // Not in Go's table; values from Go 1.27's ParseDuration.
        ("9223372036854775808ns9223372036854775808ns", 0),
        ("0.9223372036854775809h", 3_320_413_933_267),
    ];

    /// Go 1.27's `parseDurationErrorTests` with the whole error text Go prints (its table
    /// checks only the quoted part). The two cases of invalid UTF-8 cannot be a `&str`.
    const INVALID: &[(&str, &str)] = &[
        ("", r#"time: invalid duration """#),
        ("3", r#"time: missing unit in duration "3""#),
        ("-", r#"time: invalid duration "-""#),
        ("s", r#"time: invalid duration "s""#),
        (".", r#"time: invalid duration ".""#),
        ("-.", r#"time: invalid duration "-.""#),
        (".s", r#"time: invalid duration ".s""#),
        ("+.s", r#"time: invalid duration "+.s""#),
        ("1d", r#"time: unknown unit "d" in duration "1d""#),
        ("\u{FFFD}", r#"time: invalid duration "\xef\xbf\xbd""#),
        (
            "\u{FFFD} hello \u{FFFD} world",
            r#"time: invalid duration "\xef\xbf\xbd hello \xef\xbf\xbd world""#,
        ),
        (
            "9223372036854775810ns",
            r#"time: invalid duration "9223372036854775810ns""#,
        ),
        (
            "9223372036854775808ns",
            r#"time: invalid duration "9223372036854775808ns""#,
        ),
        (
            "-9223372036854775809ns",
            r#"time: invalid duration "-9223372036854775809ns""#,
        ),
        (
            "9223372036854776us",
            r#"time: invalid duration "9223372036854776us""#,
        ),
        ("3000000h", r#"time: invalid duration "3000000h""#),
        (
            "9223372036854775.808us",
            r#"time: invalid duration "9223372036854775.808us""#,
        ),
        (
            "9223372036854ms775us808ns",
            r#"time: invalid duration "9223372036854ms775us808ns""#,
        ),
        // Not in Go's table; texts from Go 1.27's ParseDuration.
        (
            "1\u{7f}",
            "time: unknown unit \"\u{7f}\" in duration \"1\u{7f}\"",
        ),
        (
            "1\"x\\",
            r#"time: unknown unit "\"x\\" in duration "1\"x\\""#,
        ),
        (
            "1é",
            r#"time: unknown unit "\xc3\xa9" in duration "1\xc3\xa9""#,
        ),
        ("1\ts", r#"time: unknown unit "\x09s" in duration "1\x09s""#),
    ];

    #[test]
    fn parse_duration_valid_go_cases_give_go_values() {
        for (text, want) in VALID {
            assert_eq!(parse_duration_nanos(text), Ok(*want), "{text:?}");
        }
    }

    #[test]
    fn parse_duration_invalid_go_cases_give_go_errors() {
        for (text, want) in INVALID {
            assert_eq!(parse_duration(text), Err(want.to_string()), "{text:?}");
            assert_eq!(
                parse_duration_nanos(text),
                Err(want.to_string()),
                "{text:?}"
            );
        }
    }

    #[test]
    fn parse_duration_sign_is_as_written() {
        assert_eq!(parse_duration("-0"), Ok((true, 0)));
        assert_eq!(parse_duration("+0"), Ok((false, 0)));
        assert_eq!(
            parse_duration("-9223372036854775808ns"),
            Ok((true, 1 << 63))
        );
        assert_eq!(parse_duration("1.5m"), Ok((false, 90_000_000_000)));
    }
}
