//! The `timeout` query parameter of requests that are not long-running, checked as kube's
//! request-deadline filter checks it (with Go's `time.ParseDuration` and its error texts)
//! before authentication.

use std::time::Duration;

use crate::error::ApiError;
use crate::request::query::Query;

/// Go's `1<<63`: durations are int64 nanoseconds.
const LIMIT: u64 = 1 << 63;

/// `timeout`, when given: a 400 `invalid timeout specified in the request URL - <Go's
/// ParseDuration error>` when it does not parse. Negative values are kube's "no timeout".
pub fn request_timeout(query: &Query) -> Result<Option<Duration>, ApiError> {
    let value = query.get("timeout").unwrap_or_default();
    if value.is_empty() {
        return Ok(None);
    }
    let (negative, nanos) = parse_go_duration(value).map_err(|e| {
        ApiError::BadRequest(format!(
            "invalid timeout specified in the request URL - {e}"
        ))
    })?;
    Ok((!negative).then(|| Duration::from_nanos(nanos)))
}

/// Go's `time.ParseDuration`: `[-+]?([0-9]*(\.[0-9]*)?[a-z]+)+` or `0`, as (negative,
/// nanoseconds); the error is Go's text (`time: invalid duration "abc"`).
pub fn parse_go_duration(text: &str) -> Result<(bool, u64), String> {
    let invalid = || format!("time: invalid duration {}", time_quote(text));
    let (negative, mut rest) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    if rest == "0" {
        return Ok((negative, 0));
    }
    if rest.is_empty() {
        return Err(invalid());
    }
    let mut total: u64 = 0;
    while !rest.is_empty() {
        let (nanos, tail) = term(rest, text)?;
        total = total
            .checked_add(nanos)
            .filter(|t| *t <= LIMIT)
            .ok_or_else(invalid)?;
        rest = tail;
    }
    if !negative && total > LIMIT - 1 {
        return Err(invalid());
    }
    Ok((negative, total))
}

/// One `<number><unit>` of `whole`: its nanoseconds and what follows.
fn term<'a>(s: &'a str, whole: &str) -> Result<(u64, &'a str), String> {
    let invalid = || format!("time: invalid duration {}", time_quote(whole));
    if !s.starts_with(|c: char| c == '.' || c.is_ascii_digit()) {
        return Err(invalid());
    }
    let int_len = s.bytes().take_while(u8::is_ascii_digit).count();
    let mut value: u64 = 0;
    for d in s[..int_len].bytes() {
        if value > LIMIT / 10 {
            return Err(invalid());
        }
        value = value * 10 + u64::from(d - b'0');
        if value > LIMIT {
            return Err(invalid());
        }
    }
    let mut rest = &s[int_len..];
    let (mut fraction, mut scale, mut frac_len) = (0u64, 1f64, 0);
    if let Some(after) = rest.strip_prefix('.') {
        frac_len = after.bytes().take_while(u8::is_ascii_digit).count();
        (fraction, scale) = leading_fraction(&after[..frac_len]);
        rest = &after[frac_len..];
    }
    if int_len == 0 && frac_len == 0 {
        return Err(invalid());
    }
    let unit_len = rest
        .bytes()
        .take_while(|b| *b != b'.' && !b.is_ascii_digit())
        .count();
    if unit_len == 0 {
        return Err(format!(
            "time: missing unit in duration {}",
            time_quote(whole)
        ));
    }
    let unit_text = &rest[..unit_len];
    let unit: u64 = match unit_text {
        "ns" => 1,
        "us" | "µs" | "μs" => 1_000,
        "ms" => 1_000_000,
        "s" => 1_000_000_000,
        "m" => 60_000_000_000,
        "h" => 3_600_000_000_000,
        _ => {
            return Err(format!(
                "time: unknown unit {} in duration {}",
                time_quote(unit_text),
                time_quote(whole)
            ));
        }
    };
    if value > LIMIT / unit {
        return Err(invalid());
    }
    let mut nanos = value * unit;
    if fraction > 0 {
        // Go goes through float64 the same way.
        nanos += (fraction as f64 * (unit as f64 / scale)) as u64;
        if nanos > LIMIT {
            return Err(invalid());
        }
    }
    Ok((nanos, &rest[unit_len..]))
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

/// The `time` package's own `quote`: ASCII printable as is (`"` and `\` escaped), every
/// byte of anything else as `\xNN`.
fn time_quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        if c.is_ascii() && !c.is_ascii_control() {
            if c == '"' || c == '\\' {
                out.push('\\');
            }
            out.push(c);
        } else {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
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

    #[test]
    fn parse_go_duration_errors_as_go_words_them() {
        type Case<'a> = (&'a str, Result<(bool, u64), &'a str>);
        let cases: [Case; 12] = [
            ("1s", Ok((false, 1_000_000_000))),
            ("-1s", Ok((true, 1_000_000_000))),
            ("1.5m", Ok((false, 90_000_000_000))),
            ("0", Ok((false, 0))),
            ("1h2m3s4ms5us6ns", Ok((false, 3_723_004_005_006))),
            ("abc", Err(r#"time: invalid duration "abc""#)),
            ("1", Err(r#"time: missing unit in duration "1""#)),
            ("1x", Err(r#"time: unknown unit "x" in duration "1x""#)),
            ("", Err(r#"time: invalid duration """#)),
            (".s", Err(r#"time: invalid duration ".s""#)),
            (
                "9999999999h",
                Err(r#"time: invalid duration "9999999999h""#),
            ),
            (
                "1é",
                Err(r#"time: unknown unit "\xc3\xa9" in duration "1\xc3\xa9""#),
            ),
        ];
        for (text, want) in cases {
            let got = parse_go_duration(text);
            assert_eq!(got, want.map_err(str::to_string), "{text}");
        }
    }

    #[test]
    fn request_timeout_bad_value_is_kube_400() {
        let err = request_timeout(&Query::parse("timeout=abc")).unwrap_err();
        assert_eq!(err.code(), 400);
        assert_eq!(
            err.to_string(),
            r#"invalid timeout specified in the request URL - time: invalid duration "abc""#
        );
        let ok = request_timeout(&Query::parse("timeout=2s")).unwrap();
        assert_eq!(ok, Some(Duration::from_secs(2)));
        assert_eq!(request_timeout(&Query::parse("timeout=-1s")).unwrap(), None);
        assert_eq!(request_timeout(&Query::parse("")).unwrap(), None);
    }
}
