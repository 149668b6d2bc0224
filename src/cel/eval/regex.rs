//! Go `regexp` (RE2) patterns compiled for the evaluator: checked by the Go syntax port
//! (so invalid patterns fail with Go's texts, `error parsing regexp: missing closing ]:
//! `[``), then translated for the `regex` crate (ASCII `\d`, `\w`, `\s`, `\b`; `\Q...\E`).

use crate::formats::{goregex, pattern};

/// Compiles a Go regular expression, or returns Go's error text.
pub fn compile(pattern: &str) -> Result<regex::Regex, String> {
    goregex::check(pattern).map_err(|e| e.to_string())?;
    // Go's size limits differ from the crate's; a pattern Go accepts and the crate
    // refuses (only for sheer size) is reported as Go reports an oversized one.
    regex::Regex::new(&pattern::translate(pattern))
        .map_err(|_| format!("error parsing regexp: expression too large: `{pattern}`"))
}
