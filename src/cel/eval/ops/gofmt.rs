//! Go's `%v` and `%g` renderings of values, as cel-go formats keys, indexes and
//! numbers inside messages.

use crate::cel::value::Value;

use super::type_name;

/// Go's `%v` of a value, as cel-go formats keys and indexes in messages.
pub fn go_format(value: &Value<'_>) -> String {
    match value {
        Value::String(s) => s.as_str().to_string(),
        Value::Int(i) => i.to_string(),
        Value::Uint(u) => u.to_string(),
        Value::Double(d) => format_g(*d),
        Value::Bool(b) => b.to_string(),
        Value::Null => "<nil>".to_string(),
        other => type_name(other).to_string(),
    }
}

/// Go's `%g`: the shortest digits that round-trip, in exponent form when the decimal
/// exponent is below -4 or at least 6 (Go's precision for shortest `%g`).
pub fn format_g(d: f64) -> String {
    if d.is_nan() {
        return "NaN".into();
    }
    if d.is_infinite() {
        return if d > 0.0 {
            "+Inf".into()
        } else {
            "-Inf".into()
        };
    }
    if d == 0.0 {
        return if d.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    // Shortest round-trip digits and decimal exponent from Rust's `{:e}`.
    let sci = format!("{:e}", d.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let sign = if d < 0.0 { "-" } else { "" };
    if !(-4..6).contains(&exp) {
        let (first, rest) = digits.split_at(1);
        let frac = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        let esign = if exp < 0 { '-' } else { '+' };
        return format!("{sign}{first}{frac}e{esign}{:02}", exp.abs());
    }
    if exp < 0 {
        let zeros = "0".repeat((-exp - 1) as usize);
        return format!("{sign}0.{zeros}{digits}");
    }
    let point = exp as usize + 1;
    if digits.len() <= point {
        format!("{sign}{digits}{}", "0".repeat(point - digits.len()))
    } else {
        format!("{sign}{}.{}", &digits[..point], &digits[point..])
    }
}

/// Go's `%T` of the value cel-go or kube holds, which their range errors print.
pub fn go_type(value: &Value<'_>) -> &'static str {
    match value {
        Value::Null => "types.Null",
        Value::Bool(_) => "types.Bool",
        Value::Int(_) => "types.Int",
        Value::Uint(_) => "types.Uint",
        Value::Double(_) => "types.Double",
        Value::String(_) => "types.String",
        Value::Bytes(_) => "types.Bytes",
        Value::Duration(_) => "types.Duration",
        Value::Timestamp(_) => "types.Timestamp",
        Value::Optional(_) => "*types.Optional",
        Value::Type(_) => "*types.Type",
        Value::List(_) | Value::Map(_) => "list",
        Value::Opaque(o) => match o.type_name() {
            "kubernetes.Quantity" => "cel.Quantity",
            "net.IP" => "cel.IP",
            "net.CIDR" => "cel.CIDR",
            "kubernetes.URL" => "cel.URL",
            "kubernetes.Semver" => "cel.Semver",
            "kubernetes.NamedFormat" => "cel.Format",
            other => other,
        },
    }
}
