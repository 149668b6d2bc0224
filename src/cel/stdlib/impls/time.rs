//! Timestamp and duration accessors: `getFullYear()`, `getMonth()`, ... in UTC or in a
//! time zone given by IANA name or `±HH:MM` offset (cel-go's `timeZone`), and the
//! duration accessors `getHours()` ... `getMilliseconds()`.

use jiff::civil::DateTime;
use jiff::tz::{Offset, TimeZone};

use crate::cel::eval::{gotime, ops};
use crate::cel::functions::{Impl, Outcome};
use crate::cel::value::{EvalError, Value};

/// A time zone argument as cel-go reads it: a name (`UTC`, `America/New_York`), or
/// hours and minutes around a colon.
fn zone(tz: &str) -> Result<TimeZone, EvalError> {
    let Some((h, m)) = tz.split_once(':') else {
        return load_location(tz);
    };
    let atoi = |s: &str| {
        s.parse::<i32>()
            .map_err(|_| EvalError::new(format!("strconv.Atoi: parsing \"{s}\": invalid syntax")))
    };
    let (hr, min) = (atoi(h)?, atoi(m)?);
    if !(-23..=23).contains(&hr) {
        return Err(EvalError::new(format!(
            "timezone offset hours out of range [-23, 23]: {tz}"
        )));
    }
    if !(0..=59).contains(&min) {
        return Err(EvalError::new(format!(
            "timezone offset minutes out of range [0, 59]: {tz}"
        )));
    }
    let minutes = if tz.starts_with('-') {
        hr * 60 - min
    } else {
        hr * 60 + min
    };
    Offset::from_seconds(minutes * 60)
        .map(TimeZone::fixed)
        .map_err(|e| EvalError::new(e.to_string()))
}

fn civil(args: &[Value<'_>]) -> Result<DateTime, EvalError> {
    let (t, tz) = match args {
        [Value::Timestamp(t)] => (*t, TimeZone::UTC),
        [Value::Timestamp(t), Value::String(tz)] => (*t, zone(tz.as_str())?),
        _ => return Err(ops::no_such_overload()),
    };
    Ok(t.to_zoned(tz).datetime())
}

macro_rules! getter {
    ($name:ident, |$dt:ident| $body:expr) => {
        fn $name<'a>(args: &[Value<'a>]) -> Outcome<'a> {
            let $dt = civil(args)?;
            Ok(Value::Int(i64::from($body)))
        }
    };
}

getter!(full_year, |dt| dt.year());
getter!(month, |dt| dt.month() - 1);
getter!(day_of_year, |dt| dt.day_of_year() - 1);
getter!(day_of_month_zero, |dt| dt.day() - 1);
getter!(day_of_month_one, |dt| dt.day());
getter!(day_of_week, |dt| dt.weekday().to_sunday_zero_offset());
getter!(hours, |dt| dt.hour());
getter!(minutes, |dt| dt.minute());
getter!(seconds, |dt| dt.second());
getter!(milliseconds, |dt| dt.subsec_nanosecond() / 1_000_000);

fn duration_part<'a>(v: &Value<'a>, unit_nanos: i64) -> Outcome<'a> {
    match v {
        Value::Duration(d) => Ok(Value::Int(
            gotime::nanos(*d).unwrap_or_default() / unit_nanos,
        )),
        _ => Err(ops::no_such_overload()),
    }
}

fn duration_hours<'a>(v: &Value<'a>) -> Outcome<'a> {
    duration_part(v, 3_600_000_000_000)
}

fn duration_minutes<'a>(v: &Value<'a>) -> Outcome<'a> {
    duration_part(v, 60_000_000_000)
}

fn duration_seconds<'a>(v: &Value<'a>) -> Outcome<'a> {
    duration_part(v, 1_000_000_000)
}

fn duration_milliseconds<'a>(v: &Value<'a>) -> Outcome<'a> {
    duration_part(v, 1_000_000)
}

/// Go's `time.LoadLocation`: `Local` is the server's zone (UTC in kube's images), and
/// names are file names, so they match case-sensitively.
fn load_location(tz: &str) -> Result<TimeZone, EvalError> {
    if tz.is_empty() || tz == "UTC" || tz == "Local" {
        return Ok(TimeZone::UTC);
    }
    if tz.contains("..") || tz.starts_with(['/', '\\']) {
        return Err(EvalError::new("time: invalid location name"));
    }
    match TimeZone::get(tz) {
        Ok(zone) if zone.iana_name() == Some(tz) => Ok(zone),
        _ => Err(EvalError::new(format!("unknown time zone {tz}"))),
    }
}

/// A timestamp accessor, with or without a time zone argument.
type Getter = for<'a> fn(&[Value<'a>]) -> Outcome<'a>;

pub(super) fn impls() -> Vec<(&'static str, Impl)> {
    let getters: [(&'static str, &'static str, Getter); 10] = [
        ("timestamp_to_year", "timestamp_to_year_with_tz", full_year),
        ("timestamp_to_month", "timestamp_to_month_with_tz", month),
        (
            "timestamp_to_day_of_year",
            "timestamp_to_day_of_year_with_tz",
            day_of_year,
        ),
        (
            "timestamp_to_day_of_month",
            "timestamp_to_day_of_month_with_tz",
            day_of_month_zero,
        ),
        (
            "timestamp_to_day_of_month_1_based",
            "timestamp_to_day_of_month_1_based_with_tz",
            day_of_month_one,
        ),
        (
            "timestamp_to_day_of_week",
            "timestamp_to_day_of_week_with_tz",
            day_of_week,
        ),
        ("timestamp_to_hours", "timestamp_to_hours_with_tz", hours),
        (
            "timestamp_to_minutes",
            "timestamp_to_minutes_with_tz",
            minutes,
        ),
        ("timestamp_to_seconds", "timestamp_to_seconds_tz", seconds),
        (
            "timestamp_to_milliseconds",
            "timestamp_to_milliseconds_with_tz",
            milliseconds,
        ),
    ];
    let mut all = Vec::new();
    for (plain, with_tz, f) in getters {
        all.push((plain, Impl::Variadic(f)));
        all.push((with_tz, Impl::Variadic(f)));
    }
    all.extend([
        ("duration_to_hours", Impl::Unary(duration_hours)),
        ("duration_to_minutes", Impl::Unary(duration_minutes)),
        ("duration_to_seconds", Impl::Unary(duration_seconds)),
        (
            "duration_to_milliseconds",
            Impl::Unary(duration_milliseconds),
        ),
    ]);
    all
}
