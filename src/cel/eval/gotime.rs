//! Go's time parsing and formatting as CEL and kube use them: `time.ParseDuration`,
//! kube-openapi's `strfmt.ParseDuration` (Go's syntax, then `3 days`-style units),
//! `date` / `date-time` formats, strict RFC 3339 for `timestamp(string)`, and the
//! RFC 3339 rendering of `string(timestamp)`. Durations are Go's int64 nanoseconds.

use jiff::{SignedDuration, Timestamp};

/// cel-go's supported timestamp range: years 0001 to 9999.
pub const MIN_UNIX_SECONDS: i64 = -62_135_596_800;
pub const MAX_UNIX_SECONDS: i64 = 253_402_300_799;

const LIMIT: u64 = 1 << 63;

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

/// Go's `time.ParseDuration`, with its error texts.
pub fn parse_go_duration(orig: &str) -> Result<SignedDuration, String> {
    let invalid = || format!("time: invalid duration \"{orig}\"");
    let mut s = orig;
    let mut neg = false;
    if let Some(rest) = s.strip_prefix('-') {
        neg = true;
        s = rest;
    } else if let Some(rest) = s.strip_prefix('+') {
        s = rest;
    }
    if s == "0" {
        return Ok(SignedDuration::ZERO);
    }
    if s.is_empty() {
        return Err(invalid());
    }
    let mut total: u64 = 0;
    while !s.is_empty() {
        if !s.starts_with(|c: char| c == '.' || c.is_ascii_digit()) {
            return Err(invalid());
        }
        let int_len = s.bytes().take_while(u8::is_ascii_digit).count();
        let mut v: u64 = 0;
        for b in s[..int_len].bytes() {
            v = v
                .checked_mul(10)
                .and_then(|v| v.checked_add(u64::from(b - b'0')))
                .filter(|v| *v <= LIMIT)
                .ok_or_else(invalid)?;
        }
        s = &s[int_len..];
        let (mut frac, mut scale, mut frac_len) = (0u64, 1f64, 0);
        if let Some(rest) = s.strip_prefix('.') {
            s = rest;
            frac_len = s.bytes().take_while(u8::is_ascii_digit).count();
            let mut overflow = false;
            for b in s[..frac_len].bytes() {
                if overflow {
                    continue;
                }
                if frac > (i64::MAX as u64) / 10 {
                    overflow = true;
                    continue;
                }
                frac = frac * 10 + u64::from(b - b'0');
                scale *= 10.0;
            }
            s = &s[frac_len..];
        }
        if int_len == 0 && frac_len == 0 {
            return Err(invalid());
        }
        let unit_len = s
            .find(|c: char| c == '.' || c.is_ascii_digit())
            .unwrap_or(s.len());
        if unit_len == 0 {
            return Err(format!("time: missing unit in duration \"{orig}\""));
        }
        let unit = &s[..unit_len];
        s = &s[unit_len..];
        let Some(mult) = unit_nanos(unit) else {
            return Err(format!(
                "time: unknown unit \"{unit}\" in duration \"{orig}\""
            ));
        };
        if v > LIMIT / mult {
            return Err(invalid());
        }
        v *= mult;
        if frac > 0 {
            v += (frac as f64 * (mult as f64 / scale)) as u64;
            if v > LIMIT {
                return Err(invalid());
            }
        }
        total = total
            .checked_add(v)
            .filter(|t| *t <= LIMIT)
            .ok_or_else(invalid)?;
    }
    if neg {
        return Ok(SignedDuration::from_nanos((total as i64).wrapping_neg()));
    }
    if total > i64::MAX as u64 {
        return Err(invalid());
    }
    Ok(SignedDuration::from_nanos(total as i64))
}

const STRFMT_UNITS: [(&[&str], i64); 8] = [
    (&["ns", "nano"], 1),
    (&["us", "µs", "micro"], 1_000),
    (&["ms", "milli"], 1_000_000),
    (&["s", "sec"], 1_000_000_000),
    (&["m", "min"], 60_000_000_000),
    (&["h", "hr", "hour"], 3_600_000_000_000),
    (&["d", "day"], 86_400_000_000_000),
    (&["w", "wk", "week"], 604_800_000_000_000),
];

/// kube-openapi's `strfmt.ParseDuration`: Go's syntax, else every `<digits> <unit>`
/// match summed (`3 days`, `1 hour 30 mins`).
pub fn parse_strfmt_duration(s: &str) -> Result<SignedDuration, String> {
    if let Ok(d) = parse_go_duration(s) {
        return Ok(d);
    }
    let mut total: i64 = 0;
    let mut ok = false;
    let mut rest = s;
    while let Some(start) = rest.find(|c: char| c.is_ascii_digit()) {
        let digits_len = rest[start..].bytes().take_while(u8::is_ascii_digit).count();
        let digits = &rest[start..start + digits_len];
        let after = &rest[start + digits_len..];
        let ws = after.len() - after.trim_start().len();
        let unit_len = after[ws..]
            .find(|c: char| !(c.is_ascii_alphabetic() || c == 'µ'))
            .unwrap_or(after.len() - ws);
        if unit_len == 0 {
            rest = after;
            continue;
        }
        let unit = after[ws..ws + unit_len].to_lowercase();
        rest = &after[ws + unit_len..];
        let factor: i64 = digits
            .parse()
            .map_err(|_| format!("strconv.Atoi: parsing \"{digits}\": value out of range"))?;
        for (variants, mult) in STRFMT_UNITS {
            let last = variants.len() - 1;
            for (i, variant) in variants.iter().enumerate() {
                if (i == last && unit.starts_with(variant)) || unit.eq_ignore_ascii_case(variant) {
                    ok = true;
                    total = total.wrapping_add(factor.wrapping_mul(mult));
                }
            }
        }
    }
    if ok {
        Ok(SignedDuration::from_nanos(total))
    } else {
        Err(format!("unable to parse {s} as duration"))
    }
}

/// A duration as Go's int64 nanoseconds, `None` beyond that range.
pub fn nanos(d: SignedDuration) -> Option<i64> {
    i64::try_from(d.as_nanos()).ok()
}

/// `string(duration)`: seconds with the shortest decimals, then `s`.
pub fn format_duration(d: SignedDuration) -> String {
    let n = nanos(d).unwrap_or_default();
    let secs = (n / 1_000_000_000) as f64 + (n % 1_000_000_000) as f64 / 1e9;
    format!("{secs}s")
}

/// `format: date`: `2006-01-02` at midnight UTC.
pub fn parse_date(s: &str) -> Result<Timestamp, String> {
    let date: jiff::civil::Date = s
        .parse()
        .map_err(|e: jiff::Error| format!("parsing time \"{s}\": {e}"))?;
    date.to_zoned(jiff::tz::TimeZone::UTC)
        .map(|z| z.timestamp())
        .map_err(|e| e.to_string())
}

/// `format: date-time` as kube-openapi's `strfmt.ParseDateTime` accepts it: RFC 3339,
/// or a local date-time read as UTC.
pub fn parse_date_time(s: &str) -> Result<Timestamp, String> {
    if let Ok(t) = s.parse::<Timestamp>() {
        return Ok(t);
    }
    s.parse::<jiff::civil::DateTime>()
        .map_err(|e| format!("parsing time \"{s}\": {e}"))
        .and_then(|dt| {
            dt.to_zoned(jiff::tz::TimeZone::UTC)
                .map(|z| z.timestamp())
                .map_err(|e| e.to_string())
        })
}

/// cel-go's `isStrictRFC3339` then `time.Parse(time.RFC3339)` and its range check.
pub fn parse_strict_rfc3339(s: &str) -> Result<Timestamp, String> {
    let b = s.as_bytes();
    let digits =
        |r: std::ops::Range<usize>| b.get(r).is_some_and(|d| d.iter().all(u8::is_ascii_digit));
    let ch = |i: usize, c: u8| b.get(i).is_some_and(|x| x.eq_ignore_ascii_case(&c));
    let shape = b.len() >= 20
        && digits(0..4)
        && ch(4, b'-')
        && digits(5..7)
        && ch(7, b'-')
        && digits(8..10)
        && ch(10, b't')
        && digits(11..13)
        && ch(13, b':')
        && digits(14..16)
        && ch(16, b':')
        && digits(17..19);
    let mut rest = s.get(19..).unwrap_or_default();
    if let Some(frac) = rest.strip_prefix('.') {
        let n = frac.bytes().take_while(u8::is_ascii_digit).count();
        rest = if n == 0 { "!" } else { &frac[n..] };
    }
    let rb = rest.as_bytes();
    let zone = (rb.len() == 1 && rb[0].eq_ignore_ascii_case(&b'z'))
        || (rb.len() == 6
            && (rb[0] == b'+' || rb[0] == b'-')
            && rb[1..3].iter().all(u8::is_ascii_digit)
            && rb[3] == b':'
            && rb[4..6].iter().all(u8::is_ascii_digit));
    if !(shape && zone) {
        return Err(format!("invalid RFC 3339 timestamp {s:?}"));
    }
    let t: Timestamp = s.to_ascii_uppercase().parse().map_err(|_| {
        "type conversion error from 'string' to 'google.protobuf.Timestamp'".to_string()
    })?;
    check_range(t)
}

pub fn check_range(t: Timestamp) -> Result<Timestamp, String> {
    if (MIN_UNIX_SECONDS..=MAX_UNIX_SECONDS).contains(&t.as_second()) {
        Ok(t)
    } else {
        Err("timestamp overflow".to_string())
    }
}

/// Go's `time.RFC3339Nano` in UTC: fractional seconds without trailing zeros.
pub fn format_timestamp(t: Timestamp) -> String {
    let dt = t.to_zoned(jiff::tz::TimeZone::UTC).datetime();
    let mut out = format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
        dt.year(),
        dt.month(),
        dt.day(),
        dt.hour(),
        dt.minute(),
        dt.second()
    );
    let nanos = dt.subsec_nanosecond();
    if nanos > 0 {
        let frac = format!("{nanos:09}");
        out.push('.');
        out.push_str(frac.trim_end_matches('0'));
    }
    out.push('Z');
    out
}
