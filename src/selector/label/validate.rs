//! Label selector key and value validation (apimachinery's `IsQualifiedName`, `IsValidLabelValue`
//! and `NewRequirement` checks) with upstream's message constants and `field.Invalid` texts.

use serde_json::Value;

use super::Operator;
use crate::error::FieldError;

const NAME_MSG: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const NAME_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const NAME_EXAMPLES: [&str; 3] = ["MyName", "my.name", "123-abc"];
const VALUE_MSG: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const VALUE_FMT: &str = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
const DNS_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS_FMT: &str = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";

use crate::validation::dns::regex_error;

fn max_len_error(max: usize) -> String {
    format!("must be no more than {max} bytes")
}

/// `NAME_FMT`: alphanumerics, `-`, `_`, `.`, starting and ending alphanumeric.
fn is_name(s: &str) -> bool {
    let b = s.as_bytes();
    let ends = b
        .first()
        .zip(b.last())
        .is_some_and(|(f, l)| f.is_ascii_alphanumeric() && l.is_ascii_alphanumeric());
    ends && b
        .iter()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
}

fn is_dns1123_subdomain(s: &str) -> bool {
    s.split('.').all(|label| {
        let b = label.as_bytes();
        let alnum = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit();
        b.first()
            .zip(b.last())
            .is_some_and(|(f, l)| alnum(f) && alnum(l))
            && b.iter().all(|c| alnum(c) || *c == b'-')
    })
}

/// apimachinery's `IsLabelKey` (`IsQualifiedName`) messages.
pub(crate) fn key_errors(key: &str) -> Vec<String> {
    let mut errs = Vec::new();
    let name = match key.split('/').collect::<Vec<_>>().as_slice() {
        [name] => *name,
        [prefix, name] => {
            if prefix.is_empty() {
                errs.push("prefix part must be non-empty".to_owned());
            } else {
                if prefix.len() > 253 {
                    errs.push(format!("prefix part {}", max_len_error(253)));
                }
                if !is_dns1123_subdomain(prefix) {
                    errs.push(format!(
                        "prefix part {}",
                        regex_error(DNS_MSG, DNS_FMT, &["example.com"])
                    ));
                }
            }
            *name
        }
        _ => {
            let re = regex_error(NAME_MSG, NAME_FMT, &NAME_EXAMPLES);
            return vec![format!(
                "a valid label key {re} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
            )];
        }
    };
    if name.is_empty() {
        errs.push("name part must be non-empty".to_owned());
    } else if name.len() > 63 {
        errs.push(format!("name part {}", max_len_error(63)));
    }
    if !is_name(name) {
        errs.push(format!(
            "name part {}",
            regex_error(NAME_MSG, NAME_FMT, &NAME_EXAMPLES)
        ));
    }
    errs
}

/// apimachinery's `IsValidLabelValue` messages.
pub(crate) fn value_errors(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 63 {
        errs.push(max_len_error(63));
    }
    if !value.is_empty() && !is_name(value) {
        errs.push(regex_error(
            VALUE_MSG,
            VALUE_FMT,
            &["MyValue", "my_value", "12345"],
        ));
    }
    errs
}

/// A `field.Invalid` error on a string value.
fn invalid(path: &str, value: &str, detail: &str) -> FieldError {
    FieldError::invalid(path, &Value::String(value.to_owned()), detail)
}

/// Key check done while parsing; its `field.Path` is nil, printed `<nil>` by upstream.
pub(super) fn check_key(key: &str) -> Result<(), FieldError> {
    let errs = key_errors(key);
    if errs.is_empty() {
        Ok(())
    } else {
        Err(invalid("<nil>", key, &errs.join("; ")))
    }
}

/// `NewRequirement`'s value checks, deduplicated as upstream's aggregate.
pub(super) fn check_values(
    key: &str,
    op: Operator,
    values: &[String],
) -> Result<(), Vec<FieldError>> {
    let mut errs: Vec<FieldError> = Vec::new();
    if matches!(op, Operator::GreaterThan | Operator::LessThan) {
        for (i, v) in values
            .iter()
            .enumerate()
            .filter(|(_, v)| v.parse::<i64>().is_err())
        {
            errs.push(invalid(
                &format!("values[{i}]"),
                v,
                "for 'Gt', 'Lt' operators, the value must be an integer",
            ));
        }
    }
    for (i, v) in values.iter().enumerate() {
        let detail = value_errors(v);
        if !detail.is_empty() {
            errs.push(invalid(
                &format!("values[{i}][{key}]"),
                v,
                &detail.join("; "),
            ));
        }
    }
    let mut unique: Vec<FieldError> = Vec::with_capacity(errs.len());
    for e in errs {
        if !unique.contains(&e) {
            unique.push(e);
        }
    }
    if unique.is_empty() {
        Ok(())
    } else {
        Err(unique)
    }
}
