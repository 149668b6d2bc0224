//! Go's time parsing and formatting as CEL and kube use them: `time.ParseDuration`,
//! kube-openapi's `strfmt.ParseDuration` (Go's syntax, then `3 days`-style units),
//! `date` / `date-time` formats, strict RFC 3339 for `timestamp(string)`, and the
//! RFC 3339 rendering of `string(timestamp)`. Durations are Go's int64 nanoseconds.

use jiff::{SignedDuration, Timestamp};

/// cel-go's supported timestamp range: years 0001 to 9999.
pub const MIN_UNIX_SECONDS: i64 = -62_135_596_800;
pub const MAX_UNIX_SECONDS: i64 = 253_402_300_799;

/// Go's `time.ParseDuration`, with its error texts.
pub fn parse_go_duration(orig: &str) -> Result<SignedDuration, String> {
    crate::gofmt::parse_duration_nanos(orig).map(SignedDuration::from_nanos)
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

/// cel-go's `isStrictRFC3339` (shape and field ranges, case-insensitive `T` and `Z`)
/// then Go's `time.Parse(time.RFC3339)` (upper-case `T` and `Z`, real dates, no leap
/// second, fractions beyond nanoseconds truncated) and cel-go's range check.
pub fn parse_strict_rfc3339(s: &str) -> Result<Timestamp, String> {
    let fields =
        strict_rfc3339_fields(s).ok_or_else(|| format!("invalid RFC 3339 timestamp {s:?}"))?;
    let parse_error =
        || "type conversion error from 'string' to 'google.protobuf.Timestamp'".to_string();
    if !fields.upper_case {
        return Err(parse_error());
    }
    let [year, month, day, hour, minute, second] = fields.civil;
    let dt = jiff::civil::DateTime::new(
        year as i16,
        month as i8,
        day as i8,
        hour as i8,
        minute as i8,
        second as i8,
        fields.nanos,
    )
    .map_err(|_| parse_error())?;
    let offset =
        jiff::tz::Offset::from_seconds(fields.offset_seconds).map_err(|_| parse_error())?;
    // jiff ends its range a day before Go's year 9999; such instants overflow here.
    let t = offset
        .to_timestamp(dt)
        .map_err(|_| "timestamp overflow".to_string())?;
    check_range(t)
}

/// The parts of a timestamp `isStrictRFC3339` accepts.
struct Rfc3339Fields {
    /// Year, month, day, hour, minute, second.
    civil: [i64; 6],
    nanos: i32,
    offset_seconds: i32,
    /// `T` and `Z` in upper case, as Go's parser requires.
    upper_case: bool,
}

fn strict_rfc3339_fields(s: &str) -> Option<Rfc3339Fields> {
    let b = s.as_bytes();
    let num = |r: std::ops::Range<usize>, lo: i64, hi: i64| -> Option<i64> {
        let d = b.get(r)?;
        let v = d.iter().try_fold(0i64, |acc, c| {
            c.is_ascii_digit().then(|| acc * 10 + i64::from(c - b'0'))
        })?;
        (lo..=hi).contains(&v).then_some(v)
    };
    let sep = |i: usize, c: u8| b.get(i).is_some_and(|x| x.eq_ignore_ascii_case(&c));
    if b.len() < 20 || !(sep(4, b'-') && sep(7, b'-') && sep(10, b't')) {
        return None;
    }
    if !(sep(13, b':') && sep(16, b':')) {
        return None;
    }
    let civil = [
        num(0..4, 0, 9999)?,
        num(5..7, 1, 12)?,
        num(8..10, 1, 31)?,
        num(11..13, 0, 23)?,
        num(14..16, 0, 59)?,
        num(17..19, 0, 60)?,
    ];
    let mut rest = &b[19..];
    let mut nanos = 0i32;
    if let Some(frac) = rest.strip_prefix(b".") {
        let n = frac.iter().take_while(|c| c.is_ascii_digit()).count();
        if n == 0 {
            return None;
        }
        let kept = &frac[..n.min(9)];
        let digits = kept
            .iter()
            .fold(0i32, |acc, c| acc * 10 + i32::from(c - b'0'));
        nanos = digits * 10i32.pow(9 - kept.len() as u32);
        rest = &frac[n..];
    }
    let mut upper_case = b[10] == b'T';
    let offset_seconds = match rest {
        [z] if z.eq_ignore_ascii_case(&b'z') => {
            upper_case &= *z == b'Z';
            0
        }
        [sign @ (b'+' | b'-'), _, _, b':', _, _] => {
            let at = b.len() - 5;
            let (h, m) = (num(at..at + 2, 0, 23)?, num(at + 3..at + 5, 0, 59)?);
            let secs = (h * 3600 + m * 60) as i32;
            if *sign == b'-' { -secs } else { secs }
        }
        _ => return None,
    };
    Some(Rfc3339Fields {
        civil,
        nanos,
        offset_seconds,
        upper_case,
    })
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
