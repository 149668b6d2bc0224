//! `HumanDuration`: apimachinery's ~2-3 significant figure rendering of an age ("5m30s", "3d4h").

const SECOND: i64 = 1_000_000_000;
const MINUTE: i64 = 60 * SECOND;
const HOUR: i64 = 60 * MINUTE;

/// Renders a duration given in nanoseconds exactly like apimachinery's `duration.HumanDuration`
/// (`pkg/util/duration/duration.go`).
///
/// Up to two seconds into the future count as "now" (clock skew); beyond that the answer is
/// `<invalid>`. Divisions truncate toward zero as Go's integer and float-to-int conversions do.
pub fn human_duration(nanos: i64) -> String {
    let seconds = nanos / SECOND;
    if seconds < -1 {
        return "<invalid>".to_owned();
    }
    if seconds < 0 {
        return "0s".to_owned();
    }
    if seconds < 60 * 2 {
        return format!("{seconds}s");
    }
    let minutes = nanos / MINUTE;
    if minutes < 10 {
        return with_remainder(minutes, "m", seconds % 60, "s");
    }
    if minutes < 60 * 3 {
        return format!("{minutes}m");
    }
    let hours = nanos / HOUR;
    if hours < 8 {
        return with_remainder(hours, "h", minutes % 60, "m");
    }
    if hours < 48 {
        return format!("{hours}h");
    }
    if hours < 24 * 8 {
        return with_remainder(hours / 24, "d", hours % 24, "h");
    }
    if hours < 24 * 365 * 2 {
        return format!("{}d", hours / 24);
    }
    if hours < 24 * 365 * 8 {
        return with_remainder(hours / 24 / 365, "y", (hours / 24) % 365, "d");
    }
    format!("{}y", hours / 24 / 365)
}

/// `"{major}{unit}"`, followed by `"{minor}{minor_unit}"` unless the minor part is zero.
fn with_remainder(major: i64, unit: &str, minor: i64, minor_unit: &str) -> String {
    if minor == 0 {
        format!("{major}{unit}")
    } else {
        format!("{major}{unit}{minor}{minor_unit}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: i64 = 24 * HOUR;
    const YEAR: i64 = 365 * DAY;

    #[test]
    fn human_duration_every_branch_matches_apimachinery() {
        let cases: &[(&str, i64, &str)] = &[
            ("far future is invalid", -2 * SECOND, "<invalid>"),
            ("far future by a lot", -HOUR, "<invalid>"),
            ("just under two seconds ahead is now", -2 * SECOND + 1, "0s"),
            ("one second ahead is now", -SECOND, "0s"),
            ("sub-second ahead", -SECOND / 2, "0s"),
            ("zero", 0, "0s"),
            ("sub-second truncates", SECOND - 1, "0s"),
            ("seconds", 59 * SECOND, "59s"),
            (
                "under two minutes stays seconds",
                119 * SECOND + SECOND / 2,
                "119s",
            ),
            ("two minutes exactly", 2 * MINUTE, "2m"),
            ("minutes with seconds", 5 * MINUTE + 30 * SECOND, "5m30s"),
            ("just under ten minutes", 9 * MINUTE + 59 * SECOND, "9m59s"),
            ("ten minutes drops seconds", 10 * MINUTE + 5 * SECOND, "10m"),
            (
                "just under three hours in minutes",
                3 * HOUR - SECOND,
                "179m",
            ),
            ("three hours", 3 * HOUR, "3h"),
            ("hours with minutes", 3 * HOUR + 25 * MINUTE, "3h25m"),
            ("just under eight hours", 8 * HOUR - MINUTE, "7h59m"),
            ("eight hours drops minutes", 8 * HOUR + 30 * MINUTE, "8h"),
            ("just under two days in hours", 48 * HOUR - SECOND, "47h"),
            ("two days", 2 * DAY, "2d"),
            ("days with hours", 3 * DAY + 4 * HOUR, "3d4h"),
            ("just under eight days", 8 * DAY - SECOND, "7d23h"),
            ("eight days drops hours", 8 * DAY + 5 * HOUR, "8d"),
            ("just under two years in days", 2 * YEAR - SECOND, "729d"),
            ("two years", 2 * YEAR, "2y"),
            ("years with days", 3 * YEAR + 10 * DAY, "3y10d"),
            ("just under eight years", 8 * YEAR - SECOND, "7y364d"),
            ("eight years drops days", 8 * YEAR + 100 * DAY, "8y"),
            ("saturated go duration", i64::MAX, "292y"),
        ];
        for (name, nanos, want) in cases {
            assert_eq!(human_duration(*nanos), *want, "case {name}");
        }
    }
}
