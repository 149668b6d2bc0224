//! An event's timestamps: kept as RFC 3339 text in UTC with the precision they were taken
//! at, written as `metav1.MicroTime` (json format) or Go's `time.RFC3339Nano` (legacy).

use std::borrow::Cow;

/// A timestamp as an event keeps it: UTC, nine fractional digits
/// (`2026-12-07T13:49:43.090477123Z`).
pub fn stamp(t: jiff::Timestamp) -> String {
    t.strftime("%Y-%m-%dT%H:%M:%S.%9fZ").to_string()
}

/// `metav1.MicroTime` of a timestamp (`2026-12-07T13:49:43.090477Z`), truncated as Go's
/// `Format` truncates.
pub fn micro_time(t: jiff::Timestamp) -> String {
    t.strftime("%Y-%m-%dT%H:%M:%S.%6fZ").to_string()
}

/// The MicroTime text of a kept timestamp: its fraction cut or padded to six digits.
/// Text in another form is parsed (an offset is moved to UTC), or left as it is.
pub fn micro(text: &str) -> Cow<'_, str> {
    let Some((seconds, fraction)) = utc_parts(text) else {
        return match text.parse::<jiff::Timestamp>() {
            Ok(t) => Cow::Owned(micro_time(t)),
            Err(_) => Cow::Borrowed(text),
        };
    };
    if fraction.len() == 6 {
        return Cow::Borrowed(text);
    }
    let digits = &fraction[..fraction.len().min(6)];
    Cow::Owned(format!("{seconds}.{digits:0<6}Z"))
}

/// Go's `time.RFC3339Nano` of a kept timestamp: the fraction without trailing zeros, and
/// without the dot when they are all zeros.
pub fn rfc3339_nano(text: &str) -> Cow<'_, str> {
    let Some((seconds, fraction)) = utc_parts(text) else {
        return Cow::Borrowed(text);
    };
    match fraction.trim_end_matches('0') {
        "" => Cow::Owned(format!("{seconds}Z")),
        digits if digits.len() == fraction.len() => Cow::Borrowed(text),
        digits => Cow::Owned(format!("{seconds}.{digits}Z")),
    }
}

/// `(2026-12-07T13:49:43, 090477)` of `2026-12-07T13:49:43.090477Z` (the fraction may be
/// absent or of any length up to nine digits).
fn utc_parts(text: &str) -> Option<(&str, &str)> {
    let body = text.strip_suffix('Z')?;
    let (seconds, fraction) = match body.split_once('.') {
        Some((seconds, fraction)) => (seconds, fraction),
        None => (body, ""),
    };
    let shape = seconds.len() == 19
        && seconds.as_bytes().get(10) == Some(&b'T')
        && fraction.len() <= 9
        && fraction.bytes().all(|b| b.is_ascii_digit());
    shape.then_some((seconds, fraction))
}

/// serde's writer for the json format: [`micro`].
pub fn serialize_micro<S: serde::Serializer>(text: &str, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&micro(text))
}
