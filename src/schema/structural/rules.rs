//! The shape of `x-kubernetes-validations` entries as kube checks it before compiling them:
//! a rule is present, messages are single-line, reasons are known and `fieldPath` names a
//! field of the schema. Compiling and costing the CEL rules is not done here.

use serde_json::Value;

use super::access::{X_VALIDATIONS, additional_schema, get, list, properties, property, text};
use super::convert::conversion_error;
use super::errors::{invalid_str, not_supported, required};
use crate::error::{ErrorType, FieldError};

const REASONS: [&str; 4] = [
    "FieldValueDuplicate",
    "FieldValueForbidden",
    "FieldValueInvalid",
    "FieldValueRequired",
];

/// Problems of each rule of one node.
pub(super) fn validate(schema: &Value, path: &str) -> Vec<FieldError> {
    list(schema, X_VALIDATIONS)
        .iter()
        .enumerate()
        .flat_map(|(i, rule)| check_rule(schema, rule, &format!("{path}.{X_VALIDATIONS}[{i}]")))
        .collect()
}

fn has_newlines(s: &str) -> bool {
    s.contains(['\n', '\r'])
}

fn check_rule(schema: &Value, rule: &Value, path: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let text_rule = text(rule, "rule");
    let message = text(rule, "message");
    let message_expression = text(rule, "messageExpression");
    let (trimmed_rule, trimmed_message) = (text_rule.trim(), message.trim());
    if trimmed_rule.is_empty() {
        errors.push(required(&format!("{path}.rule"), "rule is not specified"));
    } else if !message.is_empty() && trimmed_message.is_empty() {
        let field = format!("{path}.message");
        errors.push(invalid_str(
            &field,
            message,
            "must be non-empty if specified",
        ));
    } else if has_newlines(trimmed_message) {
        let field = format!("{path}.message");
        errors.push(invalid_str(&field, message, "must not contain line breaks"));
    } else if has_newlines(trimmed_rule) && trimmed_message.is_empty() {
        errors.push(required(
            &format!("{path}.message"),
            "message must be specified if rule contains line breaks",
        ));
    }
    if !message_expression.is_empty() && message_expression.trim().is_empty() {
        errors.push(required(
            &format!("{path}.messageExpression"),
            "messageExpression must be non-empty if specified",
        ));
    }
    if let Some(reason) = get(rule, "reason").and_then(Value::as_str)
        && ErrorType::from_rule_reason(reason).is_none()
    {
        errors.push(not_supported(&format!("{path}.reason"), reason, &REASONS));
    }
    errors.extend(field_path(schema, text(rule, "fieldPath"), path));
    errors
}

fn field_path(schema: &Value, value: &str, path: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let field = format!("{path}.fieldPath");
    if !value.is_empty() && value.trim().is_empty() {
        errors.push(invalid_str(&field, value, "must be non-empty if specified"));
    }
    if has_newlines(value) {
        errors.push(invalid_str(&field, value, "must not contain line breaks"));
    }
    if !value.is_empty() && conversion_error(schema).is_none() && !path_valid(schema, value) {
        errors.push(invalid_str(&field, value, "must be a valid path"));
    }
    errors
}

/// kube's `cel.ValidFieldPath`: `.name` and `['name']` steps through properties (or any key
/// of `additionalProperties`).
fn path_valid(schema: &Value, path: &str) -> bool {
    let tokens = tokenize(path);
    let mut tokens = tokens.iter().map(String::as_str);
    let mut node = Some(schema);
    while let Some(token) = tokens.next() {
        let name = match token {
            "[" => {
                let Some(quoted) = tokens.next() else {
                    return false;
                };
                let Some(name) = unquote(quoted) else {
                    return false;
                };
                if tokens.next() != Some("]") {
                    return false;
                }
                name
            }
            "." => match tokens.next() {
                Some(name) => name.to_string(),
                None => return false,
            },
            _ => return false,
        };
        let Some(current) = node else {
            return false;
        };
        node = if !properties(current).is_empty() {
            match property(current, &name) {
                Some(next) => Some(next),
                None => return false,
            }
        } else if get(current, "additionalProperties").is_some() {
            additional_schema(current)
        } else {
            return false;
        };
    }
    true
}

/// Splits on `.`, `[` and `]` (each its own token); a token starting with `'` runs to the
/// next unescaped `'`.
pub(crate) fn tokenize(path: &str) -> Vec<String> {
    let chars: Vec<char> = path.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let start = i;
        if chars[i] == '\'' {
            i += 1;
            while i < chars.len() && !(chars[i] == '\'' && chars[i - 1] != '\\') {
                i += 1;
            }
            i = (i + 1).min(chars.len());
        } else if matches!(chars[i], '.' | '[' | ']') {
            i += 1;
        } else {
            while i < chars.len() && !matches!(chars[i], '.' | '[' | ']') {
                i += 1;
            }
        }
        tokens.push(chars[start..i].iter().collect());
    }
    tokens
}

/// A single-quoted string literal with CEL's simple escapes.
pub(crate) fn unquote(token: &str) -> Option<String> {
    let inner = token.strip_prefix('\'')?.strip_suffix('\'')?;
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        out.push(match chars.next()? {
            'a' => '\u{7}',
            'b' => '\u{8}',
            'f' => '\u{c}',
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            'v' => '\u{b}',
            '\'' => '\'',
            '\\' => '\\',
            _ => return None,
        });
    }
    Some(out)
}
