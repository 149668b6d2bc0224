//! String predicates (`contains`, `startsWith`, `endsWith`, `matches`) and the
//! timestamp / duration accessors, with and without a time zone argument.

use crate::cel::functions::Decl;
use crate::cel::types::Type;

pub(super) fn decls() -> Vec<Decl> {
    let mut all = strings();
    all.extend(time());
    all
}

fn strings() -> Vec<Decl> {
    use Type::{Bool, String};
    let pred = |id, function| Decl::member(id, function, vec![String, String], Bool);
    vec![
        pred("contains_string", "contains"),
        pred("ends_with_string", "endsWith"),
        pred("starts_with_string", "startsWith"),
        Decl::global("matches", "matches", vec![String, String], Bool),
        pred("matches_string", "matches"),
    ]
}

fn time() -> Vec<Decl> {
    use Type::{Duration, Int, String, Timestamp};
    let ts = |id, function| Decl::member(id, function, vec![Timestamp], Int);
    let ts_tz = |id, function| Decl::member(id, function, vec![Timestamp, String], Int);
    let dur = |id, function| Decl::member(id, function, vec![Duration], Int);
    vec![
        ts("timestamp_to_year", "getFullYear"),
        ts_tz("timestamp_to_year_with_tz", "getFullYear"),
        ts("timestamp_to_month", "getMonth"),
        ts_tz("timestamp_to_month_with_tz", "getMonth"),
        ts("timestamp_to_day_of_year", "getDayOfYear"),
        ts_tz("timestamp_to_day_of_year_with_tz", "getDayOfYear"),
        ts("timestamp_to_day_of_month", "getDayOfMonth"),
        ts_tz("timestamp_to_day_of_month_with_tz", "getDayOfMonth"),
        ts("timestamp_to_day_of_month_1_based", "getDate"),
        ts_tz("timestamp_to_day_of_month_1_based_with_tz", "getDate"),
        ts("timestamp_to_day_of_week", "getDayOfWeek"),
        ts_tz("timestamp_to_day_of_week_with_tz", "getDayOfWeek"),
        ts("timestamp_to_hours", "getHours"),
        ts_tz("timestamp_to_hours_with_tz", "getHours"),
        dur("duration_to_hours", "getHours"),
        ts("timestamp_to_minutes", "getMinutes"),
        ts_tz("timestamp_to_minutes_with_tz", "getMinutes"),
        dur("duration_to_minutes", "getMinutes"),
        ts("timestamp_to_seconds", "getSeconds"),
        ts_tz("timestamp_to_seconds_tz", "getSeconds"),
        dur("duration_to_seconds", "getSeconds"),
        ts("timestamp_to_milliseconds", "getMilliseconds"),
        ts_tz("timestamp_to_milliseconds_with_tz", "getMilliseconds"),
        dur("duration_to_milliseconds", "getMilliseconds"),
    ]
}
