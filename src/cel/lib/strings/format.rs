//! `<string>.format(<list>)` as cel-go's version-1 formatter (`ext/formatting.go`, used
//! up to strings version 3) prints with locale `en_US`: `%s %d %f %e %b %x %X %o`, `%%`,
//! `.N` precisions, and its error texts. `%f` groups thousands (`1,234.500000`) and `%e`
//! writes `1.234568×10⁰⁴` as golang.org/x/text does; cel-go passes the `%e` precision as
//! a width, so the mantissa always has six decimals.

use crate::cel::eval::{gotime, ops};
use crate::cel::value::{EvalError, Value};
use crate::gofmt::quote;

/// Our bound on `.N` (cel-go's version 1 has none).
const MAX_PRECISION: usize = 100_000;

type Clause = fn(&Value<'_>, Option<usize>) -> Result<String, String>;

pub(super) fn string_format<'a>(
    format: &Value<'a>,
    args: &Value<'a>,
) -> Result<Value<'a>, EvalError> {
    let (Value::String(format), Value::List(args)) = (format, args) else {
        return Err(ops::no_such_overload());
    };
    let args = ops::list_items(args)?;
    format_with(format.as_str(), &args)
        .map(Value::string)
        .map_err(EvalError::new)
}

/// cel-go's `parseFormatString`.
fn format_with(format: &str, args: &[Value<'_>]) -> Result<String, String> {
    let b = format.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(b.len());
    let (mut i, mut arg) = (0, 0);
    while i < b.len() {
        if b[i] != b'%' {
            out.push(b[i]);
            i += 1;
            continue;
        }
        if b.get(i + 1) == Some(&b'%') {
            out.push(b'%');
            i += 2;
            continue;
        }
        let Some(value) = args.get(arg) else {
            return Err(format!("index {arg} out of range"));
        };
        if i + 1 >= b.len() {
            return Err("unexpected end of string".to_string());
        }
        let (read, clause, precision) = parse_clause(&format[i + 1..])
            .map_err(|e| format!("could not parse formatting clause: {e}"))?;
        let text = clause(value, precision).map_err(|e| format!("error during formatting: {e}"))?;
        out.extend_from_slice(text.as_bytes());
        i += 1 + read;
        arg += 1;
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// `[.N]verb`: bytes read, the clause and the precision.
fn parse_clause(s: &str) -> Result<(usize, Clause, Option<usize>), String> {
    let b = s.as_bytes();
    let mut i = 0;
    let mut precision = None;
    if b.first() == Some(&b'.') {
        i = 1;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i >= b.len() {
            return Err(
                "error while parsing precision: could not find end of precision specifier"
                    .to_string(),
            );
        }
        let digits = &s[1..i];
        let parsed = digits.parse::<usize>().map_err(|_| {
            let why = if digits.is_empty() { "invalid syntax" } else { "value out of range" };
            format!(
                "error while parsing precision: error while converting precision to integer: strconv.Atoi: parsing {}: {why}",
                quote(digits)
            )
        })?;
        // Go would try to build the text; a bound keeps a rule from exhausting memory.
        if parsed > MAX_PRECISION {
            return Err(format!(
                "error while parsing precision: precision {parsed} exceeds maximum allowed precision {MAX_PRECISION}"
            ));
        }
        precision = Some(parsed);
    }
    let verb = s[i..].chars().next().unwrap_or('\0');
    let clause: Clause = match verb {
        's' => |v, _| format_string(v),
        'd' => |v, _| decimal(v),
        'f' => fixed,
        'e' => scientific,
        'b' => |v, _| binary(v),
        'x' => |v, _| hex(v, false),
        'X' => |v, _| hex(v, true),
        'o' => |v, _| octal(v),
        other => return Err(format!("unrecognized formatting clause \"{other}\"")),
    };
    Ok((i + verb.len_utf8(), clause, precision))
}

fn clause_error(what: &str, value: &Value<'_>) -> String {
    format!("{what}, was given {}", ops::type_name(value))
}

/// cel-go's `FormatString` (`%s`).
fn format_string(value: &Value<'_>) -> Result<String, String> {
    match value {
        Value::List(_) => format_list(value),
        Value::Map(_) => format_map(value),
        Value::Int(i) => Ok(i.to_string()),
        Value::Uint(u) => Ok(u.to_string()),
        Value::Double(d) => Ok(ops::format_g(*d)),
        Value::Bool(b) => Ok(b.to_string()),
        Value::String(s) => Ok(s.as_str().to_string()),
        Value::Timestamp(t) => Ok(gotime::format_timestamp(*t)),
        Value::Duration(d) => Ok(gotime::format_duration(*d)),
        Value::Bytes(b) => std::str::from_utf8(b).map(str::to_string).map_err(|_| {
            "could not convert argument \"invalid UTF-8 in bytes, cannot convert to string\" to string".to_string()
        }),
        Value::Type(t) => Ok(ops::type_runtime_name(t)),
        Value::Null => Ok("null".to_string()),
        other => Err(clause_error(
            "string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps",
            other,
        )),
    }
}

/// cel-go's `clauseForType` for list elements and map values, then `quoteForCEL`.
fn format_member(value: &Value<'_>) -> Result<String, String> {
    match value {
        Value::Int(_) | Value::Uint(_) => decimal(value),
        Value::String(_) => Ok(quote(&format_string(value)?)),
        Value::Bytes(_) => Ok(format!("b{}", quote(&format_string(value)?))),
        Value::Bool(_) | Value::Null | Value::Type(_) => format_string(value),
        Value::Timestamp(t) => Ok(format!(
            "timestamp({})",
            quote(&gotime::format_timestamp(*t))
        )),
        Value::Duration(d) => Ok(format!("duration({})", quote(&gotime::format_duration(*d)))),
        Value::List(_) => format_list(value),
        Value::Map(_) => format_map(value),
        Value::Double(d) => Ok(match go_fixed(*d, 6) {
            text if d.is_finite() => text,
            text => quote(&text),
        }),
        other => Err(format!(
            "no formatting function for {}",
            ops::type_name(other)
        )),
    }
}

fn format_list(value: &Value<'_>) -> Result<String, String> {
    let Value::List(list) = value else {
        return Err(clause_error("list expected", value));
    };
    let items = ops::list_items(list).map_err(|e| e.to_string())?;
    let parts = items
        .iter()
        .map(format_member)
        .collect::<Result<Vec<_>, _>>()?;
    Ok(format!("[{}]", parts.join(", ")))
}

/// Entries `key:value`, sorted by the key's text.
fn format_map(value: &Value<'_>) -> Result<String, String> {
    let Value::Map(map) = value else {
        return Err(clause_error("map expected", value));
    };
    let entries = ops::map_entries(map).map_err(|e| e.to_string())?;
    let mut pairs = Vec::with_capacity(entries.len());
    for (key, value) in &entries {
        let key = match key {
            Value::String(_) | Value::Bool(_) | Value::Int(_) | Value::Uint(_) => {
                format_member(key)?
            }
            other => {
                return Err(format!(
                    "no formatting function for map key of type {}",
                    ops::type_name(other)
                ));
            }
        };
        pairs.push((key, format_member(value)?));
    }
    pairs.sort_by(|a, b| a.0.cmp(&b.0));
    let parts: Vec<String> = pairs.into_iter().map(|(k, v)| format!("{k}:{v}")).collect();
    Ok(format!("{{{}}}", parts.join(", ")))
}

fn decimal(value: &Value<'_>) -> Result<String, String> {
    match value {
        Value::Int(i) => Ok(i.to_string()),
        Value::Uint(u) => Ok(u.to_string()),
        other => Err(clause_error(
            "decimal clause can only be used on integers",
            other,
        )),
    }
}

fn binary(value: &Value<'_>) -> Result<String, String> {
    match value {
        Value::Int(i) if *i < 0 => Ok(format!("-{:b}", i.unsigned_abs())),
        Value::Int(i) => Ok(format!("{i:b}")),
        Value::Uint(u) => Ok(format!("{u:b}")),
        Value::Bool(b) => Ok(if *b { "1" } else { "0" }.to_string()),
        other => Err(clause_error(
            "only integers and bools can be formatted as binary",
            other,
        )),
    }
}

fn octal(value: &Value<'_>) -> Result<String, String> {
    match value {
        Value::Int(i) if *i < 0 => Ok(format!("-{:o}", i.unsigned_abs())),
        Value::Int(i) => Ok(format!("{i:o}")),
        Value::Uint(u) => Ok(format!("{u:o}")),
        other => Err(clause_error(
            "octal clause can only be used on integers",
            other,
        )),
    }
}

fn hex(value: &Value<'_>, upper: bool) -> Result<String, String> {
    let text = match value {
        Value::Int(i) if *i < 0 => format!("-{:x}", i.unsigned_abs()),
        Value::Int(i) => format!("{i:x}"),
        Value::Uint(u) => format!("{u:x}"),
        Value::String(s) => s.as_str().bytes().map(|b| format!("{b:02x}")).collect(),
        Value::Bytes(b) => b.iter().map(|b| format!("{b:02x}")).collect(),
        other => {
            return Err(clause_error(
                "only integers, byte buffers, and strings can be formatted as hex",
                other,
            ));
        }
    };
    Ok(if upper { text.to_uppercase() } else { text })
}

/// The double of `%f`/`%e`: a double, or one of the strings cel-go converts.
fn double_arg(value: &Value<'_>, what: &str) -> Result<f64, String> {
    match value {
        Value::Double(d) => Ok(*d),
        Value::String(s) if s.as_str() == "NaN" => Ok(f64::NAN),
        Value::String(s) if s.as_str() == "Infinity" => Ok(f64::INFINITY),
        Value::String(s) if s.as_str() == "-Infinity" => Ok(f64::NEG_INFINITY),
        other => Err(clause_error(what, other)),
    }
}

/// Go's `%.Nf` (no locale): `+Inf`, `-Inf`, `NaN` for the specials.
fn go_fixed(d: f64, precision: usize) -> String {
    match d {
        d if d.is_nan() => "NaN".to_string(),
        d if d.is_infinite() => if d > 0.0 { "+Inf" } else { "-Inf" }.to_string(),
        d => format!("{d:.precision$}"),
    }
}

/// x/text's `en_US` form of a non-finite double.
fn locale_special(d: f64) -> Option<&'static str> {
    match d {
        d if d.is_nan() => Some("NaN"),
        d if d == f64::INFINITY => Some("∞"),
        d if d == f64::NEG_INFINITY => Some("-∞"),
        _ => None,
    }
}

/// `%f` with `en_US` grouping.
fn fixed(value: &Value<'_>, precision: Option<usize>) -> Result<String, String> {
    let d = double_arg(value, "fixed-point clause can only be used on doubles")?;
    if let Some(special) = locale_special(d) {
        return Ok(special.to_string());
    }
    let precision = precision.unwrap_or(6);
    let text = format!("{:.precision$}", d.abs());
    let (int, frac) = text
        .split_once('.')
        .map_or((text.as_str(), ""), |(i, f)| (i, f));
    // x/text signs every negative value, even one rounded to zero, but not -0.
    let negative = d < 0.0;
    let mut out = String::from(if negative { "-" } else { "" });
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if !frac.is_empty() {
        out.push('.');
        out.push_str(frac);
    }
    Ok(out)
}

/// `%e` as x/text prints it, the precision acting as a minimum width in characters.
fn scientific(value: &Value<'_>, precision: Option<usize>) -> Result<String, String> {
    let d = double_arg(value, "scientific clause can only be used on doubles")?;
    let text = match locale_special(d) {
        Some(special) => special.to_string(),
        None => {
            // x/text prints -0 unsigned.
            let d = if d == 0.0 { 0.0 } else { d };
            let rust = format!("{d:.6e}");
            let (mantissa, exponent) = rust.split_once('e').unwrap_or((rust.as_str(), "0"));
            let exponent: i32 = exponent.parse().unwrap_or(0);
            let digits = format!("{:02}", exponent.unsigned_abs());
            let superscript: String = digits.chars().map(superscript_digit).collect();
            let sign = if exponent < 0 { "⁻" } else { "" };
            format!("{mantissa}×10{sign}{superscript}")
        }
    };
    let width = precision.unwrap_or(6);
    let pad = width.saturating_sub(text.chars().count());
    Ok(format!("{}{text}", " ".repeat(pad)))
}

fn superscript_digit(c: char) -> char {
    match c {
        '0' => '⁰',
        '1' => '¹',
        '2' => '²',
        '3' => '³',
        '4' => '⁴',
        '5' => '⁵',
        '6' => '⁶',
        '7' => '⁷',
        '8' => '⁸',
        _ => '⁹',
    }
}

/// Go's `%v` of a CEL value, for `join`'s error.
pub(super) fn go_value(value: &Value<'_>) -> String {
    ops::go_format(value)
}

#[cfg(test)]
mod tests;
