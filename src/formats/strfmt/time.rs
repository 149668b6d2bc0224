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
    crate::gofmt::parse_duration(value).is_ok() || lenient_duration(value)
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

#[cfg(test)]
mod tests;
