//! Formats `date`, `date-time` and `duration` as kube-openapi's strfmt checks them:
//! `time.Parse("2006-01-02")`, `IsDateTime` (a regex, not a layout parse) and
//! `ParseDuration` (Go's `time.ParseDuration`, else a lenient "3 days" reading).

use super::Rx;

/// `date`: `YYYY-MM-DD`, a real calendar day (proleptic Gregorian, year 0 is leap).
pub(super) fn is_date(value: &str) -> bool {
    let b = value.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let number = |range: std::ops::Range<usize>| {
        b[range].iter().try_fold(0u32, |n, d| {
            d.is_ascii_digit().then(|| n * 10 + u32::from(d - b'0'))
        })
    };
    let (Some(year), Some(month), Some(day)) = (number(0..4), number(5..7), number(8..10)) else {
        return false;
    };
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}

static TIME_OF_DAY: Rx =
    Rx::new(r"^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$");

/// `date-time`: lowercased and split at every `t`, the first piece is a `date` and the
/// second a time of day with a fraction (after any one character) and `z` or an offset.
/// Later pieces are ignored and the offset is not range-checked, as upstream.
pub(super) fn is_date_time(value: &str) -> bool {
    if value.len() < 4 {
        return false;
    }
    // Go lowercases all of Unicode, but only ASCII can matter to the checks below.
    let lower = value.to_ascii_lowercase();
    let mut pieces = lower.split('t');
    let (Some(date), Some(time)) = (pieces.next(), pieces.next()) else {
        return false;
    };
    let Some(caps) = TIME_OF_DAY.get().and_then(|re| re.captures(time)) else {
        return false;
    };
    let at_most = |group: usize, max: &str| caps.get(group).is_some_and(|m| m.as_str() <= max);
    is_date(date) && at_most(1, "23") && at_most(2, "59") && at_most(3, "59")
}

/// `duration`: Go's `time.ParseDuration` accepts it, or some `<digits> <unit>` in it
/// names a unit (`3 days`, `1 wk`, `2h30m`) and no digit run overflows an int64.
pub(super) fn is_duration(value: &str) -> bool {
    go_duration(value) || lenient_duration(value)
}

static DURATION_PART: Rx = Rx::new(r"(([0-9]+)[\t\n\f\r ]*([A-Za-zµ]+))");

/// Unit spellings: a match equal to any of them, or starting with the last one.
const UNITS: &[&[&str]] = &[
    &["ns", "nano"],
    &["us", "µs", "micro"],
    &["ms", "milli"],
    &["s", "sec"],
    &["m", "min"],
    &["h", "hr", "hour"],
    &["d", "day"],
    &["w", "wk", "week"],
];

fn lenient_duration(value: &str) -> bool {
    let Some(re) = DURATION_PART.get() else {
        return false;
    };
    let mut ok = false;
    for caps in re.captures_iter(value) {
        let (Some(count), Some(unit)) = (caps.get(2), caps.get(3)) else {
            return false;
        };
        if count.as_str().parse::<i64>().is_err() {
            return false;
        }
        let unit = unit.as_str().to_ascii_lowercase();
        ok |= UNITS.iter().any(|names| {
            let last = names.len() - 1;
            names
                .iter()
                .enumerate()
                .any(|(i, name)| unit == *name || (i == last && unit.starts_with(name)))
        });
    }
    ok
}

const OVERFLOW: u64 = 1 << 63;

/// Go's `time.ParseDuration`: `[-+]?([0-9]*(\.[0-9]*)?unit)+` or `0`, within int64
/// nanoseconds.
fn go_duration(value: &str) -> bool {
    let (neg, mut s) = match value.as_bytes().first() {
        Some(b'-') => (true, &value[1..]),
        Some(b'+') => (false, &value[1..]),
        _ => (false, value),
    };
    if s == "0" {
        return true;
    }
    if s.is_empty() {
        return false;
    }
    let mut total: u64 = 0;
    while !s.is_empty() {
        let Some((nanos, rest)) = duration_term(s) else {
            return false;
        };
        // Go adds without a wrap check here; only a sum above 2^63 is rejected.
        total = total.wrapping_add(nanos);
        if total > OVERFLOW {
            return false;
        }
        s = rest;
    }
    neg || total < OVERFLOW
}

/// One `<number><unit>` term: its nanoseconds (at most 2^63) and the rest.
fn duration_term(s: &str) -> Option<(u64, &str)> {
    let int_len = s.bytes().take_while(u8::is_ascii_digit).count();
    let mut whole: u64 = 0;
    for d in s[..int_len].bytes() {
        if whole > OVERFLOW / 10 {
            return None;
        }
        whole = whole * 10 + u64::from(d - b'0');
        if whole > OVERFLOW {
            return None;
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
        return None;
    }
    let unit_len = rest
        .bytes()
        .take_while(|b| *b != b'.' && !b.is_ascii_digit())
        .count();
    let unit = match &rest[..unit_len] {
        "ns" => 1,
        "us" | "µs" | "μs" => 1_000,
        "ms" => 1_000_000,
        "s" => 1_000_000_000,
        "m" => 60_000_000_000,
        "h" => 3_600_000_000_000,
        _ => return None,
    };
    if whole > OVERFLOW / unit {
        return None;
    }
    let mut nanos = whole * unit;
    if fraction > 0 {
        // Go converts through float64 the same way.
        nanos += (fraction as f64 * (unit as f64 / scale)) as u64;
        if nanos > OVERFLOW {
            return None;
        }
    }
    Some((nanos, &rest[unit_len..]))
}

/// Go's `leadingFraction`: digits until the value would pass 2^63, and 10^digits used.
fn leading_fraction(digits: &str) -> (u64, f64) {
    let (mut value, mut scale) = (0u64, 1f64);
    for d in digits.bytes() {
        if value > (OVERFLOW - 1) / 10 {
            break;
        }
        let next = value * 10 + u64::from(d - b'0');
        if next > OVERFLOW {
            break;
        }
        value = next;
        scale *= 10.0;
    }
    (value, scale)
}

#[cfg(test)]
mod tests;
