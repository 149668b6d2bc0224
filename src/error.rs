//! The one API error type and its single conversion into a `metav1.Status` response.
//!
//! Every layer (storage, request decoding, admission, authorization) converts its own
//! error into [`ApiError`] once; [`ApiError::to_status`] is the only place that knows
//! kube's status codes, reasons and message wording.

use serde_json::{Value, json};

/// A resource as kube names it in messages: `crontabs.stable.example.com`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupResource {
    pub group: String,
    pub resource: String,
}

impl GroupResource {
    pub fn new(group: &str, resource: &str) -> Self {
        GroupResource {
            group: group.to_string(),
            resource: resource.to_string(),
        }
    }
}

impl std::fmt::Display for GroupResource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.group.is_empty() {
            write!(f, "{}", self.resource)
        } else {
            write!(f, "{}.{}", self.resource, self.group)
        }
    }
}

/// One field problem inside a 422 Invalid answer (`details.causes[]`).
#[derive(Clone, Debug, PartialEq)]
pub struct FieldError {
    /// `FieldValueInvalid`, `FieldValueRequired`, `FieldValueNotSupported`, ...
    pub reason: &'static str,
    /// Path as kube prints it: `metadata.name`, `spec.replicas`.
    pub field: String,
    /// The full error text, e.g. `Invalid value: "X": a lowercase RFC 1123 subdomain ...`.
    pub detail: String,
}

impl FieldError {
    /// `field: Invalid value: <value>: <detail>` as apimachinery's field.Invalid.
    pub fn invalid(field: &str, value: &Value, detail: &str) -> Self {
        FieldError {
            reason: "FieldValueInvalid",
            field: field.to_string(),
            detail: format!("Invalid value: {}: {detail}", render_value(value)),
        }
    }

    /// `field: Required value` (optionally with a detail).
    pub fn required(field: &str, detail: &str) -> Self {
        let text = if detail.is_empty() {
            "Required value".to_string()
        } else {
            format!("Required value: {detail}")
        };
        FieldError {
            reason: "FieldValueRequired",
            field: field.to_string(),
            detail: text,
        }
    }

    /// `field: Forbidden: <detail>`.
    pub fn forbidden(field: &str, detail: &str) -> Self {
        FieldError {
            reason: "FieldValueForbidden",
            field: field.to_string(),
            detail: format!("Forbidden: {detail}"),
        }
    }

    /// The single-line form used in aggregated messages.
    pub fn message(&self) -> String {
        format!("{}: {}", self.field, self.detail)
    }
}

/// A bad value as apimachinery's `field.Error.ErrorBody()` (kube 1.34+) prints values
/// decoded from JSON: int64, float64 and bool with `%v`, strings with `%q`, and null,
/// arrays and objects as Go's `json.Marshal` writes them. JSON integers beyond int64
/// are float64 in Go and print as floats.
fn render_value(value: &Value) -> String {
    match value {
        Value::String(s) => go_quote(s),
        Value::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => i.to_string(),
            // `%v` is `%g` with the shortest digits: exponent below 1e-4 or from 1e6.
            (None, Some(f)) => go_float(f, |exp| !(-4..6).contains(&exp)),
            (None, None) => n.to_string(),
        },
        Value::Bool(b) => b.to_string(),
        Value::Null | Value::Array(_) | Value::Object(_) => {
            let mut out = String::new();
            go_json(value, &mut out);
            out
        }
    }
}

/// Go's shortest round-trip digits of `|f|` and the power of ten of the first digit.
/// Rust's `{:e}` breaks exact ties upwards where Go rounds to even, so the digit count is
/// taken from it and the digits from the correctly rounded form when that round-trips.
fn go_shortest(f: f64) -> (String, i32) {
    let shortest = format!("{:e}", f.abs());
    let count = shortest
        .split('e')
        .next()
        .map_or(1, |m| m.replace('.', "").len());
    let even = format!("{:.*e}", count.saturating_sub(1), f.abs());
    let chosen = if even.parse::<f64>() == Ok(f.abs()) {
        even
    } else {
        shortest
    };
    let (mantissa, exp) = chosen.split_once('e').unwrap_or((&chosen, "0"));
    let digits = mantissa.replace('.', "");
    let digits = match digits.trim_end_matches('0') {
        "" => "0".to_string(),
        trimmed => trimmed.to_string(),
    };
    (digits, exp.parse().unwrap_or(0))
}

/// Go's `strconv.FormatFloat(f, 'e' or 'f', -1, 64)`: `use_exponent` decides from the
/// decimal exponent; `'e'` writes a sign and at least two exponent digits.
fn go_float(f: f64, use_exponent: impl Fn(i32) -> bool) -> String {
    let (digits, exp) = go_shortest(f);
    let sign = if f.is_sign_negative() { "-" } else { "" };
    if use_exponent(exp) {
        let (first, rest) = digits.split_at(1);
        let point = if rest.is_empty() { "" } else { "." };
        let exp_sign = if exp < 0 { '-' } else { '+' };
        return format!(
            "{sign}{first}{point}{rest}e{exp_sign}{:02}",
            exp.unsigned_abs()
        );
    }
    let whole_len = usize::try_from(exp + 1).unwrap_or(0);
    if whole_len == 0 {
        let zeros = "0".repeat(exp.unsigned_abs() as usize - 1);
        format!("{sign}0.{zeros}{digits}")
    } else if digits.len() > whole_len {
        format!("{sign}{}.{}", &digits[..whole_len], &digits[whole_len..])
    } else {
        format!("{sign}{digits}{}", "0".repeat(whole_len - digits.len()))
    }
}

/// Go's `encoding/json` output: sorted keys, HTML-safe strings, floats in `'f'` form
/// unless below 1e-6 or from 1e21 (then `1e-7`, `1e+21`).
fn go_json(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => out.push_str(&i.to_string()),
            (None, Some(f)) => {
                let exponent = f != 0.0 && !(1e-6..1e21).contains(&f.abs());
                let mut text = go_float(f, |_| exponent);
                // Go trims a one-digit negative exponent: `1e-07` becomes `1e-7`.
                let len = text.len();
                if len >= 4 && text.get(len - 4..len - 1) == Some("e-0") {
                    text.remove(len - 2);
                }
                out.push_str(&text);
            }
            (None, None) => out.push_str(&n.to_string()),
        },
        Value::String(s) => json_string(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                go_json(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut entries: Vec<_> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (key, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                json_string(key, out);
                out.push(':');
                go_json(item, out);
            }
            out.push('}');
        }
    }
}

/// A JSON string as Go escapes it (`<`, `>`, `&`, U+2028 and U+2029 included).
fn json_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\x08' => out.push_str("\\b"),
            '\x0c' => out.push_str("\\f"),
            c if c < ' ' || matches!(c, '<' | '>' | '&' | '\u{2028}' | '\u{2029}') => {
                out.push_str(&format!("\\u{:04x}", u32::from(c)));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Go's `strconv.Quote`: printable characters (letters, marks, numbers, punctuation,
/// symbols, ASCII space) as is, others as `\a`..`\v`, `\xNN`, `\uNNNN` or `\UNNNNNNNN`.
fn go_quote(s: &str) -> String {
    static PRINTABLE: std::sync::LazyLock<Option<regex::Regex>> =
        std::sync::LazyLock::new(|| regex::Regex::new(r"^[\p{L}\p{M}\p{N}\p{P}\p{S}]$").ok());
    let printable = |c: char| match PRINTABLE.as_ref() {
        _ if c.is_ascii() => (' '..='~').contains(&c),
        Some(re) => re.is_match(c.encode_utf8(&mut [0; 4])),
        None => !c.is_control(),
    };
    let mut out = String::from('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if printable(c) => out.push(c),
            '\x07' => out.push_str("\\a"),
            '\x08' => out.push_str("\\b"),
            '\x0c' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\x0b' => out.push_str("\\v"),
            c if c < ' ' || c == '\x7f' => out.push_str(&format!("\\x{:02x}", u32::from(c))),
            c if u32::from(c) < 0x10000 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push_str(&format!("\\U{:08x}", u32::from(c))),
        }
    }
    out.push('"');
    out
}

/// Every error a request can end with, named after kube's `StatusReason`.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// The named object does not exist.
    #[error("{resource} \"{name}\" not found")]
    NotFound {
        resource: GroupResource,
        name: String,
    },
    /// The path names no group, version or resource that is served.
    #[error("the server could not find the requested resource")]
    PathNotFound,
    /// Create of a name that is taken.
    #[error("{resource} \"{name}\" already exists")]
    AlreadyExists {
        resource: GroupResource,
        name: String,
    },
    /// Optimistic concurrency or precondition failure.
    #[error("Operation cannot be fulfilled on {resource} \"{name}\": {message}")]
    Conflict {
        resource: GroupResource,
        name: String,
        message: String,
    },
    /// The object failed validation (422 with causes).
    #[error(
        "{} \"{name}\" is invalid: {}",
        qualified_kind(kind, group),
        aggregate(causes)
    )]
    Invalid {
        group: String,
        kind: String,
        name: String,
        causes: Vec<FieldError>,
    },
    /// A 422 without field causes (e.g. a JSON patch that cannot be applied).
    #[error("{0}")]
    Unprocessable(String),
    /// Malformed request: bad query, undecodable body.
    #[error("{0}")]
    BadRequest(String),
    /// A verb the resource does not support; the text is kube's
    /// `<verb> is not supported on resources of kind "<resource>"`.
    #[error("{0}")]
    MethodNotAllowed(String),
    /// The Accept header asks for nothing we can produce.
    #[error("only the following media types are accepted: {0}")]
    NotAcceptable(String),
    /// A Content-Type we cannot decode (e.g. strategic merge patch).
    #[error("the body of the request was in an unknown format - accepted media types include: {0}")]
    UnsupportedMediaType(String),
    /// A revision that was compacted (watch, continue token).
    #[error("{message}")]
    Expired {
        message: String,
        /// A fresh continue token, when kube would offer one.
        continue_token: Option<String>,
    },
    /// The body is over the limit.
    #[error("Request entity too large: limit is {0}")]
    RequestEntityTooLarge(usize),
    /// No credentials and anonymous access is off.
    #[error("Unauthorized")]
    Unauthorized,
    /// The authorizer said no; the message is kube's full sentence.
    #[error("{message}")]
    Forbidden {
        message: String,
        resource: Option<GroupResource>,
        name: String,
    },
    /// The storage backend cannot be reached.
    #[error("{0}")]
    ServiceUnavailable(String),
    /// The storage backend did not answer in time.
    #[error("{0}")]
    Timeout(String),
    /// A read at a revision the store has not reached yet (client-go retries on it).
    #[error("Timeout: Too large resource version: {requested}, current: {current}")]
    TooLargeResourceVersion { requested: i64, current: i64 },
    /// Anything else; the client sees a generic message, the log the full chain.
    #[error("Internal error occurred: {0}")]
    Internal(String),
}

/// Details with `name` only when there is one (Go's `omitempty`).
fn named(name: &str, mut details: Value) -> Value {
    if !name.is_empty() {
        details["name"] = json!(name);
    }
    details
}

/// schema.GroupKind's String(): `Kind.group`, or `Kind` alone in the core (empty) group.
fn qualified_kind(kind: &str, group: &str) -> String {
    if group.is_empty() {
        kind.to_string()
    } else {
        format!("{kind}.{group}")
    }
}

fn aggregate(causes: &[FieldError]) -> String {
    match causes {
        [one] => one.message(),
        many => format!(
            "[{}]",
            many.iter()
                .map(FieldError::message)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

pub type Result<T, E = ApiError> = std::result::Result<T, E>;

impl ApiError {
    /// An internal error whose detail is logged but not shown to the client.
    pub fn internal(context: &str, err: &dyn std::error::Error) -> Self {
        let mut chain = err.to_string();
        let mut source = err.source();
        while let Some(s) = source {
            chain.push_str(": ");
            chain.push_str(&s.to_string());
            source = s.source();
        }
        tracing::error!(context, error = %chain, "internal error");
        ApiError::Internal("an error on the server prevented the request from succeeding".into())
    }

    pub fn code(&self) -> u16 {
        match self {
            ApiError::NotFound { .. } | ApiError::PathNotFound => 404,
            ApiError::AlreadyExists { .. } | ApiError::Conflict { .. } => 409,
            ApiError::Invalid { .. } | ApiError::Unprocessable(_) => 422,
            ApiError::BadRequest(_) => 400,
            ApiError::MethodNotAllowed(_) => 405,
            ApiError::NotAcceptable(_) => 406,
            ApiError::UnsupportedMediaType(_) => 415,
            ApiError::Expired { .. } => 410,
            ApiError::RequestEntityTooLarge(_) => 413,
            ApiError::Unauthorized => 401,
            ApiError::Forbidden { .. } => 403,
            ApiError::ServiceUnavailable(_) => 503,
            ApiError::Timeout(_) | ApiError::TooLargeResourceVersion { .. } => 504,
            ApiError::Internal(_) => 500,
        }
    }

    pub fn reason(&self) -> &'static str {
        match self {
            ApiError::NotFound { .. } | ApiError::PathNotFound => "NotFound",
            ApiError::AlreadyExists { .. } => "AlreadyExists",
            ApiError::Conflict { .. } => "Conflict",
            ApiError::Invalid { .. } | ApiError::Unprocessable(_) => "Invalid",
            ApiError::BadRequest(_) => "BadRequest",
            ApiError::MethodNotAllowed(_) => "MethodNotAllowed",
            ApiError::NotAcceptable(_) => "NotAcceptable",
            ApiError::UnsupportedMediaType(_) => "UnsupportedMediaType",
            ApiError::Expired { .. } => "Expired",
            ApiError::RequestEntityTooLarge(_) => "RequestEntityTooLarge",
            ApiError::Unauthorized => "Unauthorized",
            ApiError::Forbidden { .. } => "Forbidden",
            ApiError::ServiceUnavailable(_) => "ServiceUnavailable",
            ApiError::Timeout(_) | ApiError::TooLargeResourceVersion { .. } => "Timeout",
            ApiError::Internal(_) => "InternalError",
        }
    }

    fn details(&self) -> Option<Value> {
        match self {
            ApiError::NotFound { resource, name }
            | ApiError::AlreadyExists { resource, name }
            | ApiError::Conflict { resource, name, .. } => Some(named(
                name,
                json!({"group": resource.group, "kind": resource.resource}),
            )),
            ApiError::TooLargeResourceVersion { .. } => Some(json!({
                "causes": [{"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}],
                "retryAfterSeconds": 1,
            })),
            ApiError::Forbidden {
                resource: Some(resource),
                name,
                ..
            } => {
                let mut d = json!({"group": resource.group, "kind": resource.resource});
                if !name.is_empty() {
                    d["name"] = json!(name);
                }
                Some(d)
            }
            ApiError::Invalid {
                group,
                kind,
                name,
                causes,
            } => Some(named(
                name,
                json!({
                    "group": group, "kind": kind,
                    "causes": causes.iter().map(|c| json!({
                        "reason": c.reason, "message": c.detail, "field": c.field,
                    })).collect::<Vec<_>>(),
                }),
            )),
            ApiError::Internal(_) => Some(json!({"causes": [{"message": self.inner_message()}]})),
            _ => None,
        }
    }

    fn inner_message(&self) -> String {
        match self {
            ApiError::Internal(m) => m.clone(),
            other => other.to_string(),
        }
    }

    /// The `metav1.Status` body kube sends for this error.
    pub fn to_status(&self) -> Value {
        let mut status = json!({
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.to_string(),
            "reason": self.reason(),
            "code": self.code(),
        });
        if let Some(details) = self.details() {
            status["details"] = details;
        }
        if let ApiError::Expired {
            continue_token: Some(token),
            ..
        } = self
        {
            status["metadata"]["continue"] = json!(token);
        }
        status
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn not_found_message_names_group_resource() {
        let err = ApiError::NotFound {
            resource: GroupResource::new("stable.example.com", "crontabs"),
            name: "x".into(),
        };
        let s = err.to_status();
        assert_eq!(s["message"], "crontabs.stable.example.com \"x\" not found");
        assert_eq!(s["code"], 404);
        assert_eq!(s["details"]["kind"], "crontabs");
    }

    #[test]
    fn invalid_with_many_causes_aggregates_in_brackets() {
        let err = ApiError::Invalid {
            group: "stable.example.com".into(),
            kind: "CronTab".into(),
            name: "x".into(),
            causes: vec![
                FieldError::required("spec.a", ""),
                FieldError::invalid("spec.b", &json!("v"), "bad"),
            ],
        };
        assert_eq!(
            err.to_string(),
            "CronTab.stable.example.com \"x\" is invalid: [spec.a: Required value, spec.b: Invalid value: \"v\": bad]"
        );
        assert_eq!(err.to_status()["details"]["causes"][1]["field"], "spec.b");
    }

    #[test]
    fn render_value_prints_like_go_error_body() {
        // Expected texts are apimachinery's ErrorBody output for the same JSON.
        let cases = [
            ("int", "-5", "-5"),
            ("integral_float", "1.0", "1"),
            ("fraction", "1.5", "1.5"),
            ("float_below_1e6_plain", "100000.0", "100000"),
            ("float_from_1e6_exponent", "1000000.0", "1e+06"),
            ("float_big", "1e21", "1e+21"),
            ("float_small", "0.00001", "1e-05"),
            ("float_1e_minus_4_plain", "0.0001", "0.0001"),
            ("negative_zero", "-0.0", "-0"),
            (
                "beyond_int64_is_float",
                "18446744073709551615",
                "1.8446744073709552e+19",
            ),
            (
                "tie_rounds_to_even",
                "1629824278314106.25",
                "1.6298242783141062e+15",
            ),
            ("bool", "true", "true"),
            ("null", "null", "null"),
            ("string", r#""abc""#, r#""abc""#),
            (
                "string_go_escapes",
                r#""a\"b\\c\n\t\r\u0007\b\f\u000b\u0000\u001f\u007f""#,
                r#""a\"b\\c\n\t\r\a\b\f\v\x00\x1f\x7f""#,
            ),
            (
                "string_unicode",
                r#""é\u00a0\u2028\u200b😀\u0301\u00ad""#,
                "\"é\\u00a0\\u2028\\u200b😀\u{301}\\u00ad\"",
            ),
            ("string_html_chars_raw", r#""<>&""#, r#""<>&""#),
            (
                "array_as_json",
                r#"[1,"a",null,true,1.5,1e21,1e-7,3.0,{"b":1,"a":[]}]"#,
                r#"[1,"a",null,true,1.5,1e+21,1e-7,3,{"a":[],"b":1}]"#,
            ),
            (
                "object_sorted_html_escaped",
                r#"{"z":1,"a":"<x>","m":{"\u2028":"\u0007\b\n\u007f"}}"#,
                "{\"a\":\"\\u003cx\\u003e\",\"m\":{\"\\u2028\":\"\\u0007\\b\\n\u{7f}\"},\"z\":1}",
            ),
            (
                "json_float_forms",
                "[1e20, 0.000001, 9.99999e-7, 18446744073709551615, 5e-324]",
                "[100000000000000000000,0.000001,9.99999e-7,18446744073709552000,5e-324]",
            ),
            ("empty_containers", "[[],{}]", "[[],{}]"),
        ];
        for (name, json_text, want) in cases {
            let value: Value = serde_json::from_str(json_text).expect(name);
            assert_eq!(render_value(&value), want, "{name}");
        }
    }
}
