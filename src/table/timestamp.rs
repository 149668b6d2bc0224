//! `metav1.Time` as printer columns see it: Go's RFC 3339 parsing, the zero time, and ages.

use super::duration::human_duration;

/// Seconds from 0001-01-01T00:00:00Z (Go's zero `time.Time`) to the Unix epoch, negated.
const GO_ZERO_UNIX_SECONDS: i64 = -62_135_596_800;

/// An instant parsed the way `metav1.Time.UnmarshalQueryParameter` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GoTime {
    /// Seconds since the Unix epoch.
    seconds: i64,
    /// Nanoseconds within the second, `0..1_000_000_000`.
    nanos: i64,
}

impl GoTime {
    /// Go's zero `time.Time` (0001-01-01T00:00:00Z), which `metav1.Time.IsZero` reports.
    pub const ZERO: GoTime = GoTime {
        seconds: GO_ZERO_UNIX_SECONDS,
        nanos: 0,
    };

    /// Parses a query-parameter style time: `""` and `"null"` are the zero time, anything else
    /// must be Go's `time.RFC3339` layout (`2006-01-02T15:04:05Z07:00`, optional fraction).
    pub fn from_query_parameter(text: &str) -> Option<GoTime> {
        if text.is_empty() || text == "null" {
            return Some(GoTime::ZERO);
        }
        parse_rfc3339(text)
    }

    /// Whether this is Go's zero time.
    pub fn is_zero(self) -> bool {
        self == GoTime::ZERO
    }

    /// `metav1.Time`'s JSON text: `t.UTC().Format(time.RFC3339)` (whole seconds, `Z`).
    pub fn format_rfc3339(self) -> String {
        let days = self.seconds.div_euclid(86_400);
        let secs = self.seconds.rem_euclid(86_400);
        let (year, month, day) = civil_from_days(days);
        format!(
            "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
            secs / 3_600,
            secs % 3_600 / 60,
            secs % 60
        )
    }

    /// `now - self` in nanoseconds, saturated to Go's `time.Duration` range as `time.Sub` does.
    pub fn since(self, now: jiff::Timestamp) -> i64 {
        let now_nanos =
            i128::from(now.as_second()) * 1_000_000_000 + i128::from(now.subsec_nanosecond());
        let then_nanos = i128::from(self.seconds) * 1_000_000_000 + i128::from(self.nanos);
        let diff = now_nanos - then_nanos;
        i64::try_from(diff).unwrap_or(if diff < 0 { i64::MIN } else { i64::MAX })
    }
}

/// `table.ConvertToHumanReadableDateType`: `<unknown>` for the zero time, else its age.
pub fn human_readable_age(time: GoTime, now: jiff::Timestamp) -> String {
    if time.is_zero() {
        return "<unknown>".to_owned();
    }
    human_duration(time.since(now))
}

/// A byte cursor over an ASCII timestamp.
struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Cursor<'_> {
    fn peek(&self, ahead: usize) -> Option<u8> {
        self.bytes.get(self.pos + ahead).copied()
    }

    fn literal(&mut self, byte: u8) -> Option<()> {
        (self.peek(0)? == byte).then(|| self.pos += 1)
    }

    /// Exactly `count` ASCII digits.
    fn fixed(&mut self, count: usize) -> Option<i64> {
        let mut value = 0i64;
        for _ in 0..count {
            let digit = self.peek(0).filter(u8::is_ascii_digit)?;
            value = value * 10 + i64::from(digit - b'0');
            self.pos += 1;
        }
        Some(value)
    }

    /// One or two digits, as Go's `getnum(value, false)` reads the `15` hour.
    fn one_or_two(&mut self) -> Option<i64> {
        let width = if self.peek(1).is_some_and(|b| b.is_ascii_digit()) {
            2
        } else {
            1
        };
        self.fixed(width)
    }

    /// Go's "fractional second not in the layout" rule: `.` or `,` then digits; nanosecond
    /// precision, further digits ignored.
    fn fraction(&mut self) -> i64 {
        let starts = matches!(self.peek(0), Some(b'.' | b','))
            && self.peek(1).is_some_and(|b| b.is_ascii_digit());
        if !starts {
            return 0;
        }
        self.pos += 1;
        let mut nanos = 0i64;
        let mut used = 0;
        while let Some(digit) = self.peek(0).filter(u8::is_ascii_digit) {
            if used < 9 {
                nanos = nanos * 10 + i64::from(digit - b'0');
                used += 1;
            }
            self.pos += 1;
        }
        nanos * 10i64.pow(9 - used)
    }

    /// `Z07:00`: `Z`, or `±hh:mm` (Go accepts hours up to 24 and minutes up to 60 here).
    fn zone_offset_seconds(&mut self) -> Option<i64> {
        if self.literal(b'Z').is_some() {
            return Some(0);
        }
        let sign = match self.peek(0)? {
            b'+' => 1,
            b'-' => -1,
            _ => return None,
        };
        self.pos += 1;
        let hours = self.fixed(2)?;
        self.literal(b':')?;
        let minutes = self.fixed(2)?;
        (hours <= 24 && minutes <= 60).then_some(sign * (hours * 60 + minutes) * 60)
    }
}

/// Go's `time.Parse(time.RFC3339, text)`.
fn parse_rfc3339(text: &str) -> Option<GoTime> {
    let mut c = Cursor {
        bytes: text.as_bytes(),
        pos: 0,
    };
    let year = c.fixed(4)?;
    c.literal(b'-')?;
    let month = c.fixed(2).filter(|m| (1..=12).contains(m))?;
    c.literal(b'-')?;
    let day = c.fixed(2)?;
    c.literal(b'T')?;
    let hour = c.one_or_two().filter(|h| *h < 24)?;
    c.literal(b':')?;
    let minute = c.fixed(2).filter(|m| *m < 60)?;
    c.literal(b':')?;
    let second = c.fixed(2).filter(|s| *s < 60)?;
    let nanos = c.fraction();
    let offset = c.zone_offset_seconds()?;
    if c.pos != c.bytes.len() || day < 1 || day > days_in_month(year, month) {
        return None;
    }
    let days = days_from_civil(year, month, day);
    let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second - offset;
    Some(GoTime { seconds, nanos })
}

fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 in the proleptic Gregorian calendar (H. Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let shifted_month = (month + 9) % 12;
    let doy = (153 * shifted_month + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The civil date of a day count since 1970-01-01 (inverse of [`days_from_civil`]).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(text: &str) -> jiff::Timestamp {
        text.parse().unwrap()
    }

    #[test]
    fn from_query_parameter_inputs_match_go() {
        type Case = (&'static str, &'static str, Option<(i64, i64)>);
        let cases: &[Case] = &[
            ("empty is zero", "", Some((GO_ZERO_UNIX_SECONDS, 0))),
            ("null is zero", "null", Some((GO_ZERO_UNIX_SECONDS, 0))),
            ("epoch", "1970-01-01T00:00:00Z", Some((0, 0))),
            ("utc", "2024-02-29T12:34:56Z", Some((1_709_210_096, 0))),
            (
                "offset",
                "2024-02-29T14:34:56+02:00",
                Some((1_709_210_096, 0)),
            ),
            (
                "negative offset",
                "2024-02-29T10:34:56-02:00",
                Some((1_709_210_096, 0)),
            ),
            ("fraction", "1970-01-01T00:00:01.5Z", Some((1, 500_000_000))),
            (
                "comma fraction",
                "1970-01-01T00:00:01,25Z",
                Some((1, 250_000_000)),
            ),
            (
                "long fraction truncates",
                "1970-01-01T00:00:00.1234567891Z",
                Some((0, 123_456_789)),
            ),
            ("one digit hour", "1970-01-01T1:00:00Z", Some((3_600, 0))),
            (
                "go zero time",
                "0001-01-01T00:00:00Z",
                Some((GO_ZERO_UNIX_SECONDS, 0)),
            ),
            ("not leap year", "2023-02-29T00:00:00Z", None),
            ("month 13", "2023-13-01T00:00:00Z", None),
            ("hour 24", "2023-01-01T24:00:00Z", None),
            ("lowercase t", "2023-01-01t00:00:00Z", None),
            ("lowercase z", "2023-01-01T00:00:00z", None),
            ("space separator", "2023-01-01 00:00:00Z", None),
            ("missing zone", "2023-01-01T00:00:00", None),
            ("trailing text", "2023-01-01T00:00:00Zx", None),
            ("date only", "2023-01-01", None),
            ("garbage", "yesterday", None),
        ];
        for (name, text, want) in cases {
            let got = GoTime::from_query_parameter(text).map(|t| (t.seconds, t.nanos));
            assert_eq!(got, *want, "case {name}");
        }
    }

    #[test]
    fn format_rfc3339_round_trips_to_utc_seconds() {
        let cases: &[(&str, &str)] = &[
            ("2024-02-29T14:34:56.789+02:00", "2024-02-29T12:34:56Z"),
            ("1970-01-01T00:00:00Z", "1970-01-01T00:00:00Z"),
            ("1969-12-31T23:59:59Z", "1969-12-31T23:59:59Z"),
            ("0001-01-01T00:00:00Z", "0001-01-01T00:00:00Z"),
            ("9999-12-31T23:59:59Z", "9999-12-31T23:59:59Z"),
        ];
        for (input, want) in cases {
            let time = GoTime::from_query_parameter(input).unwrap();
            assert_eq!(time.format_rfc3339(), *want, "input {input}");
        }
    }

    #[test]
    fn human_readable_age_zero_and_ages_render() {
        let now = ts("2024-01-10T00:00:00Z");
        let cases: &[(&str, GoTime, &str)] = &[
            ("zero time is unknown", GoTime::ZERO, "<unknown>"),
            (
                "ten seconds",
                parse_rfc3339("2024-01-09T23:59:50Z").unwrap(),
                "10s",
            ),
            (
                "three days",
                parse_rfc3339("2024-01-07T00:00:00Z").unwrap(),
                "3d",
            ),
            (
                "future",
                parse_rfc3339("2024-01-10T00:01:00Z").unwrap(),
                "<invalid>",
            ),
            (
                "ancient saturates",
                parse_rfc3339("0002-01-01T00:00:00Z").unwrap(),
                "292y",
            ),
        ];
        for (name, time, want) in cases {
            assert_eq!(human_readable_age(*time, now), *want, "case {name}");
        }
    }
}
