//! Table tests for date, date-time and duration; values from kube-openapi's strfmt tests
//! and Go's time tests, each confirmed against kube-openapi's `strfmt.Default`.

use super::super::tests::check_table;

#[test]
fn date_is_a_real_full_date() {
    check_table(
        "date",
        &[
            ("plain", "2006-01-02", true),
            ("leap_day", "2012-02-29", true),
            ("leap_400", "2000-02-29", true),
            ("year_zero_leap", "0000-02-29", true),
            ("not_leap", "2013-02-29", false),
            ("century_not_leap", "1900-02-29", false),
            ("april_31", "2006-04-31", false),
            ("month_13", "2006-13-02", false),
            ("day_zero", "2006-01-00", false),
            ("short_month", "2006-1-02", false),
            ("with_time", "2006-01-02T00:00:00Z", false),
            ("compact", "20060102", false),
        ],
    );
}

#[test]
fn date_time_follows_is_date_time_regex() {
    check_table(
        "date-time",
        &[
            ("millis_z", "2014-12-15T19:30:20.000Z", true),
            ("lowercase", "2014-12-15t19:30:20z", true),
            ("offset", "2014-12-15T19:30:20+01:00", true),
            (
                "offset_not_range_checked",
                "2014-12-15T19:30:20.123-99:99",
                true,
            ),
            ("any_fraction_separator", "2014-12-15T19:30:20x5Z", true),
            (
                "extra_t_pieces_ignored",
                "2014-12-15T19:30:20ZTgarbage",
                true,
            ),
            ("hour_24", "2014-12-15T24:00:00Z", false),
            ("leap_second", "2014-12-15T23:59:60Z", false),
            ("space_separator", "2014-12-15 19:30:20Z", false),
            ("no_zone", "2014-12-15T19:30:20", false),
            ("compact_offset", "2014-12-15T19:30:20+0100", false),
            ("bad_date", "2014-13-15T19:30:20Z", false),
            ("one_digit_hour", "2014-12-15T1:30:20Z", false),
        ],
    );
}

#[test]
fn duration_is_go_duration_or_lenient_units() {
    check_table(
        "duration",
        &[
            ("go_compound", "1h30m", true),
            ("go_negative_fraction", "-1.5h", true),
            ("go_leading_dot", ".5s", true),
            ("go_zero", "0", true),
            ("go_micro_sign", "5µs", true),
            ("go_greek_mu", "5μs", true),
            ("go_max", "9223372036854775807ns", true),
            ("go_min", "-9223372036854775808ns", true),
            (
                "go_wrapping_sum",
                "9223372036854775808ns9223372036854775808ns",
                true,
            ),
            ("days", "1d", true),
            ("spaced_days", "3 days", true),
            ("embedded_in_text", "foo 3 days bar", true),
            ("uppercase_unit", "3 D", true),
            ("spaced_compound", "1h 30m", true),
            ("week_prefix", "2 weeks", true),
            ("go_over_max", "9223372036854775808ns", false),
            ("empty", "", false),
            ("no_unit", "1", false),
            ("unknown_unit", "1y", false),
            ("wks_not_a_prefix_of_week", "1wks", false),
            ("count_overflows_int64", "99999999999999999999 d", false),
            (
                "overflow_before_good_part",
                "99999999999999999999x 1d",
                false,
            ),
            ("month", "1 mo", false),
        ],
    );
}
