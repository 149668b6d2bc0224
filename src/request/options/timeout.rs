//! The `timeout` query parameter of requests that are not long-running, checked as kube's
//! request-deadline filter checks it (with Go's `time.ParseDuration` and its error texts)
//! before authentication.

use std::time::Duration;

use crate::error::ApiError;
use crate::request::query::Query;

/// Kept for `request::options`' re-export; the parser is the shared one.
use crate::gofmt::parse_duration;

/// `timeout`, when given: a 400 `invalid timeout specified in the request URL - <Go's
/// ParseDuration error>` when it does not parse. Negative values are kube's "no timeout".
pub fn request_timeout(query: &Query) -> Result<Option<Duration>, ApiError> {
    let value = query.get("timeout").unwrap_or_default();
    if value.is_empty() {
        return Ok(None);
    }
    let (negative, nanos) = parse_duration(value).map_err(|e| {
        ApiError::BadRequest(format!(
            "invalid timeout specified in the request URL - {e}"
        ))
    })?;
    Ok((!negative).then(|| Duration::from_nanos(nanos)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_timeout_values_parse_as_go_durations() {
        type Case<'a> = (&'a str, Result<Option<Duration>, &'a str>);
        let cases: [Case; 8] = [
            ("timeout=1.5m", Ok(Some(Duration::from_secs(90)))),
            (
                "timeout=1h2m3s4ms5us6ns",
                Ok(Some(Duration::from_nanos(3_723_004_005_006))),
            ),
            ("timeout=0", Ok(Some(Duration::ZERO))),
            ("timeout=-0", Ok(None)),
            ("timeout=1", Err(r#"time: missing unit in duration "1""#)),
            (
                "timeout=1x",
                Err(r#"time: unknown unit "x" in duration "1x""#),
            ),
            (
                "timeout=9999999999h",
                Err(r#"time: invalid duration "9999999999h""#),
            ),
            (
                "timeout=1%C3%A9",
                Err(r#"time: unknown unit "\xc3\xa9" in duration "1\xc3\xa9""#),
            ),
        ];
        for (query, want) in cases {
            let got = request_timeout(&Query::parse(query)).map_err(|e| e.to_string());
            let want =
                want.map_err(|e| format!("invalid timeout specified in the request URL - {e}"));
            assert_eq!(got, want, "{query}");
        }
    }

    #[test]
    fn request_timeout_bad_value_is_kube_400() {
        let err = request_timeout(&Query::parse("timeout=abc")).unwrap_err();
        assert_eq!(err.code(), 400);
        assert_eq!(
            err.to_string(),
            r#"invalid timeout specified in the request URL - time: invalid duration "abc""#
        );
        let ok = request_timeout(&Query::parse("timeout=2s")).unwrap();
        assert_eq!(ok, Some(Duration::from_secs(2)));
        assert_eq!(request_timeout(&Query::parse("timeout=-1s")).unwrap(), None);
        assert_eq!(request_timeout(&Query::parse("")).unwrap(), None);
    }
}
